// The string-named Session API: GraphDefs in text, feeds, fetches, targets,
// pruning, caching, errors and concurrency.
#include "tensorflow_ipu/runtime/direct_session.h"
#include "unsupported/Eigen/CXX11/Tensor"

#include <thread>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

// The tutorial's graph, (a+b)+(a+c), as a user would save it in text.
constexpr char kTutorialGraph[] = R"pb(
  node {
    name: "a"
    op: "Placeholder"
    device: "/device:CPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "b"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "c"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } } } }
  }
  node { name: "o1" op: "TestAdd" input: "a" input: "b" }
  node { name: "o2" op: "TestAdd" input: "a" input: "c" }
  node { name: "add" op: "TestAdd" input: "o1" input: "o2" }
  node { name: "init" op: "NoOp" input: "^o1" }
  node { name: "fail" op: "TestFail" input: "a" }
)pb";

class DirectSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GraphDef def = GraphDefFromText(kTutorialGraph).value();
    {
      absl::Status status = session_.Create(def);
      ASSERT_TRUE(status.ok()) << status;
    }
  }
  std::vector<std::pair<std::string, Tensor>> Feeds() {
    return {{"a:0", Tensor::Vector<float>({1, 1})},
            {"b:0", Tensor::Vector<float>({0, 1})},
            {"c", Tensor::Vector<float>({1, 5})}};
  }
  DirectSession session_{SessionOptions()};
};

