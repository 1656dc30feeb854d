// The embedded application runtime end to end: a program compiled ahead of
// time into an application executable, then served from another graph by
// ApplicationRuntime/ApplicationCall on the simulated IPU.
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/ipu/application_compile_op.h"
#include "tensorflow_ipu/ipu/embedded_runtime.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/runtime/ipu/application_engine.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tests/ipu/application_testing.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using EmbeddedRuntimeTest = testing::IpuTest;
using testing::CompileDoubler;
using testing::TempPath;
namespace er = ipu::embedded_runtime;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

struct Served {
  Scope root = Scope::NewRootScope();
  Output offset;
  Output x;
  std::vector<Output> y;
};

void Serve(const std::string& path, const std::string& engine, int64_t timeout_us, Served* s) {
  s->offset = ops::Placeholder(s->root.WithOpName("offset_in"), DT_FLOAT);
  s->x = ops::Placeholder(s->root.WithOpName("x"), DT_FLOAT,
                          ops::Placeholder::Shape(TensorShape({3})));
  absl::StatusOr<er::RuntimeContext> ctx =
      er::embedded_runtime_start(s->root, path, {s->offset}, engine, timeout_us);
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  absl::StatusOr<std::vector<Output>> y = er::embedded_runtime_call(s->root, {s->x}, *ctx);
  ASSERT_TRUE(y.ok()) << y.status();
  s->y = *y;
}

std::shared_ptr<ApplicationEngine> EngineOf(const ClientSession& session, const std::string& name) {
  ResourceManager* resources = nullptr;
  EXPECT_EQ(absl::OkStatus(), session.session()->LocalResourceManager(&resources));
  absl::StatusOr<std::shared_ptr<ApplicationEngine>> e =
      resources->Lookup<ApplicationEngine>("application_runtime", name);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : nullptr;
}

TEST_F(EmbeddedRuntimeTest, AnApplicationRecordsItsSignatureAndLoop) {
  const std::string path = CompileDoubler(4, "signature");
  absl::StatusOr<ApplicationExecutableProto> exe = ReadApplicationExecutable(path);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const EmbeddedRuntimeConfig& c = exe->embedded_runtime_config();
  EXPECT_EQ(c.iterations(), 4);
  EXPECT_EQ(c.num_ipus(), 1);
  ASSERT_EQ(c.signature().inputs_size(), 1);
  EXPECT_EQ(c.signature().inputs(0).name(), "offset");
  ASSERT_EQ(c.signature().streamed_inputs_size(), 1);
  EXPECT_EQ(c.signature().streamed_inputs(0).dtype(), DT_FLOAT);
  ASSERT_EQ(c.signature().streamed_outputs_size(), 1);
  EXPECT_EQ(c.signature().streamed_outputs(0).shape().dim_size(), 1);
  EXPECT_EQ(c.signature().streamed_outputs(0).shape().dim(0).size(), 3);
}

