// CPU kernels of the resource variable ops. The variable lives in the
// session's ResourceManager; reads and updates go through Var, which brings
// the value home first when an IPU holds the current copy.
#include <functional>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/parallel_shards.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"

namespace tensorflow_ipu {
namespace {

// Below this many elements an update runs on the calling thread: waking a
// pool thread costs more than the pass over memory.
constexpr int64_t kParallelElements = 256 * 1024;

template <typename Dst, typename Expr>
void Evaluate(const Eigen::ThreadPoolDevice& device, Dst dst, const Expr& expr) {
  if (dst.size() < kParallelElements) {
    dst = expr;
  } else {
    EvaluateOnPool(device, dst, expr);
  }
}

// From this many elements a gradient-descent update is split over the pool
// by rows, at the row boundaries the weight gradient's product was split at
// (gemm.h: multiples of 48 rows, the calling thread taking the first range
// first), so that each half of a large weight is updated by the core that
// just wrote that half of its gradient. Measured on the MLP's first layer
// (784x256, 200,704 elements): on one thread, 57 us of a 330 us step.
constexpr int64_t kRowSplitElements = 64 * 1024;
constexpr int64_t kRowSplitGrain = 48;

// Elements [begin, end) of `t`'s values as a 1-D Eigen tensor.
template <typename T>
Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>> SegmentOf(const Tensor& t, int64_t begin,
                                                                 int64_t end) {
  return Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>>(
      const_cast<T*>(t.data<T>()) + begin, end - begin);
}

// Runs fn(begin, end) over element ranges of whole rows of `value`, split
// by rows over the pool; false (running nothing) below kRowSplitElements or
// on one thread. Range boundaries are multiples of 48 rows, so of 16
// elements: every element is computed by the same vector instructions as
// in one pass over the whole, whatever the thread count.
bool UpdateByRows(const Eigen::ThreadPoolDevice& device, const Tensor& value,
                  const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t n = value.NumElements();
  if (n < kRowSplitElements || device.numThreads() < 2 || value.dims() < 1) return false;
  const int64_t rows = value.dim_size(0);
  if (rows <= 0) return false;
  const int64_t inner = n / rows;
  RunRanges(device, rows, kRowSplitGrain, device.numThreads(),
            [&](int64_t first, int64_t end) { fn(first * inner, end * inner); });
  return true;
}

// The variable input 0's handle names, through the kernel's `cache`.
absl::StatusOr<std::shared_ptr<Var>> VarFromInput(OpKernelContext* ctx, CachedVarLookup* cache) {
  if (ctx->resources() == nullptr) {
    return absl::InternalError(absl::StrCat(
        "node '", ctx->node().name(), "' needs a session's resource manager"));
  }
  absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx->input(0));
  if (!handle.ok()) return ctx->InvalidArgument(handle.status().message());
  return cache->LookupOrCreate(ctx->resources(), **handle);
}

// A kernel whose input 0 is a variable's handle.
class VarKernel : public OpKernel {
 protected:
  absl::StatusOr<std::shared_ptr<Var>> InputVar(OpKernelContext* ctx) {
    return VarFromInput(ctx, &var_lookup_);
  }

 private:
  CachedVarLookup var_lookup_;
};

class VarHandleOpKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ResourceHandle h;
    ASSIGN_OR_RETURN(h.name, ctx->GetAttr<std::string>("shared_name"));
    if (h.name.empty()) h.name = ctx->node().name();
    ASSIGN_OR_RETURN(h.dtype, ctx->GetAttr<DataType>("dtype"));
    ASSIGN_OR_RETURN(h.shape, ctx->GetAttr<TensorShape>("shape"));
    if (!h.shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Variable ", h.name, " has shape ", h.shape.DebugString(),
          "; variables need a fully defined shape"));
    }
    handle_ = Tensor::ResourceHandleScalar(std::move(h));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    // Creating the variable here reports a dtype or shape conflict early.
    if (ctx->resources() != nullptr) {
      RETURN_IF_ERROR(
          var_lookup_.LookupOrCreate(ctx->resources(), *handle_.resource_handle()).status());
    }
    ctx->set_output(0, handle_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor handle_;
  CachedVarLookup var_lookup_;
};

class ReadVariableOpKernel : public VarKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, InputVar(ctx));
    ASSIGN_OR_RETURN(Tensor value, var->Read());
    ctx->set_output(0, std::move(value));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class AssignVariableOpKernel : public VarKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, InputVar(ctx));
    // Values are never written in place, so sharing the buffer is safe.
    return var->Assign(ctx->input(1));
  }
  bool IsExpensive() const override { return false; }
};

