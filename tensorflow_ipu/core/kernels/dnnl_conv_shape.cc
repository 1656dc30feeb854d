#include "tensorflow_ipu/core/kernels/dnnl_conv_shape.h"

namespace tensorflow_ipu {

dnnl_one_thread::ConvShape DnnlConvShape(const window::Window2DDims& d) {
  dnnl_one_thread::ConvShape s;
  s.batch = d.batch;
  s.in_rows = d.in_rows;
  s.in_cols = d.in_cols;
  s.in_depth = d.in_depth;
  s.filter_rows = d.filter_rows;
  s.filter_cols = d.filter_cols;
  s.out_depth = d.out_depth;
  s.out_rows = d.rows.output;
  s.out_cols = d.cols.output;
  s.stride_rows = d.stride_rows;
  s.stride_cols = d.stride_cols;
  s.pad_top = d.rows.pad_before;
  s.pad_left = d.cols.pad_before;
  return s;
}

}  // namespace tensorflow_ipu
