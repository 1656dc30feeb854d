// The headers a typical IPU program includes keep Eigen out of its compile
// (docs/architecture.md, "Headers and compile time"): about 140,000 lines a
// file that most programs never use. This file includes them and no Eigen;
// if one of them starts including Eigen again, it stops compiling here. Its
// test reads results the way such a program does, without Eigen's views.
#include <vector>

#include "gtest/gtest.h"
#include "poplar_sim/type.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/core/types.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

#ifdef EIGEN_CORE_H  // also defined by Eigen's Tensor module, which includes Eigen/Core
#error "a header of a typical program includes Eigen; see docs/architecture.md"
#endif

namespace tensorflow_ipu {
namespace {

class ProgramHeadersTest : public testing::IpuTest {};

TEST_F(ProgramHeadersTest, AProgramRunsOnTheIpuAndReadsItsResultsWithoutEigen) {
  Configure(1);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({3}));
  auto body = [](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{ops::Mul(s, ops::Add(s, in[0], 1.f), 2.f)};
  };
  auto res = ipu::ipu_compiler::compile(ipu::scopes::ipu_scope(root, "/device:IPU:0"), body, {x});
  ASSERT_TRUE(res.ok()) << res.status();

  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, Tensor::Vector<float>({1.f, -1.f, 0.5f})}}, {(*res)[0]}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DT_FLOAT);
  EXPECT_EQ(out[0].shape(), TensorShape({3}));
  EXPECT_EQ(std::vector<float>(out[0].values<float>().begin(), out[0].values<float>().end()),
            (std::vector<float>{4.f, 0.f, 3.f}));
  // The type tables name half without its definition.
  EXPECT_EQ(DataTypeToEnum<half>::value, DT_HALF);
  EXPECT_EQ(poplar_sim::TypeOf<Eigen::half>::value, poplar_sim::HALF);
}

}  // namespace
}  // namespace tensorflow_ipu
