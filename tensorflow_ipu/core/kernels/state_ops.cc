// CPU kernels of the reference variables (VariableV2, Assign, AssignAdd,
// AssignSub). The value lives in the session's ResourceManager under the
// VariableV2 node's name. Assign and friends find their variable through the
// VariableV2 node that feeds their first input, which is what a reference
// edge means in TensorFlow. Values are replaced, never written in place, so
// a reader holding an earlier value keeps it.
//
// An uninitialised VariableV2 outputs a tensor without a buffer; the executor
// refuses to pass it to any op but Assign ("Attempting to use uninitialized
// value ...", as TensorFlow says).
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/kernels/wrapping_arithmetic.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace {

absl::StatusOr<ResourceHandle> RefVariableHandle(const Node& variable) {
  ResourceHandle h;
  ASSIGN_OR_RETURN(h.name, GetNodeAttr<std::string>(variable.def(), "shared_name"));
  if (h.name.empty()) h.name = variable.name();
  ASSIGN_OR_RETURN(h.dtype, GetNodeAttr<DataType>(variable.def(), "dtype"));
  ASSIGN_OR_RETURN(h.shape, GetNodeAttr<TensorShape>(variable.def(), "shape"));
  if (!h.shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Variable ", h.name, " has shape ", h.shape.DebugString(),
        "; variables need a fully defined shape"));
  }
  return h;
}

absl::StatusOr<std::shared_ptr<Var>> LookupRefVar(OpKernelContext* ctx,
                                                  const ResourceHandle& h) {
  if (ctx->resources() == nullptr) {
    return absl::InternalError(absl::StrCat(
        "node '", ctx->node().name(), "' needs a session's resource manager"));
  }
  return ctx->resources()->LookupOrCreate(h);
}

class VariableV2Kernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(handle_, RefVariableHandle(ctx->node()));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupRefVar(ctx, handle_));
    if (!var->IsInitialized()) {
      ctx->set_output(0, Tensor::UninitializedRef(handle_.dtype, handle_.shape,
                                                  handle_));
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor value, var->Read());
    ctx->set_output(0, std::move(value));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  ResourceHandle handle_;
};

// The variable behind input 0 of an Assign-like node.
absl::StatusOr<ResourceHandle> AssignTarget(const Node& node) {
  const Node* ref = node.inputs()[0].node;
  if (ref->op() != "VariableV2") {
    return absl::InvalidArgumentError(absl::StrCat(
        "Node '", node.name(), "' (", node.op(),
        ") needs a reference variable (VariableV2) as its first input, but '",
        ref->name(), "' is a ", ref->op()));
  }
  return RefVariableHandle(*ref);
}

class AssignKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(handle_, AssignTarget(ctx->node()));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupRefVar(ctx, handle_));
    RETURN_IF_ERROR(var->Assign(ctx->input(1)));
    ctx->set_output(0, ctx->input(1));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  ResourceHandle handle_;
};

template <int kSign>
class AssignUpdateKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(handle_, AssignTarget(ctx->node()));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupRefVar(ctx, handle_));
    const Tensor& delta = ctx->input(1);
    if (delta.shape() != var->shape()) {
      return ctx->InvalidArgument(absl::StrCat(
          "Cannot update variable ", var->name(), " of shape ",
          var->shape().DebugString(), " with a value of shape ",
          delta.shape().DebugString()));
    }
    Tensor result;
    RETURN_IF_ERROR(var->Update([&](Tensor* value) {
      Tensor updated(value->dtype(), value->shape());
      return SwitchOnType(value->dtype(), [&](auto t) -> absl::Status {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, bool>) {
          return absl::InvalidArgumentError("cannot add booleans");
        } else {
          if constexpr (kSign > 0) {
            updated.flat<T>() = wrapping::Plus(value->flat<T>(), delta.flat<T>());
          } else {
            updated.flat<T>() = wrapping::Minus(value->flat<T>(), delta.flat<T>());
          }
          *value = updated;
          result = updated;
          return absl::OkStatus();
        }
      });
    }));
    ctx->set_output(0, std::move(result));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  ResourceHandle handle_;
};

REGISTER_KERNEL("VariableV2", kDeviceTypeCpu, VariableV2Kernel);
REGISTER_KERNEL("Assign", kDeviceTypeCpu, AssignKernel);
REGISTER_KERNEL("AssignAdd", kDeviceTypeCpu, AssignUpdateKernel<1>);
REGISTER_KERNEL("AssignSub", kDeviceTypeCpu, AssignUpdateKernel<-1>);

}  // namespace
}  // namespace tensorflow_ipu