// AssignAddVariableOp (kSign = 1) and AssignSubVariableOp (kSign = -1).
template <int kSign>
class AssignUpdateVariableOpKernel : public VarKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, InputVar(ctx));
    const Tensor& delta = ctx->input(1);
    if (delta.dtype() != var->dtype() || delta.shape() != var->shape()) {
      return ctx->InvalidArgument(absl::StrCat(
          "Cannot update variable ", var->name(), " of type ",
          DataTypeString(var->dtype()), " and shape ",
          var->shape().DebugString(), " with a value ", delta.SummaryString()));
    }
    const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
    return var->Update([&](Tensor* value) {
      // In place when no read shares the buffer; else a new buffer.
      Tensor updated = value->RefCountIsOne() ? *value : Tensor(value->dtype(), value->shape());
      return SwitchOnType(value->dtype(), [&](auto t) -> absl::Status {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, bool>) {
          return absl::InvalidArgumentError("cannot add booleans");
        } else {
          if constexpr (kSign > 0) {
            Evaluate(device, updated.flat<T>(), wrapping::Plus(value->flat<T>(), delta.flat<T>()));
          } else {
            Evaluate(device, updated.flat<T>(),
                     wrapping::Minus(value->flat<T>(), delta.flat<T>()));
          }
          *value = std::move(updated);
          return absl::OkStatus();
        }
      });
    });
  }
};

// ResourceApplyGradientDescent: var = var - alpha * delta, in one pass.
class ApplyGradientDescentKernel : public VarKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, InputVar(ctx));
    const Tensor& alpha = ctx->input(1);
    const Tensor& delta = ctx->input(2);
    if (alpha.NumElements() != 1 || alpha.dtype() != var->dtype()) {
      return ctx->InvalidArgument(absl::StrCat(
          "alpha must be a ", DataTypeString(var->dtype()),
          " scalar for variable ", var->name(), ", got ", alpha.SummaryString()));
    }
    if (delta.dtype() != var->dtype() || delta.shape() != var->shape()) {
      return ctx->InvalidArgument(absl::StrCat(
          "Cannot apply gradient descent to variable ", var->name(), " of type ",
          DataTypeString(var->dtype()), " and shape ", var->shape().DebugString(),
          " with a delta ", delta.SummaryString()));
    }
    const Eigen::ThreadPoolDevice& device = ctx->eigen_device();
    return var->Update([&](Tensor* value) {
      // In place when no read shares the buffer (reads made before this
      // update and still in use must keep the old value); else a new one.
      Tensor updated = value->RefCountIsOne() ? *value : Tensor(value->dtype(), value->shape());
      return SwitchOnType(value->dtype(), [&](auto t) -> absl::Status {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                      std::is_same_v<T, half>) {
          const T a = alpha.data<T>()[0];
          if (UpdateByRows(device, *value, [&](int64_t begin, int64_t end) {
                SegmentOf<T>(updated, begin, end) =
                    SegmentOf<T>(*value, begin, end) - SegmentOf<T>(delta, begin, end) * a;
              })) {
            *value = std::move(updated);
            return absl::OkStatus();
          }
          Evaluate(device, updated.flat<T>(), value->flat<T>() - delta.flat<T>() * a);
          *value = std::move(updated);
          return absl::OkStatus();
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "ResourceApplyGradientDescent does not support ", DataTypeString(value->dtype())));
        }
      });
    });
  }
};

class VarIsInitializedOpKernel : public VarKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, InputVar(ctx));
    ctx->set_output(0, Tensor::Scalar<bool>(var->IsInitialized()));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL("VarHandleOp", kDeviceTypeCpu, VarHandleOpKernel);
REGISTER_KERNEL("ReadVariableOp", kDeviceTypeCpu, ReadVariableOpKernel);
REGISTER_KERNEL("AssignVariableOp", kDeviceTypeCpu, AssignVariableOpKernel);
REGISTER_KERNEL("AssignAddVariableOp", kDeviceTypeCpu,
                AssignUpdateVariableOpKernel<1>);
REGISTER_KERNEL("AssignSubVariableOp", kDeviceTypeCpu,
                AssignUpdateVariableOpKernel<-1>);
REGISTER_KERNEL("ResourceApplyGradientDescent", kDeviceTypeCpu,
                ApplyGradientDescentKernel);
REGISTER_KERNEL("VarIsInitializedOp", kDeviceTypeCpu, VarIsInitializedOpKernel);

}  // namespace
}  // namespace tensorflow_ipu
