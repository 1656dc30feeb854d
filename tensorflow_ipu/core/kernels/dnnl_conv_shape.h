// A Conv2D's window geometry as oneDNN's convolutions take it
// (third_party/dnnl/one_thread_conv.h). Shared by the CPU kernel
// (conv_ops.cc) and the simulator's host execution of the IPU lowering
// (compiler/lowerings/conv.cc), so that both compute a forward convolution
// the same way.
#ifndef TENSORFLOW_IPU_CORE_KERNELS_DNNL_CONV_SHAPE_H_
#define TENSORFLOW_IPU_CORE_KERNELS_DNNL_CONV_SHAPE_H_

#include "tensorflow_ipu/core/kernels/window_util.h"
#include "third_party/dnnl/one_thread_conv.h"

namespace tensorflow_ipu {

// `d` must be ungrouped (filter_depth == in_depth) with dilations of 1:
// oneDNN's shape has neither.
dnnl_one_thread::ConvShape DnnlConvShape(const window::Window2DDims& d);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_DNNL_CONV_SHAPE_H_
