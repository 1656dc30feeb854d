// ipu::ops::ipu_stateful_gradient_accumulate, as the vendor's tests use it:
// a loop-carried value that adds the accumulated sum changes once every N
// iterations; an optimizer applying it updates once every N; and the
// verifier's errors (usage, a loop count that N does not divide).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/gradient_accumulation_ops.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using testing::IpuTest;
using StatefulGradientAccumulateTest = IpuTest;

// The vendor's test: 10 iterations of x += accumulate(ones, n); y += ones.
absl::StatusOr<std::vector<Tensor>> CarriedSum(int n, bool verify_usage) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Output start = ops::Placeholder(cpu.WithOpName("start"), DT_FLOAT, ops::Placeholder::Shape({1}));
  absl::Status built;
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>& in) -> std::vector<Output> {
        auto out = ipu::loops::repeat(
            s, 10,
            [&](const Scope& b, const std::vector<Output>& c, const std::vector<Output>&) {
              auto sum = ipu::ops::ipu_stateful_gradient_accumulate(b, ops::OnesLike(b, c[0]), n,
                                                                    verify_usage);
              if (!sum.ok()) {
                built = sum.status();
                return c;
              }
              return std::vector<Output>{ops::Add(b, c[0], *sum),
                                         ops::Add(b, c[1], ops::OnesLike(b, c[1]))};
            },
            {in[0], in[0]});
        if (!out.ok()) built = out.status();
        return out.ok() ? *out : std::vector<Output>{ops::Const(s, 0.f)};
      }, {start});
  RETURN_IF_ERROR(built);
  RETURN_IF_ERROR(r.status());
  ClientSession session(root);
  RETURN_IF_ERROR(session.Run({}, {}, {global_variables_initializer(root)}, nullptr));
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session.Run({{start, {10.f}}}, *r, &out));
  return out;
}

TEST_F(StatefulGradientAccumulateTest, ACarriedValueAddsTheSumEveryNthIteration) {
  Configure(1);
  absl::StatusOr<std::vector<Tensor>> out = CarriedSum(5, /*verify_usage=*/false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].DebugString(), "[20.]");  // 10 + 5 + 5
  EXPECT_EQ((*out)[1].DebugString(), "[20.]");
}

TEST_F(StatefulGradientAccumulateTest, TheVerifiersErrors) {
  Configure(1);
  absl::StatusOr<std::vector<Tensor>> out = CarriedSum(5, /*verify_usage=*/true);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition) << out.status();
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("op (ipu_stateful_gradient_accumulate) must only be used by the weight "
                        "update of an optimizer, but '"));
  out = CarriedSum(4, /*verify_usage=*/false);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition) << out.status();
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("with 4 number of mini batches inside a loop with 10 iterations"));
}

TEST_F(StatefulGradientAccumulateTest, AnOptimizerAppliesTheSumOnceEveryN) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  Variable w = *get_variable(ipu, "w", {2}, DT_FLOAT, initializers::Zeros());
  train::GradientDescentOptimizer sgd(0.5);
  absl::Status built;
  auto r = ipu::ipu_compiler::compile(
      ipu, [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
        auto out = ipu::loops::repeat(
            s, 6, [&](const Scope& b, const std::vector<Output>&, const std::vector<Output>&) {
              // A gradient of ones every mini-batch.
              auto sum = ipu::ops::ipu_stateful_gradient_accumulate(
                  b, ops::OnesLike(b, w.value(b)), 3);
              if (!sum.ok()) {
                built = sum.status();
                return std::vector<Output>{};
              }
              auto step = sgd.apply_gradients(b, {{*sum, w}});
              if (!step.ok()) built = step.status();
              return std::vector<Output>{};
            });
        if (!out.ok()) built = out.status();
        return out.ok() ? *out : std::vector<Output>{};
      }, {});
  ASSERT_TRUE(built.ok()) << built;
  ASSERT_TRUE(r.ok()) << r.status();
  ClientSession session(root);
  absl::Status s = session.Run({}, {}, {global_variables_initializer(root)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  s = session.Run({w.value(root)}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // Two updates of 0.5 x 3.
  EXPECT_EQ(out[0].DebugString(), "[-3. -3.]");
}

}  // namespace
}  // namespace tensorflow_ipu
