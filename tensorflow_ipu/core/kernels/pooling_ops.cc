// CPU kernels of MaxPool and MaxPoolGrad for NHWC data, as direct loops.
// Padding positions are not part of a window (SAME never leaves a window
// without an input position). MaxPoolGrad routes each gradient value to the
// first maximum of its window in row-major (row, then column) order, as
// TensorFlow's CPU kernel does, recomputing it from orig_input; overlapping
// windows add up in float for half inputs.
#include <algorithm>
#include <vector>

#include "Eigen/Core"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/float_compute.h"
#include "tensorflow_ipu/core/kernels/parallel_rows.h"
#include "tensorflow_ipu/core/kernels/window_util.h"

namespace tensorflow_ipu {
namespace {

using window::Window2DDims;

// The input rows [begin, end) of window `o` along one dimension.
struct Range {
  int64_t begin, end;
};
Range WindowRange(int64_t o, int64_t stride, const window::WindowDim& w, int64_t size,
                  int64_t input) {
  const int64_t start = o * stride - w.pad_before;
  return {std::max<int64_t>(start, 0), std::min(start + size, input)};
}

// The elements one window reads at most: ksize is an attr and may be far
// larger than the input (SAME padding), the part inside the input is not.
int64_t WindowCost(const Window2DDims& d) {
  return std::min(d.filter_rows, d.in_rows) * std::min(d.filter_cols, d.in_cols) * d.in_depth;
}

template <typename T>
void MaxPoolLoops(OpKernelContext* ctx, const Window2DDims& d, const T* input, T* out) {
  const int64_t oh = d.rows.output, ow = d.cols.output, depth = d.in_depth;
  // One task per output row of an image.
  ParallelRows(ctx, d.batch * oh, ow * WindowCost(d),
               [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t b = p / oh, oy = p % oh;
      const Range ys = WindowRange(oy, d.stride_rows, d.rows, d.filter_rows, d.in_rows);
      for (int64_t ox = 0; ox < ow; ++ox) {
        const Range xs = WindowRange(ox, d.stride_cols, d.cols, d.filter_cols, d.in_cols);
        T* o = out + (p * ow + ox) * depth;
        // Never empty (window_util's rule keeps each window on the input);
        // guarded so that a broken invariant cannot read out of bounds.
        if (ys.begin >= ys.end || xs.begin >= xs.end) {
          std::fill(o, o + depth, T(0));
          continue;
        }
        bool first = true;
        for (int64_t y = ys.begin; y < ys.end; ++y) {
          for (int64_t x = xs.begin; x < xs.end; ++x) {
            const T* in = input + ((b * d.in_rows + y) * d.in_cols + x) * depth;
            if (first) {
              std::copy(in, in + depth, o);
              first = false;
              continue;
            }
            for (int64_t c = 0; c < depth; ++c) {
              if (in[c] > o[c]) o[c] = in[c];
            }
          }
        }
      }
    }
  });
}

template <typename T>
void MaxPoolGradLoops(OpKernelContext* ctx, const Window2DDims& d, const T* input,
                      const T* grad, T* out) {
  const int64_t oh = d.rows.output, ow = d.cols.output, depth = d.in_depth;
  const int64_t image = d.in_rows * d.in_cols * depth;
  // One task per image: windows of one image overlap, of two never; each
  // image adds its gradients in one fixed order.
  ParallelRows(ctx, d.batch, oh * ow * WindowCost(d),
               [&](int64_t begin, int64_t end) {
    std::vector<int64_t> arg(depth);
    for (int64_t b = begin; b < end; ++b) {
      const T* in = input + b * image;
      T* o = out + b * image;
      std::fill(o, o + image, T(0));
      for (int64_t oy = 0; oy < oh; ++oy) {
        const Range ys = WindowRange(oy, d.stride_rows, d.rows, d.filter_rows, d.in_rows);
        for (int64_t ox = 0; ox < ow; ++ox) {
          const Range xs = WindowRange(ox, d.stride_cols, d.cols, d.filter_cols, d.in_cols);
          if (ys.begin >= ys.end || xs.begin >= xs.end) continue;  // never (see MaxPool)
          // arg[c]: the offset in the image of the first maximum.
          const int64_t first = (ys.begin * d.in_cols + xs.begin) * depth;
          for (int64_t c = 0; c < depth; ++c) arg[c] = first + c;
          for (int64_t y = ys.begin; y < ys.end; ++y) {
            for (int64_t x = xs.begin; x < xs.end; ++x) {
              const int64_t at = (y * d.in_cols + x) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                if (in[at + c] > in[arg[c]]) arg[c] = at + c;
              }
            }
          }
          const T* g = grad + ((b * oh + oy) * ow + ox) * depth;
          for (int64_t c = 0; c < depth; ++c) o[arg[c]] += g[c];
        }
      }
    }
  });
}

class PoolKernelBase : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(attrs_, window::ReadPoolAttrs(ctx->def()));
    return window::CheckCpuSupported(attrs_);
  }

 protected:
  absl::StatusOr<Window2DDims> Dims(OpKernelContext* ctx, const TensorShape& input) const {
    absl::StatusOr<Window2DDims> d = window::ComputePool2DDims(input, attrs_);
    if (!d.ok()) return ctx->InvalidArgument(d.status().message());
    return d;
  }

  window::WindowAttrs attrs_;
};

class MaxPoolKernel : public PoolKernelBase {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    ASSIGN_OR_RETURN(Window2DDims d, Dims(ctx, input.shape()));
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, d.output_shape));
    if (out->NumElements() == 0) return absl::OkStatus();
    // Comparisons and copies only: exact in every type, half included.
    return SwitchOnType(input.dtype(), [&](auto t) -> absl::Status {
      using T = decltype(t);
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, float> ||
                    std::is_same_v<T, double>) {
        MaxPoolLoops<T>(ctx, d, input.data<T>(), out->data<T>());
        return absl::OkStatus();
      }
      return absl::UnimplementedError(absl::StrCat(
          "no CPU kernel of MaxPool for type ", DataTypeString(input.dtype())));
    });
  }
};

class MaxPoolGradKernel : public PoolKernelBase {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& orig_output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    ASSIGN_OR_RETURN(Window2DDims d, Dims(ctx, input.shape()));
    for (const Tensor* t : {&orig_output, &grad}) {
      if (t->shape() != d.output_shape) {
        return ctx->InvalidArgument(absl::StrCat(
            "MaxPoolGrad: ", t == &grad ? "grad" : "orig_output", " has shape ",
            t->shape().DebugString(), ", but the max pool of orig_input ",
            input.shape().DebugString(), " has shape ", d.output_shape.DebugString()));
      }
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, input.shape()));
    if (out->NumElements() == 0) return absl::OkStatus();
    return ComputeFloating(ctx, {&input, &grad}, out,
                           [&](auto t, const std::vector<const Tensor*>& in, Tensor* o) {
                             using T = decltype(t);
                             MaxPoolGradLoops<T>(ctx, d, in[0]->data<T>(), in[1]->data<T>(),
                                                 o->data<T>());
                             return absl::OkStatus();
                           });
  }
};

REGISTER_KERNEL("MaxPool", kDeviceTypeCpu, MaxPoolKernel);
REGISTER_KERNEL("MaxPoolGrad", kDeviceTypeCpu, MaxPoolGradKernel);

}  // namespace
}  // namespace tensorflow_ipu