TEST_F(DirectSessionTest, RunsTheTutorialGraph) {
  std::vector<Tensor> out;
  {
    absl::Status status = session_.Run(Feeds(), {"add:0"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].DebugString(), "[3. 8.]");
}

TEST_F(DirectSessionTest, LoadsAGraphDefSavedAsTextFile) {
  std::string path = ::testing::TempDir() + "/tutorial.pbtxt";
  TF_ASSERT_OK(WriteGraphDefFile(GraphDefFromText(kTutorialGraph).value(), path));
  std::unique_ptr<Session> s = NewSession();
  {
    absl::Status status = s->Create(ReadGraphDefFile(path).value());
    ASSERT_TRUE(status.ok()) << status;
  }
  std::vector<Tensor> out;
  {
    absl::Status status = s->Run(Feeds(), {"add:0", "o1:0"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].DebugString(), "[3. 8.]");
  EXPECT_EQ(out[1].DebugString(), "[1. 2.]");
}

TEST_F(DirectSessionTest, PrunesToWhatTheFetchesNeed) {
  // o1 only needs a and b; c need not be fed, and the failing node is not run.
  std::vector<Tensor> out;
  absl::Status s = session_.Run({{"a:0", Tensor::Vector<float>({1, 2})},
                                 {"b:0", Tensor::Vector<float>({3, 4})}},
                                {"o1:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[4. 6.]");
}

TEST_F(DirectSessionTest, FeedingAnIntermediateTensorCutsTheGraph) {
  std::vector<Tensor> out;
  absl::Status s = session_.Run({{"o1:0", Tensor::Vector<float>({10, 20})},
                                 {"o2:0", Tensor::Vector<float>({1, 2})}},
                                {"add:0", "o1:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[11. 22.]");
  EXPECT_EQ(out[1].DebugString(), "[10. 20.]");
}

TEST_F(DirectSessionTest, TargetsRunWithoutFetching) {
  std::vector<Tensor> out;
  auto feeds = Feeds();
  feeds.pop_back();
  {
    absl::Status status = session_.Run(feeds, {}, {"init"}, &out);
    EXPECT_TRUE(status.ok()) << status;
  }
  EXPECT_TRUE(out.empty());
}

TEST_F(DirectSessionTest, ReusesThePreparedExecutor) {
  std::vector<Tensor> out;
  for (int i = 0; i < 5; ++i) {
    {
      absl::Status status = session_.Run(Feeds(), {"add:0"}, {}, &out);
      ASSERT_TRUE(status.ok()) << status;
    }
  }
  EXPECT_EQ(session_.num_cached_executors(), 1);
  {
    absl::Status status = session_.Run(Feeds(), {"o2:0"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(session_.num_cached_executors(), 2);
}

TEST_F(DirectSessionTest, MissingFeedNamesThePlaceholder) {
  std::vector<Tensor> out;
  absl::Status s = session_.Run({{"a:0", Tensor::Vector<float>({1, 1})}},
                                {"add:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("You must feed a value for placeholder tensor 'b' "
                             "with dtype float and shape [2]"),
            std::string::npos)
      << s;
}

TEST_F(DirectSessionTest, WrongFeedDtypeSaysExpectedAndGot) {
  auto feeds = Feeds();
  feeds[1].second = Tensor::Vector<int32_t>({0, 1});
  std::vector<Tensor> out;
  absl::Status s = session_.Run(feeds, {"add:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'b:0' has dtype int32 but 'b' expects float"),
            std::string::npos)
      << s;
}

TEST_F(DirectSessionTest, WrongFeedShapeSaysExpectedAndGot) {
  auto feeds = Feeds();
  feeds[0].second = Tensor::Vector<float>({1, 2, 3});
  std::vector<Tensor> out;
  absl::Status s = session_.Run(feeds, {"add:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("has shape [3], which is not compatible with the "
                             "shape [2] of 'a'"),
            std::string::npos)
      << s;
  // The session still works afterwards.
  {
    absl::Status status = session_.Run(Feeds(), {"add:0"}, {}, &out);
    EXPECT_TRUE(status.ok()) << status;
  }
}

TEST_F(DirectSessionTest, PartialShapeAcceptsAnyCompatibleFeed) {
  // c has shape [?]: a feed of [2] is fine, and the kernel checks the rest.
  auto feeds = Feeds();
  feeds[2].second = Tensor::Vector<float>({1, 2, 3});
  std::vector<Tensor> out;
  absl::Status s = session_.Run(feeds, {"o2:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("node 'o2'"), std::string::npos) << s;
}

TEST_F(DirectSessionTest, UnknownTensorsAndNodes) {
  std::vector<Tensor> out;
  absl::Status s = session_.Run({{"nope:0", Tensor::Scalar<float>(1)}},
                                {"add:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("Feeding tensor 'nope:0'"), std::string::npos);
  s = session_.Run(Feeds(), {"add:3"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("node 'add' has 1 output(s)"), std::string::npos);
  s = session_.Run(Feeds(), {}, {"missing_target"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("'missing_target'"), std::string::npos);
}

TEST_F(DirectSessionTest, KernelErrorsPropagate) {
  std::vector<Tensor> out;
  absl::Status s = session_.Run(Feeds(), {"fail:0"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("test failure [node 'fail'"), std::string::npos);
}

TEST_F(DirectSessionTest, ExtendAndCreateRules) {
  EXPECT_EQ(session_.Create(GraphDef()).code(),
            absl::StatusCode::kFailedPrecondition);
  GraphDef more = GraphDefFromText(
      R"pb(node { name: "twice" op: "TestAdd" input: "add" input: "add" })pb")
                      .value();
  {
    absl::Status status = session_.Extend(more);
    ASSERT_TRUE(status.ok()) << status;
  }
  std::vector<Tensor> out;
  {
    absl::Status status = session_.Run(Feeds(), {"twice:0"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(out[0].DebugString(), "[ 6. 16.]");
  {
    absl::Status status = session_.Close();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(session_.Run(Feeds(), {"add:0"}, {}, &out).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(DirectSessionNoGraphTest, RunBeforeCreate) {
  DirectSession s{SessionOptions()};
  std::vector<Tensor> out;
  EXPECT_EQ(s.Run({}, {"x:0"}, {}, &out).code(),
            absl::StatusCode::kFailedPrecondition);
}

// Independent branches scheduled on a pool: a wide graph of parallel adds
// must give the same numbers from many concurrent Run calls.
TEST(DirectSessionParallelTest, ConcurrentRunsOfAWideGraph) {
  GraphDef def = GraphDefFromText(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 4 } } } }
    }
  )pb").value();
  std::string prev_sum = "x";
  for (int i = 0; i < 32; ++i) {
    NodeDef* n = def.add_node();
    n->set_name("b" + std::to_string(i));
    n->set_op("TestAdd");
    n->add_input("x");
    n->add_input("x");
    NodeDef* s = def.add_node();
    s->set_name("s" + std::to_string(i));
    s->set_op("TestAdd");
    s->add_input(prev_sum);
    s->add_input(n->name());
    prev_sum = s->name();
  }
  DirectSession session{SessionOptions{4}};
  {
    absl::Status status = session.Create(def);
    ASSERT_TRUE(status.ok()) << status;
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 200; ++r) {
        std::vector<Tensor> out;
        float v = static_cast<float>(t + r);
        absl::Status s = session.Run(
            {{"x:0", Tensor::Vector<float>({v, v, v, v})}}, {prev_sum}, {}, &out);
        // x + 32 * 2x = 65x
        if (!s.ok() || out[0].flat<float>()(3) != 65 * v) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace tensorflow_ipu
