// The host kernels of ApplicationRuntime and ApplicationCall
// (core/ops/application_runtime_ops.cc): the engines live in the session's
// resources, one per engine name, and stop when the session closes.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu/application_engine.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"

namespace tensorflow_ipu {
namespace {

constexpr char kEngineContainer[] = "application_runtime";

class ApplicationRuntimeKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(filename_, ctx->GetAttr<std::string>("filename"));
    ASSIGN_OR_RETURN(engine_name_, ctx->GetAttr<std::string>("engine_name"));
    ASSIGN_OR_RETURN(timeout_us_, ctx->GetAttr<int64_t>("timeout_us"));
    return absl::OkStatus();
  }

  bool IsExpensive() const override { return false; }

  absl::Status Compute(OpKernelContext* ctx) override {
    if (ctx->resources() == nullptr) {
      return absl::FailedPreconditionError("ApplicationRuntime runs only in a session");
    }
    absl::StatusOr<std::shared_ptr<ApplicationEngine>> found =
        ctx->resources()->Lookup<ApplicationEngine>(kEngineContainer, engine_name_);
    if (found.ok()) return Started(ctx, **found);
    if (!absl::IsNotFound(found.status())) return found.status();
    ASSIGN_OR_RETURN(ApplicationExecutableProto exe, ReadApplicationExecutable(filename_));
    std::vector<Tensor> inputs;
    for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(ctx->input(i));
    ASSIGN_OR_RETURN(std::shared_ptr<ApplicationEngine> engine,
                     ApplicationEngine::Start(std::move(exe), filename_, engine_name_,
                                              timeout_us_, std::move(inputs)));
    // Two runs may start the engine at once; the first to register wins and
    // the other engine stops here, unused.
    ASSIGN_OR_RETURN(std::shared_ptr<ApplicationEngine> registered,
                     ctx->resources()->LookupOrCreate<ApplicationEngine>(
                         kEngineContainer, engine_name_, [&] { return engine; }));
    return Started(ctx, *registered);
  }

 private:
  absl::Status Started(OpKernelContext* ctx, const ApplicationEngine& engine) {
    if (engine.filename() != filename_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "application runtime '", engine_name_, "' already runs '", engine.filename(),
          "' in this session, not '", filename_, "'; give each executable its own engine name"));
    }
    ASSIGN_OR_RETURN(Tensor* anchor, ctx->allocate_output(0, TensorShape({})));
    *anchor->data<int32_t>() = 0;
    return absl::OkStatus();
  }

  std::string filename_;
  std::string engine_name_;
  int64_t timeout_us_ = 0;
};

class ApplicationCallKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(engine_name_, ctx->GetAttr<std::string>("engine_name"));
    return absl::OkStatus();
  }

  // It blocks until its batch ran: never inline on the executor's thread.
  bool IsExpensive() const override { return true; }

  absl::Status Compute(OpKernelContext* ctx) override {
    if (ctx->resources() == nullptr) {
      return absl::FailedPreconditionError("ApplicationCall runs only in a session");
    }
    absl::StatusOr<std::shared_ptr<ApplicationEngine>> engine =
        ctx->resources()->Lookup<ApplicationEngine>(kEngineContainer, engine_name_);
    if (absl::IsNotFound(engine.status())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no application runtime named '", engine_name_,
          "' is started in this session; the call's anchor must come from its "
          "ApplicationRuntime (ipu::embedded_runtime::embedded_runtime_start)"));
    }
    RETURN_IF_ERROR(engine.status());
    const int num_infeeds = ctx->num_inputs() - 1;  // the last input is the anchor
    std::vector<Tensor> inputs;
    for (int i = 0; i < num_infeeds; ++i) inputs.push_back(ctx->input(i));
    ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                     (*engine)->Call(std::move(inputs), ctx->deadline()));
    if (static_cast<int>(outputs.size()) != ctx->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ApplicationCall '", ctx->node().name(), "' has ", ctx->num_outputs(),
          " outputs, but application runtime '", engine_name_, "' gives ", outputs.size(),
          "; build the call with ipu::embedded_runtime::embedded_runtime_call"));
    }
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      const DataType declared = ctx->node().output_type(i);
      if (outputs[i].dtype() != declared) {
        return absl::InvalidArgumentError(absl::StrCat(
            "ApplicationCall '", ctx->node().name(), "' declares output ", i, " as ",
            DataTypeString(declared), ", but application runtime '", engine_name_, "' gives ",
            DataTypeString(outputs[i].dtype())));
      }
      ctx->set_output(i, std::move(outputs[i]));
    }
    return absl::OkStatus();
  }

 private:
  std::string engine_name_;
};

REGISTER_KERNEL("ApplicationRuntime", kDeviceTypeCpu, ApplicationRuntimeKernel);
REGISTER_KERNEL("ApplicationCall", kDeviceTypeCpu, ApplicationCallKernel);

}  // namespace
}  // namespace tensorflow_ipu
