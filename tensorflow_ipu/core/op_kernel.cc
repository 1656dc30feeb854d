#include "tensorflow_ipu/core/op_kernel.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {

absl::StatusOr<Tensor*> OpKernelContext::allocate_output(
    int i, const TensorShape& shape) {
  absl::StatusOr<Tensor> t = Tensor::Create(p_.node->output_type(i), shape);
  if (!t.ok()) {
    return absl::Status(t.status().code(),
                        absl::StrCat("output ", i, " of node '",
                                     p_.node->name(), "': ", t.status().message()));
  }
  p_.outputs[i] = *std::move(t);
  return &p_.outputs[i];
}

absl::Status OpKernelContext::InvalidArgument(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(
      message, " [node '", p_.node->name(), "' (op: '", p_.node->op(), "')]"));
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry;
  return registry;
}

void KernelRegistry::Register(std::string op, std::string device_type,
                              KernelFactory factory) {
  factories_[{std::move(op), std::move(device_type)}] = std::move(factory);
}

bool KernelRegistry::HasKernel(absl::string_view op,
                               absl::string_view device_type) const {
  return factories_.count({std::string(op), std::string(device_type)}) > 0;
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const Node& node, absl::string_view device_type,
    ResourceManager* resources) const {
  auto it = factories_.find({node.op(), std::string(device_type)});
  if (it == factories_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "No ", device_type, " kernel registered for op '", node.op(),
        "' (node '", node.name(), "')"));
  }
  std::unique_ptr<OpKernel> kernel = it->second();
  int64_t elements = 0;
  for (int k = 0; k < node.num_outputs() && elements >= 0; ++k) {
    const TensorShape& shape = node.output_shape(k);
    elements = shape.IsFullyDefined() ? elements + shape.num_elements() : -1;
  }
  kernel->static_output_elements_ = elements;
  OpKernelConstruction construction(&node, resources);
  absl::Status s = kernel->Init(&construction);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("creating the kernel of node '",
                                               node.name(), "': ", s.message()));
  }
  return kernel;
}

}  // namespace tensorflow_ipu
