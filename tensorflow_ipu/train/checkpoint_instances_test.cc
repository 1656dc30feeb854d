// Saver and latest_checkpoint in a job of two instances, in one process:
// the run of instance 0 records what it broadcasts, and the run of
// instance 1 is given those bytes back, as the network would give them.
// (tests/distributed does the same over Open MPI with real processes.)
#include "tensorflow_ipu/train/checkpoint_instances.h"

#include <deque>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/train/checkpoint_management.h"
#include "tensorflow_ipu/train/saver.h"

namespace tensorflow_ipu {
namespace train {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Instance 0 of two: keeps every buffer it sends.
class Recording : public CheckpointInstances {
 public:
  int num_instances() const override { return 2; }
  int instance_index() const override { return 0; }
  absl::Status BroadcastFromFirst(absl::Span<char> buffer, const std::string& what) override {
    sent.emplace_back(buffer.begin(), buffer.end());
    whats.push_back(what);
    return absl::OkStatus();
  }
  std::deque<std::string> sent;
  std::vector<std::string> whats;
};

// Instance 1 of two: receives what instance 0 sent, in order; a transfer
// of another size, or one more than instance 0 made, fails the test.
class Replaying : public CheckpointInstances {
 public:
  explicit Replaying(std::deque<std::string> sent) : sent_(std::move(sent)) {}
  int num_instances() const override { return 2; }
  int instance_index() const override { return 1; }
  absl::Status BroadcastFromFirst(absl::Span<char> buffer, const std::string& what) override {
    if (sent_.empty()) return absl::InternalError("instance 0 sent nothing more: " + what);
    const std::string bytes = sent_.front();
    sent_.pop_front();
    if (bytes.size() != buffer.size()) {
      return absl::InternalError(absl::StrCat("sizes differ at ", what, ": ", bytes.size(),
                                              " sent, ", buffer.size(), " expected"));
    }
    std::copy(bytes.begin(), bytes.end(), buffer.begin());
    return absl::OkStatus();
  }
  bool drained() const { return sent_.empty(); }

 private:
  std::deque<std::string> sent_;
};

// A variable that starts at (instance + 1) x [1, 2, 3], as a program
// might initialise it from a per-instance seed.
struct Model {
  explicit Model(float own) : root(Scope::NewRootScope()) {
    VariableScope vs(root, "vs");
    w = *vs.get_variable("w", {3}, DT_FLOAT,
                         initializers::Value(Tensor::FromVector<float>(
                             {own, 2 * own, 3 * own}, TensorShape({3}))));
    init = global_variables_initializer(root);
  }
  std::vector<float> Value(const ClientSession& session) {
    std::vector<Tensor> out;
    absl::Status s = session.Run({w.value(root)}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return {};
    return std::vector<float>(out[0].data<float>(), out[0].data<float>() + 3);
  }
  Scope root;
  Variable w;
  Operation init;
};

class CheckpointInstancesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "instance0");
    fs::create_directories(dir_ / "instance1");
  }
  void TearDown() override { SetCheckpointInstances(nullptr); }
  std::string On(int instance, const std::string& name) const {
    return (dir_ / absl::StrCat("instance", instance) / name).string();
  }
  fs::path dir_;
};

TEST_F(CheckpointInstancesTest, ASingleInstanceJobIsNoJob) {
  auto one = std::make_shared<Replaying>(std::deque<std::string>());
  struct One : Replaying {
    One() : Replaying({}) {}
    int num_instances() const override { return 1; }
  };
  SetCheckpointInstances(std::make_shared<One>());
  EXPECT_EQ(GetCheckpointInstances(), nullptr);
  SetCheckpointInstances(one);
  EXPECT_EQ(GetCheckpointInstances(), one);
}

