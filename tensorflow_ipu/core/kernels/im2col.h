// im2col and its adjoint col2im: the patches of a 2-D convolution laid out
// as the rows of a matrix, so that a convolution is one matrix product
// (gemm.h) and its gradients are two.
//
// For NHWC images and a window of d.filter_rows x d.filter_cols moved by
// the strides, with SAME or VALID padding (d from window_util.h):
//
//   col[(b * out_rows + oy) * out_cols + ox,
//       (ky * filter_cols + kx) * in_depth + c]
//     = input[b, oy * stride_rows - pad_top + ky,
//                ox * stride_cols - pad_left + kx, c]   (0 in the padding)
//
// which is the order of a [filter_rows, filter_cols, in_depth, out_depth]
// filter flattened to [filter_rows * filter_cols * in_depth, out_depth]:
//   output [batch * out_rows * out_cols, out_depth] = col * filter.
#ifndef TENSORFLOW_IPU_CORE_KERNELS_IM2COL_H_
#define TENSORFLOW_IPU_CORE_KERNELS_IM2COL_H_

#include <cstdint>

#include "tensorflow_ipu/core/kernels/window_util.h"
#include "tensorflow_ipu/core/op_kernel.h"

namespace tensorflow_ipu {

// The length of a row of col: filter_rows * filter_cols * in_depth.
int64_t PatchSize(const window::Window2DDims& d);

// Fills col for `images` images starting at `input` (NHWC, d's sizes), on
// the session's threads when large. Defined for float and double.
template <typename T>
void Im2Col(OpKernelContext* ctx, const window::Window2DDims& d, const T* input,
            int64_t images, T* col);

// The adjoint: input_grad (images of d's input size, overwritten) = the sum,
// over every col entry, of that entry at the input position it was copied
// from (padding entries are dropped). Images are independent and each is
// summed in one fixed order, so the result does not depend on the number
// of threads. Defined for float and double.
template <typename T>
void Col2Im(OpKernelContext* ctx, const window::Window2DDims& d, const T* col,
            int64_t images, T* input_grad);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_IM2COL_H_
