// ConcatV2 and Pack (tf.stack): joining tensors along one dimension.
//
// Both are the same copy: viewed as [outer, inner_i] matrices (outer = the
// dims before the axis), output row o is the concatenation of row o of every
// input. Rows move as raw bytes, so one routine serves every dtype.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/kernels/shape_ops_util.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// Below this many bytes the copy runs inline, not on the thread pool.
constexpr int64_t kInlineBytes = 1 << 20;

// Copies `outer` rows; input i contributes `row_bytes[i]` bytes per row.
void ConcatRows(OpKernelContext* ctx, const std::vector<const char*>& inputs,
                const std::vector<int64_t>& row_bytes, int64_t outer,
                char* out) {
  int64_t out_row = 0;
  for (int64_t b : row_bytes) out_row += b;
  auto copy = [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index o = first; o < last; ++o) {
      char* dst = out + o * out_row;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (row_bytes[i] == 0) continue;
        std::memcpy(dst, inputs[i] + o * row_bytes[i], row_bytes[i]);
        dst += row_bytes[i];
      }
    }
  };
  if (outer * out_row < kInlineBytes || outer == 1) {
    copy(0, outer);
  } else {
    // Not Eigen's parallelFor, which may wait forever for its tasks when
    // called on a pool thread (core/parallel_shards.h).
    RunRanges(ctx->eigen_device(), outer,
              std::max<int64_t>(1, kInlineBytes / std::max<int64_t>(out_row, 1)),
              ctx->eigen_device().numThreads(),
              [&copy](int64_t begin, int64_t end) { copy(begin, end); });
  }
}

class ConcatV2Op : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const Tensor& axis_t = ctx->input(n);
    if (axis_t.dims() != 0) {
      return ctx->InvalidArgument(absl::StrCat(
          "axis must be a scalar, but has shape ", axis_t.shape().DebugString()));
    }
    absl::StatusOr<int64_t> axis_value = shape_util::IndexScalar(axis_t, "axis");
    if (!axis_value.ok()) return ctx->InvalidArgument(axis_value.status().message());
    const Tensor& first = ctx->input(0);
    const int rank = first.dims();
    if (rank == 0) {
      return ctx->InvalidArgument(
          "Can't concatenate scalars (use tf.stack instead)");
    }
    if (*axis_value < -rank || *axis_value >= rank) {
      return ctx->InvalidArgument(absl::StrCat(
          "ConcatOp : Expected concatenating dimensions in the range [", -rank,
          ", ", rank, "), but got ", *axis_value));
    }
    const int axis = static_cast<int>(*axis_value < 0 ? *axis_value + rank
                                                      : *axis_value);
    TensorShape out_shape = first.shape();
    int64_t axis_size = 0;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = ctx->input(i).shape();
      bool match = s.dims() == rank;
      for (int d = 0; match && d < rank; ++d) {
        match = d == axis || s.dim_size(d) == first.dim_size(d);
      }
      if (!match) {
        return ctx->InvalidArgument(absl::StrCat(
            "ConcatOp : Dimensions of inputs should match: shape[0] = ",
            first.shape().DebugString(), " vs. shape[", i, "] = ",
            s.DebugString(), " (concatenating along axis ", axis, ")"));
      }
      axis_size += s.dim_size(axis);
    }
    out_shape.set_dim(axis, axis_size);
    if (n == 1) {
      ctx->set_output(0, first);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, out_shape));
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    std::vector<const char*> inputs;
    std::vector<int64_t> row_bytes;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      inputs.push_back(static_cast<const char*>(t.raw_data()));
      row_bytes.push_back(outer == 0 ? 0
                                     : static_cast<int64_t>(t.TotalBytes()) / outer);
    }
    if (out->NumElements() > 0) {
      ConcatRows(ctx, inputs, row_bytes, outer,
                 static_cast<char*>(out->raw_data()));
    }
    return absl::OkStatus();
  }
};

class PackOp : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(axis_, ctx->GetAttr<int64_t>("axis"));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      if (ctx->input(i).shape() != first.shape()) {
        return ctx->InvalidArgument(absl::StrCat(
            "Shapes of all inputs must match: values[0].shape = ",
            first.shape().DebugString(), " != values[", i, "].shape = ",
            ctx->input(i).shape().DebugString()));
      }
    }
    const int rank = first.dims() + 1;
    if (axis_ < -rank || axis_ >= rank) {
      return ctx->InvalidArgument(absl::StrCat(
          "Invalid axis: ", axis_, "; must be in [", -rank, ",", rank, ")"));
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    TensorShape out_shape = first.shape();
    out_shape.InsertDim(axis, n);
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, out_shape));
    if (out->NumElements() == 0) return absl::OkStatus();
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    if (first.dtype() == DT_STRING) {
      // Strings are objects, not bytes: copy them element by element.
      const int64_t row = first.NumElements() / outer;
      std::string* dst = out->data<std::string>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int i = 0; i < n; ++i) {
          const std::string* src = ctx->input(i).data<std::string>() + o * row;
          dst = std::copy(src, src + row, dst);
        }
      }
      return absl::OkStatus();
    }
    std::vector<const char*> inputs;
    for (int i = 0; i < n; ++i) {
      inputs.push_back(static_cast<const char*>(ctx->input(i).raw_data()));
    }
    std::vector<int64_t> row_bytes(
        n, static_cast<int64_t>(first.TotalBytes()) / outer);
    ConcatRows(ctx, inputs, row_bytes, outer,
               static_cast<char*>(out->raw_data()));
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL("ConcatV2", kDeviceTypeCpu, ConcatV2Op);
REGISTER_KERNEL("Pack", kDeviceTypeCpu, PackOp);

}  // namespace
}  // namespace tensorflow_ipu
