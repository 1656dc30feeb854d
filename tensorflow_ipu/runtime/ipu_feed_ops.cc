// Host kernels of the feeds' host ends: IpuInfeedInitializer restarts an
// infeed's dataset; IpuOutfeedDequeue returns what IPU loops sent back.
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu_feeds.h"

namespace tensorflow_ipu {
namespace {

class InfeedInitializerKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(name_, ctx->GetAttr<std::string>("feed_name"));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext*) override {
    return InfeedRegistry::Get().Reset(name_);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string name_;
};

class OutfeedDequeueKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(name_, ctx->GetAttr<std::string>("feed_name"));
    ASSIGN_OR_RETURN(int64_t index, ctx->GetAttr<int64_t>("index"));
    index_ = static_cast<int>(index);
    ASSIGN_OR_RETURN(std::string mode, ctx->GetAttr<std::string>("mode"));
    last_only_ = mode == "last";
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(Tensor t,
                     OutfeedRegistry::Get().Dequeue(name_, index_, last_only_));
    ctx->set_output(0, std::move(t));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string name_;
  int index_ = 0;
  bool last_only_ = false;
};

REGISTER_KERNEL("IpuInfeedInitializer", kDeviceTypeCpu, InfeedInitializerKernel);
REGISTER_KERNEL("IpuOutfeedDequeue", kDeviceTypeCpu, OutfeedDequeueKernel);

}  // namespace
}  // namespace tensorflow_ipu
