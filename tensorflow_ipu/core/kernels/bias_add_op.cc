// CPU kernels of BiasAdd (bias added along the channel dimension: the last
// one for NHWC, dimension 1 for NCHW) and BiasAddGrad (the sum of the
// gradient over every dimension but the channel one; half sums in float).
#include <vector>

#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"

namespace tensorflow_ipu {
namespace {

using Eigen::Index;

template <typename T, int N>
using Map = Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, Index>,
                             Eigen::Aligned>;

// The [outer, channels, inner] view of a tensor in `format`.
struct ChannelView {
  int64_t outer = 1, channels = 1, inner = 1;
};

absl::StatusOr<bool> ReadNchw(OpKernelConstruction* ctx) {
  ASSIGN_OR_RETURN(std::string format, ctx->GetAttr<std::string>("data_format"));
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid data_format '", format, "'; expected 'NHWC' or 'NCHW'"));
  }
  return format == "NCHW";
}

absl::StatusOr<ChannelView> View(OpKernelContext* ctx, const Tensor& t,
                                 bool nchw, absl::string_view what) {
  if (t.dims() < 2) {
    return ctx->InvalidArgument(absl::StrCat(
        what, " must have at least 2 dimensions, but has shape ",
        t.shape().DebugString()));
  }
  const int c = nchw ? 1 : t.dims() - 1;
  ChannelView v;
  for (int i = 0; i < c; ++i) v.outer *= t.dim_size(i);
  v.channels = t.dim_size(c);
  for (int i = c + 1; i < t.dims(); ++i) v.inner *= t.dim_size(i);
  return v;
}

// Row by row: each row of the [outer, channels] view (NHWC) gets the bias
// vector; each row of the [outer * channels, inner] view (NCHW) one bias value.
template <typename T>
void AddBias(OpKernelContext* ctx, const Tensor& value, const Tensor& bias,
             const ChannelView& v, Tensor* out) {
  const T* in = value.data<T>();
  const T* b = bias.data<T>();
  T* o = out->data<T>();
  if (v.inner == 1) {
    const int64_t c = v.channels;
    cwise::Vec<T> bv(const_cast<T*>(b), c);
    cwise::ParallelFor(ctx, v.outer, c, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        cwise::Vec<T>(o + i * c, c) =
            wrapping::Plus(cwise::Vec<T>(const_cast<T*>(in) + i * c, c), bv);
      }
    });
  } else {
    const int64_t n = v.inner;
    cwise::ParallelFor(ctx, v.outer * v.channels, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        cwise::Vec<T> row(const_cast<T*>(in) + i * n, n);
        cwise::Vec<T>(o + i * n, n) = wrapping::Plus(row, row.constant(b[i % v.channels]));
      }
    });
  }
}

class BiasAddKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(nchw_, ReadNchw(ctx));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    ASSIGN_OR_RETURN(ChannelView v, View(ctx, value, nchw_, "Input 'value'"));
    if (bias.dims() != 1) {
      return ctx->InvalidArgument(absl::StrCat(
          "Biases must be 1D, but have shape ", bias.shape().DebugString()));
    }
    if (bias.dim_size(0) != v.channels) {
      return ctx->InvalidArgument(absl::StrCat(
          "Must provide as many biases as the channel dimension of the input "
          "tensor: ", bias.shape().DebugString(), " vs. ",
          value.shape().DebugString()));
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, value.shape()));
    if (value.NumElements() == 0) return absl::OkStatus();
    return SwitchOnType(value.dtype(), [&](auto t) {
      using T = decltype(t);
      if constexpr (!std::is_same_v<T, bool>) AddBias<T>(ctx, value, bias, v, out);
      return absl::OkStatus();
    });
  }

 private:
  bool nchw_ = false;
};

// Sums in Acc (float for half) and rounds once.
template <typename T, typename Acc>
void SumToChannels(OpKernelContext* ctx, const Tensor& grad,
                   const ChannelView& v, Tensor* out) {
  if (v.inner == 1 && grad.NumElements() < cwise::kParallelThreshold) {
    // Small NHWC gradients: accumulate rows (faster than Eigen's reducer).
    std::vector<Acc> acc(v.channels, Acc(0));
    cwise::Vec<Acc> av(acc.data(), v.channels);
    for (int64_t i = 0; i < v.outer; ++i) {
      av = wrapping::Plus(av, cwise::Vec<T>(grad.data<T>() + i * v.channels, v.channels)
                                  .template cast<Acc>());
    }
    cwise::FlatVec<T>(*out) = av.template cast<T>();
    return;
  }
  Map<T, 1> o(out->data<T>(), v.channels);
  Map<T, 3> g(grad.data<T>(), v.outer, v.channels, v.inner);
  const Eigen::array<Index, 2> dims{0, 2};
  const auto sum = [&] {
    if constexpr (wrapping::kWraps<Acc>) {
      return g.template cast<Acc>().reduce(dims, wrapping::SumReducer<Acc>()).template cast<T>();
    } else {
      return g.template cast<Acc>().sum(dims).template cast<T>();
    }
  }();
  if (grad.NumElements() < cwise::kParallelThreshold) {
    o = sum;
  } else {
    EvaluateOnPool(ctx->eigen_device(), o, sum);
  }
}

class BiasAddGradKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(nchw_, ReadNchw(ctx));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    ASSIGN_OR_RETURN(ChannelView v, View(ctx, grad, nchw_, "Input 'out_backprop'"));
    ASSIGN_OR_RETURN(Tensor * out,
                     ctx->allocate_output(0, TensorShape({v.channels})));
    if (v.channels == 0) return absl::OkStatus();
    return SwitchOnType(grad.dtype(), [&](auto t) {
      using T = decltype(t);
      if (grad.NumElements() == 0) {
        cwise::FlatVec<T>(*out).setZero();
      } else if constexpr (std::is_same_v<T, half>) {
        SumToChannels<half, float>(ctx, grad, v, out);
      } else if constexpr (!std::is_same_v<T, bool>) {
        SumToChannels<T, T>(ctx, grad, v, out);
      }
      return absl::OkStatus();
    });
  }

 private:
  bool nchw_ = false;
};

REGISTER_KERNEL("BiasAdd", kDeviceTypeCpu, BiasAddKernel);
REGISTER_KERNEL("BiasAddGrad", kDeviceTypeCpu, BiasAddGradKernel);

}  // namespace
}  // namespace tensorflow_ipu
