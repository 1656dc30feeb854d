// CPU kernels of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter for
// NHWC data and dilations of 1, as im2col (im2col.h) and matrix products
// (gemm.h). With col [rows = batch * out_rows * out_cols, patch] the input's
// patches and the filter viewed as F [patch, out_depth]:
//   Conv2D:               output [rows, out_depth] = col * F
//   Conv2DBackpropInput:  input_grad = col2im(out_backprop * F^T)
//   Conv2DBackpropFilter: filter_grad = col^T * out_backprop
// A 1x1 filter with strides of 1 needs no col: the input is its own. A
// float, ungrouped Conv2D goes to oneDNN's direct convolution instead
// (DnnlForward), as on the simulated IPU; a float, ungrouped filter
// gradient is summed by cache-sized chunks of col (conv_filter_grad.h),
// also as on the simulated IPU.
// col is built a range of output rows at a time to bound its memory; the
// ranges depend on the shapes only, so results are bit-identical for any
// number of threads. Half computes in float (float_compute.h).
#include <algorithm>
#include <atomic>
#include <functional>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/conv_filter_grad.h"
#include "tensorflow_ipu/core/kernels/dnnl_conv_shape.h"
#include "tensorflow_ipu/core/kernels/float_compute.h"
#include "tensorflow_ipu/core/kernels/gemm.h"
#include "tensorflow_ipu/core/kernels/im2col.h"
#include "tensorflow_ipu/core/kernels/window_util.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "third_party/dnnl/one_thread_conv.h"

