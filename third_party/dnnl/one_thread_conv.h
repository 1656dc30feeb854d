// oneDNN's float 2-D convolution (forward) on the calling thread alone, over TensorFlow's layouts:
// input and output NHWC, filter HWIO. The simulator's convolution products use it as their host
// shortcut for Conv2D (compiler/lowerings/conv.cc): oneDNN's direct kernels read the
// input's windows in place, where an im2col product first copies every
// window (9x the input for a 3x3 filter) and then multiplies.
//
//   dnnl_one_thread::ConvShape s{...};
//   if (!dnnl_one_thread::ConvForward(s, input, filter, output)) { ... im2col ... }
//
// Each output element is summed over its window in an order that depends on
// the shape only, never on a thread count; a call computes nothing and
// returns false when oneDNN refuses the shape (the caller then computes the
// convolution itself).
#ifndef THIRD_PARTY_DNNL_ONE_THREAD_CONV_H_
#define THIRD_PARTY_DNNL_ONE_THREAD_CONV_H_

#include <cstdint>

namespace dnnl_one_thread {

struct ConvShape {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  // Zeros before the first input row (column); the padding after is what
  // the output size implies.
  int64_t pad_top = 0, pad_left = 0;
};

// output [batch, out_rows, out_cols, out_depth] = input * filter.
bool ConvForward(const ConvShape& s, const float* input, const float* filter, float* output);

}  // namespace dnnl_one_thread

#endif  // THIRD_PARTY_DNNL_ONE_THREAD_CONV_H_
