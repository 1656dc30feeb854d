// Session::Close, and resetting or reconfiguring the IPU system, while other
// threads are inside Run. TensorFlow's contract: the steps in flight
// complete (or fail with a clear error), later Runs fail with a clear error,
// and nothing crashes. Run under ThreadSanitizer too (docs/RELIABILITY.md).
#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using CloseDuringRunTest = testing::IpuTest;

// A graph heavy enough that Runs overlap the Close: a chain of products.
Output Chain(const Scope& s, Output x, int links) {
  for (int i = 0; i < links; ++i) x = ops::Tanh(s, ops::MatMul(s, x, x));
  return x;
}

Tensor Identityish(int n) {
  Tensor t(DT_FLOAT, TensorShape({n, n}));
  for (int i = 0; i < n * n; ++i) t.data<float>()[i] = (i % (n + 1) == 0) ? 0.5f : 0.f;
  return t;
}

// Runs `rounds` Runs on each of `threads` threads while `disturb` runs on
// this one; every status must be OK or one of `allowed` codes.
void RunWhile(ClientSession& session, const ClientSession::FeedType& feeds,
              Output fetch, const std::function<void()>& disturb,
              std::vector<absl::StatusCode> allowed) {
  std::atomic<int> ok{0}, failed{0};
  std::atomic<bool> unexpected{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&] {
      for (int round = 0; round < 30; ++round) {
        std::vector<Tensor> out;
        absl::Status s = session.Run(feeds, {fetch}, &out);
        if (s.ok()) {
          ++ok;
          continue;
        }
        ++failed;
        bool expected = false;
        for (absl::StatusCode c : allowed) expected |= s.code() == c;
        if (!expected) {
          unexpected = true;
          ADD_FAILURE() << s;
        }
      }
    });
  }
  disturb();
  for (std::thread& w : workers) w.join();
  EXPECT_FALSE(unexpected);
  EXPECT_EQ(ok + failed, 4 * 30);
}

TEST_F(CloseDuringRunTest, CloseWhileHostRunsAreInFlight) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({64, 64}));
  Output y = Chain(root, x, 8);
  ClientSession session(root);
  RunWhile(session, {{x, Identityish(64)}}, y,
           [&] {
             std::this_thread::sleep_for(std::chrono::milliseconds(2));
             absl::Status s = session.session()->Close();
             EXPECT_TRUE(s.ok()) << s;
           },
           {absl::StatusCode::kFailedPrecondition});
  // Every later call says the session is closed.
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, Identityish(64)}}, {y}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("closed"), std::string::npos) << s;
}

TEST_F(CloseDuringRunTest, CloseWhileIpuRunsAreInFlight) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({32, 32}));
  Output y = Chain(ipu::scopes::ipu_scope(root, "/device:IPU:0"), x, 4);
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status run_status = session.Run({{x, Identityish(32)}}, {y}, &out);
    ASSERT_TRUE(run_status.ok()) << run_status;
  }  // compile
  RunWhile(session, {{x, Identityish(32)}}, y,
           [&] {
             std::this_thread::sleep_for(std::chrono::milliseconds(2));
             {
               absl::Status run_status = session.session()->Close();
               EXPECT_TRUE(run_status.ok()) << run_status;
             }
           },
           {absl::StatusCode::kFailedPrecondition});
}

TEST_F(CloseDuringRunTest, ResetAndReconfigureWhileIpuRunsAreInFlight) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=16");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({32, 32}));
  Output y = Chain(ipu::scopes::ipu_scope(root, "/device:IPU:0"), x, 4);
  ClientSession session(root);
  std::vector<Tensor> out;
  {
    absl::Status run_status = session.Run({{x, Identityish(32)}}, {y}, &out);
    ASSERT_TRUE(run_status.ok()) << run_status;
  }
  const Tensor expected = out[0];
  // Runs between a reset and the next configuration find no IPU system.
  RunWhile(session, {{x, Identityish(32)}}, y,
           [&] {
             for (int k = 0; k < 5; ++k) {
               std::this_thread::sleep_for(std::chrono::milliseconds(1));
               ipu::IpuSystem::Get().Reset();
               std::this_thread::sleep_for(std::chrono::milliseconds(1));
               Configure(1);
             }
           },
           {absl::StatusCode::kFailedPrecondition});
  // On the last configuration the same graph runs and gives the same values
  // (recompiled for the new devices, not run on the old ones).
  absl::Status s = session.Run({{x, Identityish(32)}}, {y}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(out[0].BitwiseEquals(expected)) << out[0].DebugString();
}

}  // namespace
}  // namespace tensorflow_ipu