TEST_F(EmbeddedRuntimeTest, ALoneCallRunsAfterTheTimeoutWithThePaddedBatch) {
  Configure(1);
  const std::string path = CompileDoubler(4, "lone");
  Served s;
  Serve(path, "lone_engine", 1000, &s);
  ClientSession session(s.root);
  std::vector<Tensor> out;
  TF_ASSERT_OK(session.Run({{s.offset, 1.f}, {s.x, {1.f, 2.f, 3.f}}}, {s.y[0]}, &out));
  EXPECT_THAT(Floats(out[0]), ElementsAre(3.f, 5.f, 7.f));
  EXPECT_EQ(out[0].shape(), TensorShape({3}));
  TF_ASSERT_OK(session.Run({{s.offset, 1.f}, {s.x, {-1.f, 0.f, 0.5f}}}, {s.y[0]}, &out));
  EXPECT_THAT(Floats(out[0]), ElementsAre(-1.f, 1.f, 2.f));
  std::shared_ptr<ApplicationEngine> engine = EngineOf(session, "lone_engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->runs(), 2);  // each call alone, padded to 4 iterations
  EXPECT_EQ(engine->calls_served(), 2);
}

TEST_F(EmbeddedRuntimeTest, ConcurrentCallsShareOneRunOfTheLoop) {
  Configure(1);
  const std::string path = CompileDoubler(4, "shared");
  Served s;
  // Long enough that four threads started together always meet.
  Serve(path, "shared_engine", 5'000'000, &s);
  ClientSession session(s.root);
  std::vector<std::vector<Tensor>> outs(4);
  std::vector<absl::Status> status(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const float v = static_cast<float>(t);
      status[t] = session.Run({{s.offset, 0.5f}, {s.x, {v, 10.f * v, -v}}}, {s.y[0]}, &outs[t]);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    ASSERT_EQ(absl::OkStatus(), status[t]) << "caller " << t;
    const float v = static_cast<float>(t);
    EXPECT_THAT(Floats(outs[t][0]), ElementsAre(2 * v + 0.5f, 20 * v + 0.5f, -2 * v + 0.5f))
        << "caller " << t;
  }
  std::shared_ptr<ApplicationEngine> engine = EngineOf(session, "shared_engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->runs(), 1);
  EXPECT_EQ(engine->calls_served(), 4);
}

TEST_F(EmbeddedRuntimeTest, ARunDeadlineStopsAWaitingCallAndTheEngineServesOn) {
  Configure(1);
  const std::string path = CompileDoubler(2, "deadline");
  Served s;
  Serve(path, "deadline_engine", 3'000'000, &s);
  ClientSession session(s.root);
  RunOptions options;
  options.timeout_in_ms = 100;
  std::vector<Tensor> out;
  absl::Status late = session.Run(options, {{s.offset, 0.f}, {s.x, {1.f, 1.f, 1.f}}}, {s.y[0]},
                                  {}, &out, nullptr);
  EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded) << late;
  // Two callers fill the batch: no wait for the timeout.
  std::vector<Tensor> a, b;
  absl::Status sa, sb;
  std::thread ta([&] { sa = session.Run({{s.offset, 0.f}, {s.x, {1.f, 2.f, 3.f}}}, {s.y[0]}, &a); });
  std::thread tb([&] { sb = session.Run({{s.offset, 0.f}, {s.x, {4.f, 5.f, 6.f}}}, {s.y[0]}, &b); });
  ta.join();
  tb.join();
  TF_ASSERT_OK(sa);
  TF_ASSERT_OK(sb);
  EXPECT_THAT(Floats(a[0]), ElementsAre(2.f, 4.f, 6.f));
  EXPECT_THAT(Floats(b[0]), ElementsAre(8.f, 10.f, 12.f));
}

TEST_F(EmbeddedRuntimeTest, WrongInputsAreRefusedInTheVendorsWords) {
  Configure(1);
  const std::string path = CompileDoubler(2, "wrong");
  Scope root = Scope::NewRootScope();
  Output offset = ops::Placeholder(root, DT_FLOAT);
  absl::StatusOr<er::RuntimeContext> none = er::embedded_runtime_start(root, path, std::vector<Output>{}, "e");
  EXPECT_EQ(std::string(none.status().message()),
            "Embedded application runtime expects 1 inputs, but 0 were provided.");
  absl::StatusOr<er::RuntimeContext> by_name = er::embedded_runtime_start(
      root, path, std::map<std::string, Output>{{"scale", offset}}, "e");
  EXPECT_EQ(std::string(by_name.status().message()),
            "Failed to find input tensor with name 'offset' in input dictionary.");
  absl::StatusOr<er::RuntimeContext> ctx = er::embedded_runtime_start(root, path, {offset}, "e");
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  Output four = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape(TensorShape({4})));
  absl::StatusOr<std::vector<Output>> shape = er::embedded_runtime_call(root, {four}, *ctx);
  EXPECT_EQ(std::string(shape.status().message()),
            "Mismatched input shape at position 0 ('loop_1/wrong_in/dequeue'). Expected [3], but "
            "input 0 has shape [4].");
  Output ints = ops::Placeholder(root, DT_INT32, ops::Placeholder::Shape(TensorShape({3})));
  absl::StatusOr<std::vector<Output>> dtype = er::embedded_runtime_call(root, {ints}, *ctx);
  EXPECT_EQ(std::string(dtype.status().message()),
            "Mismatched input dtype at position 0 ('loop_1/wrong_in/dequeue'). Expected float, but "
            "input 0 has dtype int32.");
  EXPECT_EQ(er::embedded_runtime_stop(*ctx).code(), absl::StatusCode::kUnimplemented);

  // A shape the graph does not know is checked when the call runs; the
  // session keeps working.
  Output any = ops::Placeholder(root, DT_FLOAT);
  absl::StatusOr<std::vector<Output>> y = er::embedded_runtime_call(root, {any}, *ctx);
  ASSERT_TRUE(y.ok()) << y.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{offset, 0.f}, {any, {1.f, 2.f}}}, {(*y)[0]}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("Expected [3], but input 0 has shape [2]"));
  TF_ASSERT_OK(session.Run({{offset, 0.f}, {any, {1.f, 2.f, 3.f}}}, {(*y)[0]}, &out));
  EXPECT_THAT(Floats(out[0]), ElementsAre(2.f, 4.f, 6.f));
}

TEST_F(EmbeddedRuntimeTest, AFileThatIsNotAnApplicationIsRefusedWhenTheGraphIsBuilt) {
  const std::string path = TempPath("not_an_application");
  std::ofstream(path) << "hello";
  Scope root = Scope::NewRootScope();
  absl::StatusOr<er::RuntimeContext> ctx = er::embedded_runtime_start(root, path, std::vector<Output>{}, "e");
  EXPECT_EQ(std::string(ctx.status().message()),
            "Executable file '" + path + "' is not a TensorFlow Poplar binary.");
}

TEST_F(EmbeddedRuntimeTest, AProgramWithoutFeedsOrWithVariablesIsNoApplication) {
  auto no_feeds = [](const Scope& s) -> ipu::ComputationOutputs {
    Scope ipu = ipu::scopes::ipu_scope(s, "/device:IPU:0");
    return {ops::Add(ipu, ops::Const(ipu, 1.f), 2.f)};
  };
  absl::StatusOr<std::string> r = ipu::application_compile_op::experimental_application_compile_op(
      no_feeds, TempPath("no_feeds"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("reads no infeed"));
  absl::StatusOr<std::string> frozen = ipu::application_compile_op::experimental_application_compile_op(
      no_feeds, TempPath("frozen"), /*freeze_variables=*/true);
  EXPECT_EQ(frozen.status().code(), absl::StatusCode::kUnimplemented) << frozen.status();
}

}  // namespace
}  // namespace tensorflow_ipu
