// Tile: the input repeated multiples[d] times along each dim d.
// Elements move as raw bytes, so one Eigen broadcast per element size serves
// every dtype.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/shape_ops_util.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

constexpr int64_t kInlineElements = 1 << 15;

template <typename T, int N>
void Broadcast(OpKernelContext* ctx, const Tensor& in,
               const std::vector<int64_t>& mult, Tensor* out) {
  Eigen::array<Eigen::DenseIndex, N> m;
  for (int i = 0; i < N; ++i) m[i] = mult[i];
  auto x = in.tensor<T, N>();
  auto y = out->tensor<T, N>();
  if (out->NumElements() < kInlineElements) {
    y = x.broadcast(m);
  } else {
    EvaluateOnPool(ctx->eigen_device(), y, x.broadcast(m));
  }
}

// Any rank: walks the output in order; input index = output index mod dim.
template <typename T>
void GenericTile(const Tensor& in, Tensor* out) {
  const int rank = in.dims();
  std::vector<int64_t> in_stride(rank);
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_stride[d] = acc;
    acc *= in.dim_size(d);
  }
  const T* x = in.data<T>();
  T* y = out->data<T>();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < out->NumElements(); ++k) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += (idx[d] % in.dim_size(d)) * in_stride[d];
    y[k] = x[offset];
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out->dim_size(d)) break;
      idx[d] = 0;
    }
  }
}

template <typename T>
void TileAs(OpKernelContext* ctx, const Tensor& in,
            const std::vector<int64_t>& mult, Tensor* out) {
  switch (in.dims()) {
    case 1: return Broadcast<T, 1>(ctx, in, mult, out);
    case 2: return Broadcast<T, 2>(ctx, in, mult, out);
    case 3: return Broadcast<T, 3>(ctx, in, mult, out);
    case 4: return Broadcast<T, 4>(ctx, in, mult, out);
    default: return GenericTile<T>(in, out);
  }
}

class TileOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& mult_t = ctx->input(1);
    if (mult_t.dims() != 1 || mult_t.NumElements() != input.dims()) {
      return ctx->InvalidArgument(absl::StrCat(
          "Expected multiples argument to be a vector of length ",
          input.dims(), " but got a tensor of shape ",
          mult_t.shape().DebugString()));
    }
    absl::StatusOr<std::vector<int64_t>> mult =
        shape_util::IndexVector(mult_t, "multiples");
    if (!mult.ok()) return ctx->InvalidArgument(mult.status().message());
    std::vector<int64_t> out_dims;
    bool all_ones = true;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t m = (*mult)[d];
      if (m < 0) {
        return ctx->InvalidArgument(absl::StrCat(
            "Expected multiples[", d, "] >= 0, but got ", m));
      }
      const int64_t v = input.dim_size(d);
      if (v > 0 && m > TensorShape::kMaxElements / v) {
        return ctx->InvalidArgument(absl::StrCat(
            "Tiling dimension ", d, " of size ", v, " ", m,
            " times gives more elements than a tensor can hold"));
      }
      out_dims.push_back(v * m);
      all_ones &= m == 1;
    }
    if (all_ones) {
      ctx->set_output(0, input);
      return absl::OkStatus();
    }
    absl::StatusOr<TensorShape> shape = TensorShape::FromDims(out_dims);
    if (!shape.ok()) return ctx->InvalidArgument(shape.status().message());
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, *shape));
    if (out->NumElements() == 0) return absl::OkStatus();
    switch (DataTypeSize(input.dtype())) {
      case 1: TileAs<uint8_t>(ctx, input, *mult, out); break;
      case 2: TileAs<uint16_t>(ctx, input, *mult, out); break;
      case 4: TileAs<uint32_t>(ctx, input, *mult, out); break;
      case 8: TileAs<uint64_t>(ctx, input, *mult, out); break;
      default:
        return ctx->InvalidArgument(absl::StrCat(
            "Tile does not support ", DataTypeString(input.dtype())));
    }
    return absl::OkStatus();
  }
};

REGISTER_KERNEL("Tile", kDeviceTypeCpu, TileOp);

}  // namespace
}  // namespace tensorflow_ipu
