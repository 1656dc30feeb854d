// Transpose: output dim i is input dim perm[i].
//
// Size-1 dims are dropped and runs of input dims that stay adjacent and in
// order are merged first, so most transposes reduce to rank 2 or 3 (or to a
// plain reshape sharing the buffer). Elements move as raw bytes: one Eigen
// shuffle per element size serves every dtype.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/shape_ops_util.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// Below this many elements the shuffle runs inline, not on the thread pool.
constexpr int64_t kInlineElements = 1 << 15;

template <typename T, int N>
void Shuffle(OpKernelContext* ctx, const T* in, const std::vector<int64_t>& dims,
             const std::vector<int64_t>& perm, int64_t n, T* out) {
  Eigen::array<Eigen::DenseIndex, N> in_dims, out_dims, p;
  for (int i = 0; i < N; ++i) {
    in_dims[i] = dims[i];
    p[i] = perm[i];
    out_dims[i] = dims[perm[i]];
  }
  Eigen::TensorMap<Eigen::Tensor<const T, N, Eigen::RowMajor, Eigen::DenseIndex>>
      x(in, in_dims);
  Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, Eigen::DenseIndex>> y(
      out, out_dims);
  if (n < kInlineElements) {
    y = x.shuffle(p);
  } else {
    EvaluateOnPool(ctx->eigen_device(), y, x.shuffle(p));
  }
}

// Any rank: walks the output in order with an odometer.
template <typename T>
void GenericTranspose(const T* in, const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& perm, int64_t n, T* out) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> in_stride(rank), stride(rank), out_dims(rank);
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_stride[d] = acc;
    acc *= dims[d];
  }
  for (int i = 0; i < rank; ++i) {
    stride[i] = in_stride[perm[i]];
    out_dims[i] = dims[perm[i]];
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = in[offset];
    for (int d = rank - 1; d >= 0; --d) {
      offset += stride[d];
      if (++idx[d] < out_dims[d]) break;
      offset -= out_dims[d] * stride[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void TransposeAs(OpKernelContext* ctx, const Tensor& in,
                 const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& perm, Tensor* out) {
  const T* x = in.data<T>();
  T* y = out->data<T>();
  const int64_t n = in.NumElements();
  switch (dims.size()) {
    case 2: return Shuffle<T, 2>(ctx, x, dims, perm, n, y);
    case 3: return Shuffle<T, 3>(ctx, x, dims, perm, n, y);
    case 4: return Shuffle<T, 4>(ctx, x, dims, perm, n, y);
    case 5: return Shuffle<T, 5>(ctx, x, dims, perm, n, y);
    default: return GenericTranspose<T>(x, dims, perm, n, y);
  }
}

// Drops size-1 dims and merges input dims that stay adjacent and in order.
void Coalesce(const TensorShape& shape, const std::vector<int64_t>& perm,
              std::vector<int64_t>* dims, std::vector<int64_t>* new_perm) {
  const int rank = shape.dims();
  std::vector<int> new_index(rank, -1);
  std::vector<int64_t> kept_dims;
  for (int d = 0; d < rank; ++d) {
    if (shape.dim_size(d) != 1) {
      new_index[d] = static_cast<int>(kept_dims.size());
      kept_dims.push_back(shape.dim_size(d));
    }
  }
  std::vector<int64_t> p;
  for (int64_t d : perm) {
    if (new_index[d] >= 0) p.push_back(new_index[d]);
  }
  // Groups of output positions whose input dims are consecutive.
  std::vector<std::pair<int64_t, int64_t>> groups;  // (first input dim, size)
  for (size_t j = 0; j < p.size(); ++j) {
    if (j > 0 && p[j] == p[j - 1] + 1) {
      groups.back().second *= kept_dims[p[j]];
    } else {
      groups.push_back({p[j], kept_dims[p[j]]});
    }
  }
  // Input order of the groups: by their first input dim.
  std::vector<int> by_input(groups.size());
  std::iota(by_input.begin(), by_input.end(), 0);
  std::sort(by_input.begin(), by_input.end(), [&](int a, int b) {
    return groups[a].first < groups[b].first;
  });
  dims->clear();
  new_perm->assign(groups.size(), 0);
  for (size_t k = 0; k < by_input.size(); ++k) {
    dims->push_back(groups[by_input[k]].second);
    (*new_perm)[by_input[k]] = static_cast<int64_t>(k);
  }
}

class TransposeOp : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    if (ctx->input(1).dims() != 1) {
      return ctx->InvalidArgument(absl::StrCat(
          "perm must be a vector, but has shape ",
          ctx->input(1).shape().DebugString()));
    }
    absl::StatusOr<std::vector<int64_t>> perm =
        shape_util::IndexVector(ctx->input(1), "perm");
    if (!perm.ok()) return ctx->InvalidArgument(perm.status().message());
    absl::Status valid = shape_util::ValidatePermutation(*perm, input.dims());
    if (!valid.ok()) return ctx->InvalidArgument(valid.message());
    TensorShape out_shape;
    for (int64_t p : *perm) out_shape.AddDim(input.dim_size(static_cast<int>(p)));

    std::vector<int64_t> dims, p;
    Coalesce(input.shape(), *perm, &dims, &p);
    if (dims.size() <= 1 || input.NumElements() == 0) {
      // The order of the elements does not change.
      ASSIGN_OR_RETURN(Tensor out, input.Reshaped(out_shape));
      ctx->set_output(0, std::move(out));
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, out_shape));
    switch (DataTypeSize(input.dtype())) {
      case 1: TransposeAs<uint8_t>(ctx, input, dims, p, out); break;
      case 2: TransposeAs<uint16_t>(ctx, input, dims, p, out); break;
      case 4: TransposeAs<uint32_t>(ctx, input, dims, p, out); break;
      case 8: TransposeAs<uint64_t>(ctx, input, dims, p, out); break;
      default:
        return ctx->InvalidArgument(absl::StrCat(
            "Transpose does not support ", DataTypeString(input.dtype())));
    }
    return absl::OkStatus();
  }
};

REGISTER_KERNEL("Transpose", kDeviceTypeCpu, TransposeOp);

}  // namespace
}  // namespace tensorflow_ipu