namespace tensorflow_ipu {
namespace {

using window::Window2DDims;

// The largest col built at once, in elements (32 MB of floats); col is
// built a range of output rows at a time, at least one row (out_cols
// patches) even when that is larger.
constexpr int64_t kMaxColElements = 8 * 1024 * 1024;

bool IsPointwise(const Window2DDims& d) {
  return d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 &&
         d.stride_cols == 1;
}

// Output rows (of all images: batch * out_rows) per chunk of col.
int64_t RowsPerChunk(const Window2DDims& d) {
  const int64_t per_row = std::max<int64_t>(1, d.cols.output * PatchSize(d));
  return std::min(d.batch * d.rows.output, std::max<int64_t>(1, kMaxColElements / per_row));
}

// A buffer for one chunk's col.
template <typename T>
absl::StatusOr<Tensor> ColBuffer(const Window2DDims& d) {
  return Tensor::Create(DataTypeToEnum<T>::value,
                        TensorShape({RowsPerChunk(d) * d.cols.output, PatchSize(d)}));
}

// A float, ungrouped Conv2D by oneDNN's direct kernels, which read the
// input's windows in place (no im2col copy), split by images over the pool
// (an image's output has the same bits however the batch is split). The
// simulator's IPU lowering computes Conv2D the same way. False, having
// written nothing useful, when oneDNN refuses the shape.
bool DnnlForward(const Eigen::ThreadPoolDevice& device, const Window2DDims& d,
                 const float* input, const float* filter, float* out) {
  if (d.filter_depth != d.in_depth) return false;
  const dnnl_one_thread::ConvShape shape = DnnlConvShape(d);
  const int64_t in_image = d.in_rows * d.in_cols * d.in_depth;
  const int64_t out_image = d.rows.output * d.cols.output * d.out_depth;
  std::atomic<bool> ok{true};
  RunRanges(device, d.batch, /*grain=*/1, device.numThreads(), [&](int64_t first, int64_t end) {
    dnnl_one_thread::ConvShape part = shape;
    part.batch = end - first;
    if (!dnnl_one_thread::ConvForward(part, input + first * in_image, filter,
                                      out + first * out_image)) {
      ok = false;
    }
  });
  return ok.load();
}

template <typename T>
absl::Status Conv2DForward(OpKernelContext* ctx, const Window2DDims& d, const T* input,
                           const T* filter, T* out) {
  const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
  if constexpr (std::is_same_v<T, float>) {
    if (DnnlForward(device, d, input, filter, out)) return absl::OkStatus();
  }
  const int64_t patch = PatchSize(d), ow = d.cols.output, oc = d.out_depth;
  const int64_t out_rows = d.batch * d.rows.output;
  if (IsPointwise(d)) {
    Gemm<T>(device, input, out_rows * ow, patch, false, filter, patch, oc, false, out);
    return absl::OkStatus();
  }
  const int64_t chunk = RowsPerChunk(d);
  ASSIGN_OR_RETURN(Tensor col, ColBuffer<T>(d));
  for (int64_t r = 0; r < out_rows; r += chunk) {
    const int64_t n = std::min(chunk, out_rows - r);
    Im2Col<T>(ctx, d, input, r, r + n, col.data<T>());
    Gemm<T>(device, col.data<T>(), n * ow, patch, false, filter, patch, oc, false,
            out + r * ow * oc);
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status Conv2DInputGrad(OpKernelContext* ctx, const Window2DDims& d, const T* filter,
                             const T* out_backprop, T* input_grad) {
  const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
  const int64_t patch = PatchSize(d), ow = d.cols.output, oc = d.out_depth;
  const int64_t out_rows = d.batch * d.rows.output;
  if (IsPointwise(d)) {
    Gemm<T>(device, out_backprop, out_rows * ow, oc, false, filter, patch, oc, true,
            input_grad);
    return absl::OkStatus();
  }
  std::fill(input_grad, input_grad + d.batch * d.in_rows * d.in_cols * d.in_depth, T(0));
  const int64_t chunk = RowsPerChunk(d);
  ASSIGN_OR_RETURN(Tensor col, ColBuffer<T>(d));
  for (int64_t r = 0; r < out_rows; r += chunk) {
    const int64_t n = std::min(chunk, out_rows - r);
    Gemm<T>(device, out_backprop + r * ow * oc, n * ow, oc, false, filter, patch, oc, true,
            col.data<T>());
    Col2Im<T>(ctx, d, col.data<T>(), r, r + n, input_grad);
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status Conv2DFilterGrad(OpKernelContext* ctx, const Window2DDims& d, const T* input,
                              const T* out_backprop, T* filter_grad) {
  const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
  const int64_t patch = PatchSize(d), ow = d.cols.output, oc = d.out_depth;
  const int64_t out_rows = d.batch * d.rows.output;
  if (IsPointwise(d)) {
    Gemm<T>(device, input, out_rows * ow, patch, true, out_backprop, out_rows * ow, oc, false,
            filter_grad);
    return absl::OkStatus();
  }
  if constexpr (std::is_same_v<T, float>) {
    // By cache-sized chunks on oneDNN, as the simulator's host computes it.
    auto run_two = [&device](const std::function<void(int)>& part) {
      RunShards(device, 2, [&part](int i) { part(i); });
    };
    if (Conv2DFilterGradByChunks(d, input, out_backprop, filter_grad, run_two)) {
      return absl::OkStatus();
    }
  }
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> grad(filter_grad, patch * oc);
  const int64_t chunk = RowsPerChunk(d);
  ASSIGN_OR_RETURN(Tensor col, ColBuffer<T>(d));
  // Chunks after the first add their product to the sum of those before.
  std::vector<T> partial(out_rows > chunk ? patch * oc : 0);
  for (int64_t r = 0; r < out_rows; r += chunk) {
    const int64_t n = std::min(chunk, out_rows - r);
    Im2Col<T>(ctx, d, input, r, r + n, col.data<T>());
    T* dst = r == 0 ? filter_grad : partial.data();
    Gemm<T>(device, col.data<T>(), n * ow, patch, true, out_backprop + r * ow * oc, n * ow,
            oc, false, dst);
    if (r > 0) {
      grad += Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(partial.data(),
                                                                    partial.size());
    }
  }
  return absl::OkStatus();
}

// Reads and checks the attrs once; NCHW and dilations are Unimplemented
// when the kernel is created, with the attr's value.
class ConvKernelBase : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(attrs_, window::ReadConvAttrs(ctx->def()));
    return window::CheckCpuSupported(attrs_);
  }

 public:
  // The dimensions of this node's convolution, with the node named in
  // errors; grouped convolutions are Unimplemented.
  absl::StatusOr<Window2DDims> Dims(OpKernelContext* ctx, const TensorShape& input,
                                    const TensorShape& filter,
                                    const TensorShape* out_backprop) const {
    absl::StatusOr<Window2DDims> d =
        out_backprop == nullptr
            ? window::ComputeConv2DDims(input, filter, attrs_)
            : window::ComputeConv2DBackpropDims(input, filter, *out_backprop, attrs_);
    if (!d.ok()) return ctx->InvalidArgument(d.status().message());
    if (d->in_depth != d->filter_depth) {
      return absl::UnimplementedError(absl::StrCat(
          attrs_.op, ": grouped convolutions are not implemented on the CPU: input ",
          input.DebugString(), " has depth ", d->in_depth, " but filter ",
          filter.DebugString(), " has input depth ", d->filter_depth,
          "; they must be equal [node '", ctx->node().name(), "']"));
    }
    return d;
  }

 protected:
  window::WindowAttrs attrs_;
};

class Conv2DKernel : public ConvKernelBase {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ASSIGN_OR_RETURN(Window2DDims d, Dims(ctx, input.shape(), filter.shape(), nullptr));
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, d.output_shape));
    if (out->NumElements() == 0) return absl::OkStatus();
    return ComputeFloating(ctx, {&input, &filter}, out,
                           [&](auto t, const std::vector<const Tensor*>& in, Tensor* o) {
                             using T = decltype(t);
                             return Conv2DForward<T>(ctx, d, in[0]->data<T>(),
                                                     in[1]->data<T>(), o->data<T>());
                           });
  }
};

// Conv2DBackpropInput and Conv2DBackpropFilter: the gradient of one of
// Conv2D's operands, whose shape input `sizes_index` gives (0: the input's,
// 1: the filter's), from the other operand and out_backprop (input 2);
// zeros when out_backprop is empty. `grad(t, d, other, out_backprop, out)`
// computes it for element type decltype(t).
template <typename GradFn>
absl::Status ComputeConvGradient(OpKernelContext* ctx, const ConvKernelBase& kernel,
                                 const window::WindowAttrs& attrs, int sizes_index,
                                 const char* sizes_name, GradFn grad) {
  const Tensor& other = ctx->input(1 - sizes_index);
  const Tensor& out_backprop = ctx->input(2);
  absl::StatusOr<TensorShape> shape =
      window::ShapeFromSizes(ctx->input(sizes_index), attrs.op, sizes_name);
  if (!shape.ok()) return ctx->InvalidArgument(shape.status().message());
  const TensorShape backprop_shape = out_backprop.shape();
  const TensorShape& input = sizes_index == 0 ? *shape : other.shape();
  const TensorShape& filter = sizes_index == 0 ? other.shape() : *shape;
  ASSIGN_OR_RETURN(Window2DDims d, kernel.Dims(ctx, input, filter, &backprop_shape));
  ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, *shape));
  if (out->NumElements() == 0) return absl::OkStatus();
  return ComputeFloating(ctx, {&other, &out_backprop}, out,
                         [&](auto t, const std::vector<const Tensor*>& in, Tensor* o) {
                           using T = decltype(t);
                           if (out_backprop.NumElements() == 0) {
                             std::fill(o->data<T>(), o->data<T>() + o->NumElements(), T(0));
                             return absl::OkStatus();
                           }
                           return grad(t, d, in[0]->data<T>(), in[1]->data<T>(), o->data<T>());
                         });
}

class Conv2DBackpropInputKernel : public ConvKernelBase {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    return ComputeConvGradient(
        ctx, *this, attrs_, /*sizes_index=*/0, "input_sizes",
        [ctx](auto t, const Window2DDims& d, const auto* filter, const auto* dy, auto* dx) {
          return Conv2DInputGrad<decltype(t)>(ctx, d, filter, dy, dx);
        });
  }
};

class Conv2DBackpropFilterKernel : public ConvKernelBase {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    return ComputeConvGradient(
        ctx, *this, attrs_, /*sizes_index=*/1, "filter_sizes",
        [ctx](auto t, const Window2DDims& d, const auto* input, const auto* dy, auto* df) {
          return Conv2DFilterGrad<decltype(t)>(ctx, d, input, dy, df);
        });
  }
};

REGISTER_KERNEL("Conv2D", kDeviceTypeCpu, Conv2DKernel);
REGISTER_KERNEL("Conv2DBackpropInput", kDeviceTypeCpu, Conv2DBackpropInputKernel);
REGISTER_KERNEL("Conv2DBackpropFilter", kDeviceTypeCpu, Conv2DBackpropFilterKernel);

}  // namespace
}  // namespace tensorflow_ipu
