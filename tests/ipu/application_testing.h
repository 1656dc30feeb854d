// Small application executables for the embedded runtime's tests.
#ifndef TESTS_IPU_APPLICATION_TESTING_H_
#define TESTS_IPU_APPLICATION_TESTING_H_

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/application_compile_op.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"

namespace tensorflow_ipu {
namespace testing {

inline std::string TempPath(const std::string& name) {
  return std::string(::testing::TempDir()) + "/" + name;
}

// An application: a loop of `iterations` over elements x: float[3], sending
// x * 2 + offset to the outfeed, where offset is a start input.
inline std::string CompileDoubler(int iterations, const std::string& name) {
  absl::StatusOr<data::Dataset> shapes =
      data::Dataset::FromTensors({Tensor::Vector<float>({0, 0, 0})});
  EXPECT_TRUE(shapes.ok()) << shapes.status();
  absl::StatusOr<ipu::IPUInfeedQueue> infeed = ipu::IPUInfeedQueue::Create(*shapes, name + "_in");
  EXPECT_TRUE(infeed.ok()) << infeed.status();
  ipu::IPUOutfeedQueue outfeed(name + "_out");
  auto program = [&](const Scope& s) -> ipu::ComputationOutputs {
    Output offset = ops::Placeholder(s.WithOpName("offset"), DT_FLOAT,
                                     ops::Placeholder::Shape(TensorShape({})));
    Scope ipu = ipu::scopes::ipu_scope(s, "/device:IPU:0");
    auto loop = ipu::loops::repeat(
        ipu, iterations,
        [&](const Scope& b, const std::vector<Output>&,
            const std::vector<Output>& x) -> ipu::ComputationOutputs {
          return {outfeed.enqueue(b, {ops::Add(b, ops::Mul(b, x[0], 2.f), offset)})};
        },
        {}, &*infeed);
    if (!loop.ok()) {
      s.UpdateStatus(loop.status());
      return std::vector<Output>{};
    }
    return {(*loop)[0].op()};
  };
  const std::string path = TempPath(name + ".poplar_exec");
  absl::StatusOr<std::string> written =
      ipu::application_compile_op::experimental_application_compile_op(program, path);
  EXPECT_TRUE(written.ok()) << written.status();
  return path;
}

}  // namespace testing
}  // namespace tensorflow_ipu

#endif  // TESTS_IPU_APPLICATION_TESTING_H_