TEST_F(CheckpointInstancesTest, OnlyInstanceZeroWritesAndEveryInstanceRestoresItsValues) {
  // Instance 0: saves its values [1, 2, 3], then restores them after a
  // change.
  auto first = std::make_shared<Recording>();
  SetCheckpointInstances(first);
  Model zero(1);
  ClientSession s0(zero.root);
  ASSERT_EQ(absl::OkStatus(), s0.Run({}, {}, {zero.init}, nullptr));
  Saver saver0(zero.root);
  absl::StatusOr<std::string> saved = saver0.save(s0, On(0, "model.ckpt"), 7);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(*saved, On(0, "model.ckpt-7"));
  EXPECT_TRUE(checkpoint_exists(On(0, "model.ckpt-7")));
  absl::StatusOr<std::optional<std::string>> latest = latest_checkpoint(On(0, ""));
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(latest->has_value());
  ASSERT_EQ(absl::OkStatus(), saver0.restore(s0, **latest));
  EXPECT_THAT(zero.Value(s0), ElementsAre(1, 2, 3));

  // Instance 1: its own values are [2, 4, 6] and its directory is empty
  // (another host). Its save writes nothing; its latest checkpoint and
  // its restore are instance 0's.
  auto second = std::make_shared<Replaying>(first->sent);
  SetCheckpointInstances(second);
  Model one(2);
  ClientSession s1(one.root);
  ASSERT_EQ(absl::OkStatus(), s1.Run({}, {}, {one.init}, nullptr));
  EXPECT_THAT(one.Value(s1), ElementsAre(2, 4, 6));
  Saver saver1(one.root);
  saved = saver1.save(s1, On(1, "model.ckpt"), 7);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(*saved, On(1, "model.ckpt-7"));
  EXPECT_TRUE(fs::is_empty(dir_ / "instance1"));
  EXPECT_THAT(saver1.last_checkpoints(), ElementsAre(On(1, "model.ckpt-7")));
  latest = latest_checkpoint(On(1, ""));
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ(**latest, On(0, "model.ckpt-7"));  // instance 0's path
  ASSERT_EQ(absl::OkStatus(), saver1.restore(s1, **latest));
  EXPECT_THAT(one.Value(s1), ElementsAre(1, 2, 3));
  EXPECT_TRUE(second->drained());
  // The descriptions the instances compare name no instance's own paths
  // (here each has a directory of its own).
  EXPECT_THAT(first->whats,
              ElementsAre(HasSubstr("the save of a checkpoint"),  // its outcome: OK
                          HasSubstr("the latest checkpoint of"),  // OK
                          HasSubstr("the latest checkpoint of"),  // present, its length
                          HasSubstr("the latest checkpoint of"),  // the path
                          HasSubstr("the restore of a checkpoint"),  // OK
                          HasSubstr("variable 'vs/w'")));         // the values
  for (const std::string& what : first->whats) {
    EXPECT_THAT(what, ::testing::Not(HasSubstr(On(0, "")))) << "names instance 0's directory";
  }
}

TEST_F(CheckpointInstancesTest, InstanceZerosErrorsReachEveryInstance) {
  auto first = std::make_shared<Recording>();
  SetCheckpointInstances(first);
  Model zero(1);
  ClientSession s0(zero.root);
  Saver saver0(zero.root);
  absl::Status restored = saver0.restore(s0, On(0, "missing.ckpt"));
  EXPECT_EQ(restored.code(), absl::StatusCode::kNotFound) << restored;
  // Saving a variable never initialised fails on instance 0.
  absl::Status saved = saver0.save(s0, On(0, "model.ckpt"));
  EXPECT_EQ(saved.code(), absl::StatusCode::kFailedPrecondition) << saved;

  SetCheckpointInstances(std::make_shared<Replaying>(first->sent));
  Model one(2);
  ClientSession s1(one.root);
  ASSERT_EQ(absl::OkStatus(), s1.Run({}, {}, {one.init}, nullptr));
  Saver saver1(one.root);
  absl::Status s = saver1.restore(s1, On(1, "missing.ckpt"));
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("instance 0 (which reads and writes the job's checkpoints): "));
  EXPECT_THAT(std::string(s.message()), HasSubstr(restored.message()));
  EXPECT_THAT(one.Value(s1), ElementsAre(2, 4, 6));  // unchanged
  // Instance 1 could have saved; instance 0 could not, so neither did.
  s = saver1.save(s1, On(1, "model.ckpt"));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("this session holds no value for it"));
}

TEST_F(CheckpointInstancesTest, StringsOfAnyLengthAndNoneTravel) {
  auto first = std::make_shared<Recording>();
  const std::string long_path(100000, 'p');
  for (const std::optional<std::string>& v :
       {std::optional<std::string>(), std::optional<std::string>(""),
        std::optional<std::string>(long_path)}) {
    absl::StatusOr<std::optional<std::string>> got = ShareStringOfFirst(*first, v, "path");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, v);
  }
  Replaying second(first->sent);
  for (const std::optional<std::string>& expected :
       {std::optional<std::string>(), std::optional<std::string>(""),
        std::optional<std::string>(long_path)}) {
    absl::StatusOr<std::optional<std::string>> got =
        ShareStringOfFirst(second, std::optional<std::string>("ignored"), "path");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, expected);
  }
  EXPECT_TRUE(second.drained());
}

}  // namespace
}  // namespace train
}  // namespace tensorflow_ipu
