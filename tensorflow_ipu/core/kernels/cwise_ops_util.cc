#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"

#include <algorithm>

namespace tensorflow_ipu {
namespace cwise {

absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(
    const std::vector<TensorShape>& shapes) {
  const int num = static_cast<int>(shapes.size());
  int rank = 0;
  for (const TensorShape& s : shapes) rank = std::max(rank, s.dims());
  BroadcastPlan plan;
  plan.in_dims.resize(num);
  plan.strides.resize(num);
  uint64_t last_mask = ~uint64_t{0};
  std::vector<int64_t> d(num);
  for (int j = 0; j < rank; ++j) {
    int64_t out = 1;
    for (int k = 0; k < num; ++k) {
      const int i = shapes[k].dims() - rank + j;
      d[k] = i >= 0 ? shapes[k].dim_size(i) : 1;
      if (d[k] == 1) continue;
      if (out != 1 && d[k] != out) {
        std::string msg = "Incompatible shapes: ";
        for (int m = 0; m < num; ++m) {
          absl::StrAppend(&msg, m > 0 ? " vs. " : "", shapes[m].DebugString());
        }
        return absl::InvalidArgumentError(msg);
      }
      out = d[k];
    }
    plan.out_shape.AddDim(out);
    if (out == 1) continue;
    uint64_t mask = 0;
    for (int k = 0; k < num; ++k) {
      if (d[k] == 1) mask |= uint64_t{1} << k;
    }
    if (mask == last_mask) {
      plan.dims.back() *= out;
      for (int k = 0; k < num; ++k) plan.in_dims[k].back() *= d[k];
    } else {
      plan.dims.push_back(out);
      for (int k = 0; k < num; ++k) plan.in_dims[k].push_back(d[k]);
      last_mask = mask;
    }
  }
  if (plan.dims.empty()) {  // every shape has one element
    plan.dims.push_back(1);
    for (int k = 0; k < num; ++k) plan.in_dims[k].push_back(1);
  }
  for (int k = 0; k < num; ++k) {
    const std::vector<int64_t>& in = plan.in_dims[k];
    std::vector<int64_t>& st = plan.strides[k];
    st.assign(in.size(), 0);
    int64_t stride = 1;
    for (int j = static_cast<int>(in.size()) - 1; j >= 0; --j) {
      if (in[j] != 1) {
        st[j] = stride;
        stride *= in[j];
      }
    }
  }
  return plan;
}

int64_t InputOffset(const BroadcastPlan& plan, int k, int64_t index) {
  const std::vector<int64_t>& st = plan.strides[k];
  int64_t offset = 0;
  for (int j = static_cast<int>(plan.dims.size()) - 1; j >= 0 && index > 0; --j) {
    const int64_t dim = plan.dims[j];
    offset += (index % dim) * st[j];
    index /= dim;
  }
  return offset;
}

void ParallelFor(OpKernelContext* ctx, int64_t n, int64_t cost_per_item,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 1 || n * cost_per_item < kParallelThreshold) {
    fn(0, n);
    return;
  }
  // RunRanges, not Eigen's parallelFor: a kernel may run on one of the
  // session's pool threads, and parallelFor waits for the tasks it queues on
  // that pool, which nobody may be free to run (with one worker, nobody is).
  // RunRanges runs every range nobody has started on the calling thread.
  const int64_t grain =
      std::max<int64_t>(1, kParallelThreshold / 2 / std::max<int64_t>(cost_per_item, 1));
  RunRanges(ctx->eigen_device(), n, grain, ctx->eigen_device().numThreads(), fn);
}

absl::Status CheckSameShapeInputs(OpKernelContext* ctx) {
  const Tensor& a = ctx->input(0);
  const Tensor& b = ctx->input(1);
  if (a.shape() == b.shape()) return absl::OkStatus();
  const auto& def = ctx->node().op_def();
  return ctx->InvalidArgument(absl::StrCat(
      "Inputs '", def.inputs[0].name, "' and '", def.inputs[1].name,
      "' must have the same shape, but are ", a.shape().DebugString(), " and ",
      b.shape().DebugString()));
}

}  // namespace cwise
}  // namespace tensorflow_ipu
