// Bad applications and misuse of the embedded application runtime: each is
// an error naming the file, the engine or the input, no call hangs, and the
// session keeps serving afterwards.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/ipu/embedded_runtime.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tests/ipu/application_testing.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using testing::CompileDoubler;
using testing::TempPath;
namespace er = ipu::embedded_runtime;

class BadEmbeddedRuntimeTest : public testing::IpuTest {
 protected:
  // A serving graph of `path`: offset and x fed, y fetched.
  void Serve(const std::string& path, const std::string& engine, int64_t timeout_us = 1000) {
    offset_ = ops::Placeholder(root_.WithOpName("offset"), DT_FLOAT);
    x_ = ops::Placeholder(root_.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({3}));
    absl::StatusOr<er::RuntimeContext> ctx =
        er::embedded_runtime_start(root_, path, {offset_}, engine, timeout_us);
    ASSERT_TRUE(ctx.ok()) << ctx.status();
    absl::StatusOr<std::vector<Output>> y = er::embedded_runtime_call(root_, {x_}, *ctx);
    ASSERT_TRUE(y.ok()) << y.status();
    y_ = (*y)[0];
  }

  absl::Status Call(ClientSession& session, std::vector<Tensor>* out) {
    return session.Run({{offset_, 1.f}, {x_, {1.f, 2.f, 3.f}}}, {y_}, out);
  }

  Scope root_ = Scope::NewRootScope();
  Output offset_, x_, y_;
};

TEST_F(BadEmbeddedRuntimeTest, AnExecutableRemovedAfterTheGraphWasBuiltIsNotFoundAtRunTime) {
  Configure(1);
  const std::string path = CompileDoubler(2, "removed");
  Serve(path, "removed_engine");
  ASSERT_EQ(std::remove(path.c_str()), 0);
  ClientSession session(root_);
  std::vector<Tensor> out;
  absl::Status s = Call(session, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(path));
  // Put back, the same session starts the engine and serves.
  CompileDoubler(2, "removed");
  TF_ASSERT_OK(Call(session, &out));
  EXPECT_EQ(out[0].DebugString(), "[3. 5. 7.]");
}

TEST_F(BadEmbeddedRuntimeTest, AnExecutableDamagedAfterTheGraphWasBuiltIsRefusedAtRunTime) {
  Configure(1);
  const std::string path = CompileDoubler(2, "damaged");
  Serve(path, "damaged_engine");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string("GCTF\xf0\x9f\x91\x8d", 8);
  ClientSession session(root_);
  std::vector<Tensor> out;
  absl::Status s = Call(session, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("truncated"));
}

TEST_F(BadEmbeddedRuntimeTest, AProgramThatDoesNotLoadNamesTheFileAndTheNode) {
  Configure(1);
  const std::string path = CompileDoubler(2, "unknown_op");
  absl::StatusOr<ApplicationExecutableProto> exe = ReadApplicationExecutable(path);
  ASSERT_TRUE(exe.ok()) << exe.status();
  NodeDef* strange = exe->mutable_program()->add_node();
  strange->set_name("strange");
  strange->set_op("NoSuchOp");
  TF_ASSERT_OK(WriteApplicationExecutable(*exe, path));
  Serve(path, "unknown_op_engine");
  ClientSession session(root_);
  std::vector<Tensor> out;
  absl::Status s = Call(session, &out);
  EXPECT_NE(s.code(), absl::StatusCode::kOk);
  EXPECT_THAT(std::string(s.message()), HasSubstr(path));
  EXPECT_THAT(std::string(s.message()), HasSubstr("NoSuchOp"));
}

TEST_F(BadEmbeddedRuntimeTest, AProgramForMoreIpusThanAttachedFailsEachCallAndTheEngineServesOn) {
  Configure(1);
  const std::string path = CompileDoubler(2, "two_ipus");
  absl::StatusOr<ApplicationExecutableProto> exe = ReadApplicationExecutable(path);
  ASSERT_TRUE(exe.ok()) << exe.status();
  // Everything on a second IPU the system does not have.
  for (NodeDef& n : *exe->mutable_program()->mutable_node()) {
    if (n.device() == "/device:IPU:0") n.set_device("/device:IPU:1");
  }
  TF_ASSERT_OK(WriteApplicationExecutable(*exe, path));
  Serve(path, "two_ipus_engine");
  ClientSession session(root_);
  std::vector<Tensor> out;
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::Status s = Call(session, &out);
    EXPECT_NE(s.code(), absl::StatusCode::kOk);
    EXPECT_THAT(std::string(s.message()), HasSubstr("application runtime 'two_ipus_engine'"));
    EXPECT_THAT(std::string(s.message()), HasSubstr("IPU:1"));
  }
}

TEST_F(BadEmbeddedRuntimeTest, OneEngineNameForTwoExecutablesIsRefusedNamingBoth) {
  Configure(1);
  const std::string first = CompileDoubler(2, "first");
  const std::string second = CompileDoubler(2, "second");
  Serve(first, "shared_name");
  absl::StatusOr<er::RuntimeContext> other =
      er::embedded_runtime_start(root_, second, {offset_}, "shared_name");
  ASSERT_TRUE(other.ok()) << other.status();
  ClientSession session(root_);
  std::vector<Tensor> out;
  TF_ASSERT_OK(Call(session, &out));
  absl::Status s = session.Run({{offset_, 1.f}}, {other->start_op()}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("application runtime 'shared_name' already runs '" + first + "'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(second));
  TF_ASSERT_OK(Call(session, &out));
  EXPECT_EQ(out[0].DebugString(), "[3. 5. 7.]");
}

TEST_F(BadEmbeddedRuntimeTest, ATimeoutThatIsNotPositiveIsRefused) {
  const std::string path = CompileDoubler(2, "timeout");
  for (int64_t timeout : {int64_t{0}, int64_t{-5}}) {
    absl::StatusOr<er::RuntimeContext> ctx =
        er::embedded_runtime_start(root_, path, {ops::Const(root_, 0.f)}, "t", timeout);
    EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument) << timeout;
    EXPECT_THAT(std::string(ctx.status().message()), HasSubstr(std::to_string(timeout)));
  }
}

TEST_F(BadEmbeddedRuntimeTest, AStartInputOfTheWrongShapeIsRefusedWhenTheEngineStarts) {
  Configure(1);
  const std::string path = CompileDoubler(2, "start_shape");
  Serve(path, "start_shape_engine");
  ClientSession session(root_);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{offset_, {1.f, 2.f}}, {x_, {1.f, 2.f, 3.f}}}, {y_}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Mismatched input shape at position 0 ('offset'). Expected [], but "
                        "input 0 has shape [2]."));
  TF_ASSERT_OK(Call(session, &out));
  EXPECT_EQ(out[0].DebugString(), "[3. 5. 7.]");
}

}  // namespace
}  // namespace tensorflow_ipu
