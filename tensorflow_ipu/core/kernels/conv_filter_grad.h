// A float Conv2D's filter gradient, col^T * out_backprop, without the whole
// im2col matrix: a chunk of output rows at a time, its patches copied into
// a buffer that stays in the cache and multiplied into the sum by oneDNN
// (sgemm adding into the result). For the Keras tutorial's second
// convolution the whole col is 7,744 x 288 floats (8.9 MB), which the
// generic product first gathers and then reads back from memory.
//
// Both backends compute the gradient this way (the CPU kernel in
// conv_ops.cc, the simulator's host shortcut in compiler/lowerings/conv.cc),
// so they give the same bits.
//
//   if (!Conv2DFilterGradByChunks(d, input, dy, grad, run_two)) { ... generic ... }
#ifndef TENSORFLOW_IPU_CORE_KERNELS_CONV_FILTER_GRAD_H_
#define TENSORFLOW_IPU_CORE_KERNELS_CONV_FILTER_GRAD_H_

#include <functional>

#include "tensorflow_ipu/core/kernels/window_util.h"

namespace tensorflow_ipu {

// Runs part(0) and part(1), on two threads when it can, and returns when
// both are done.
using RunTwoParts = std::function<void(const std::function<void(int)>& part)>;

// filter_grad [filter_rows * filter_cols * in_depth, out_depth] = col^T *
// out_backprop for the NHWC `input` and out_backprop [batch * out_rows *
// out_cols, out_depth] of `d` (ungrouped: d.filter_depth == d.in_depth).
// The output rows are summed in two fixed halves, each by chunks in order,
// and the halves added at the end: the bits depend on the shape only, not
// on the threads. False, with filter_grad's contents undefined, when the
// window is not ungrouped or oneDNN refuses a product (the caller then
// computes the gradient itself).
bool Conv2DFilterGradByChunks(const window::Window2DDims& d, const float* input,
                              const float* out_backprop, float* filter_grad,
                              const RunTwoParts& run_two);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_CONV_FILTER_GRAD_H_
