// What the lowerings of the convolution and pooling ops share: their window
// geometry (checked, and as the simulator's libraries take it), and the
// im2col matrix of a convolution as a view (of strided views of the padded
// input, one per tap), so that a convolution is one poplin::matMul, planned
// over tiles like any matrix product. Views cost no compute set and no copy.
#ifndef TENSORFLOW_IPU_COMPILER_LOWERINGS_WINDOW_VIEWS_H_
#define TENSORFLOW_IPU_COMPILER_LOWERINGS_WINDOW_VIEWS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "poplar_sim/poputil/window_rows.h"
#include "poplar_sim/tensor.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/kernels/window_util.h"

namespace tensorflow_ipu {
namespace compiler {

// The op's window geometry (its attrs, and for the conv ops `input` and
// `filter`), with Unimplemented for what the lowerings do not handle: a
// data_format other than NHWC, dilations, grouped convolutions.
absl::StatusOr<window::Window2DDims> LoweredConvDims(const LoweringContext& ctx,
                                                     const TensorShape& input,
                                                     const TensorShape& filter);
absl::StatusOr<window::Window2DDims> LoweredPoolDims(const LoweringContext& ctx,
                                                     const TensorShape& input);

// The op's windows as the simulator's libraries take them (popnn's
// pooling, poplin's col2im).
poplar_sim::poputil::Window2D SimWindow(const window::Window2DDims& d);

// Lowers an op whose windows are all empty (no image, or no output
// position: only possible with empty tensors) to its output of zeros (an
// empty one, or an input gradient no window reaches), and returns true;
// returns false, doing nothing, for any other op.
absl::StatusOr<bool> LowerEmptyWindows(LoweringContext& ctx, const window::Window2DDims& d);

// The [N * out_rows * out_cols, filter_rows * filter_cols * C] patches of
// `x` (im2col.h's layout), zero in the padding.
absl::StatusOr<poplar_sim::Tensor> Im2ColView(const LoweringContext& ctx,
                                              const poplar_sim::Tensor& x,
                                              const window::Window2DDims& d, DataType dtype);

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_LOWERINGS_WINDOW_VIEWS_H_
