// The internal ops and CPU kernels that stand for IPU clusters in a
// partitioned graph:
//   _IpuCluster(in_float: N_float * float, in_half: ..., ...) -> packed: uint8
//     runs the cluster registered under attr "key" (see
//     ipu_cluster_runtime.h) and returns its results packed into bytes;
//   _IpuClusterOutput(packed: uint8) -> output: T
//     unpacks one result (attrs T, shape, offset).
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu_cluster_runtime.h"
#include "tensorflow_ipu/runtime/pool_host_threads.h"

namespace tensorflow_ipu {
namespace {

OpDefBuilder ClusterOpDef() {
  OpDefBuilder b(kIpuClusterOp);
  for (DataType t : ClusterInputGroups()) {
    const std::string name = DataTypeString(t);
    b.InputList("in_" + name, "N_" + name, "T_" + name);
    b.Attr("N_" + name, "int", MakeAttrValue(int64_t{0}));
    b.TypeAttr("T_" + name, {t}, t);
  }
  b.Output("packed", DT_UINT8);
  b.Attr("key", "int");
  b.SetIsStateful();
  b.SetShapeFn([](InferenceContext* c) {
    c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
    return absl::OkStatus();
  });
  return b;
}
REGISTER_OP(ClusterOpDef());

REGISTER_OP(OpDefBuilder(kIpuClusterOutputOp)
                .Input("packed", DT_UINT8)
                .Output("output", "T")
                .TypeAttr("T", {})
                .Attr("shape", "shape")
                .Attr("offset", "int")
                .SetShapeFn([](InferenceContext* c) -> absl::Status {
                  ASSIGN_OR_RETURN(TensorShape s,
                                   c->GetAttr<TensorShape>("shape"));
                  c->set_output(0, s);
                  return absl::OkStatus();
                }));

class IpuClusterKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(int64_t key, ctx->GetAttr<int64_t>("key"));
    ASSIGN_OR_RETURN(runtime_, IpuClusterTable::Get().Find(key));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> inputs;
    inputs.reserve(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(ctx->input(i));
    PoolHostThreads threads(ctx->eigen_device());
    return runtime_->Run(inputs, ctx->mutable_output(0), &threads);
  }

 private:
  std::shared_ptr<IpuClusterRuntime> runtime_;
};
REGISTER_KERNEL(kIpuClusterOp, kDeviceTypeCpu, IpuClusterKernel);

class IpuClusterOutputKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(shape_, ctx->GetAttr<TensorShape>("shape"));
    ASSIGN_OR_RETURN(offset_, ctx->GetAttr<int64_t>("offset"));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, shape_));
    const Tensor& packed = ctx->input(0);
    if (offset_ + static_cast<int64_t>(out->TotalBytes()) > packed.NumElements()) {
      return ctx->InvalidArgument(absl::StrCat(
          "packed cluster results of ", packed.NumElements(),
          " bytes do not hold ", out->TotalBytes(), " bytes at offset ",
          offset_));
    }
    if (out->TotalBytes() > 0) {
      std::memcpy(out->raw_data(), packed.data<uint8_t>() + offset_,
                  out->TotalBytes());
    }
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  TensorShape shape_;
  int64_t offset_ = 0;
};
REGISTER_KERNEL(kIpuClusterOutputOp, kDeviceTypeCpu, IpuClusterOutputKernel);

}  // namespace
}  // namespace tensorflow_ipu
