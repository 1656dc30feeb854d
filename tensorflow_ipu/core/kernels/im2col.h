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

// The rows of col are built and consumed a range of output rows at a
// time (output row r is row r % out_rows of image r / out_rows), so that a
// large batch or a large image never needs the whole col at once.

// Fills col with the patches of output rows [row_begin, row_end) of the
// batch `input` (NHWC, d's sizes): (row_end - row_begin) * out_cols rows.
// On the session's threads when large. Defined for float and double.
template <typename T>
void Im2Col(OpKernelContext* ctx, const window::Window2DDims& d, const T* input,
            int64_t row_begin, int64_t row_end, T* col);

// The same on the calling thread alone.
template <typename T>
void Im2ColRows(const window::Window2DDims& d, const T* input, int64_t row_begin,
                int64_t row_end, T* col);

// The adjoint, accumulating: adds every entry of col (the patches of
// output rows [row_begin, row_end)) into input_grad (the batch's, which
// the caller zeroes before the first range) at the input position it was
// copied from; padding entries are dropped. Images are split over threads,
// each summed in one fixed order, so the result does not depend on the
// number of threads. Defined for float and double.
template <typename T>
void Col2Im(OpKernelContext* ctx, const window::Window2DDims& d, const T* col,
            int64_t row_begin, int64_t row_end, T* input_grad);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_IM2COL_H_
