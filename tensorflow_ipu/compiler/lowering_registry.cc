#include "tensorflow_ipu/compiler/lowering_registry.h"

#include <algorithm>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/poputil/tile_mapping.h"

namespace tensorflow_ipu {
namespace compiler {

absl::StatusOr<poplar_sim::Type> ToPoplarType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return poplar_sim::FLOAT;
    case DT_HALF: return poplar_sim::HALF;
    case DT_INT32: return poplar_sim::INT;
    case DT_INT64: return poplar_sim::LONGLONG;
    case DT_BOOL: return poplar_sim::BOOL;
    case DT_UINT8: return poplar_sim::UNSIGNED_CHAR;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "The IPU has no ", DataTypeString(dtype),
          " type; cast to float, half or int32 before the IPU part"));
  }
}

poplar_sim::Tensor LoweringContext::input(int i) const {
  if (i >= 0 && static_cast<size_t>(i) < inputs_.size()) return inputs_[i];
  return poplar_sim::Tensor::makeError(absl::InternalError(absl::StrCat(
      "the lowering of ", def().op(), " '", def().name(), "' asked for input ", i, " of ",
      inputs_.size())));
}

const Tensor* LoweringContext::ConstantInput(int i) const {
  const ClusterOp& producer = ir_.producer(op().inputs[i]);
  return producer.constant.IsInitialized() ? &producer.constant : nullptr;
}

absl::StatusOr<std::vector<int64_t>> LoweringContext::ConstantIntList(
    int i) const {
  const Tensor* t = ConstantInput(i);
  if (t == nullptr || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) {
    return Error(absl::StrCat(
        "input ", i, " ('", ir_.ValueName(op().inputs[i]),
        "') must be a constant int32 or int64 tensor on the IPU, where it "
        "is needed at compile time"));
  }
  std::vector<int64_t> out;
  for (int64_t k = 0; k < t->NumElements(); ++k) {
    out.push_back(t->dtype() == DT_INT32 ? t->data<int32_t>()[k]
                                         : t->data<int64_t>()[k]);
  }
  return out;
}

std::vector<size_t> LoweringContext::OutputDims(int k) const {
  std::vector<size_t> dims;
  for (int64_t d : output_shape(k).dim_sizes()) dims.push_back(d);
  return dims;
}

poplar_sim::Tensor LoweringContext::AddMappedVariable(
    poplar_sim::Type type, std::vector<size_t> dims,
    const std::string& name) const {
  poplar_sim::Tensor t = graph_->addVariable(type, std::move(dims), name);
  poplar_sim::poputil::mapTensorLinearly(
      *graph_, t, poplar_sim::poputil::defaultMinElementsPerTile(*graph_, type));
  return t;
}

absl::StatusOr<poplar_sim::Tensor> LoweringContext::AddConstant(
    const Tensor& value, const std::string& name) const {
  auto type = ToPoplarType(value.dtype());
  if (!type.ok()) return Error(type.status().message());
  std::vector<size_t> dims;
  for (int64_t d : value.shape().dim_sizes()) dims.push_back(d);
  poplar_sim::Tensor t;
  absl::Status s = SwitchOnType(value.dtype(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, double>) {
      return absl::InternalError("unreachable: double constant");
    } else {
      t = graph_->addConstant<T>(*type, dims,
                                 absl::Span<const T>(value.data<T>(),
                                                     value.NumElements()),
                                 name);
      return absl::OkStatus();
    }
  });
  if (!s.ok()) return s;
  poplar_sim::poputil::mapTensorLinearly(
      *graph_, t, poplar_sim::poputil::defaultMinElementsPerTile(*graph_, *type));
  return t;
}

absl::Status LoweringContext::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(
      absl::StrCat("Op '", op().name(), "' (", op().op(), "): ", message));
}

absl::Status LoweringContext::Unimplemented(absl::string_view message) const {
  return absl::UnimplementedError(
      absl::StrCat("Op '", op().name(), "' (", op().op(), "): ", message));
}

absl::Status LoweringContext::CheckOutputsFitDevice() const {
  const poplar_sim::Target& target = graph_->getTarget();
  const uint64_t device_bytes =
      uint64_t{target.getNumTiles()} * target.getBytesPerTile();
  // An output no larger than an input costs no more to build than that
  // input did; if it does not fit, compilation reports the tile and its
  // largest users, which says more.
  uint64_t largest_input_bytes = 0;
  for (int i = 0; i < num_inputs(); ++i) {
    largest_input_bytes = std::max<uint64_t>(
        largest_input_bytes,
        input(i).numElements() * poplar_sim::typeSize(input(i).elementType()));
  }
  for (int k = 0; k < static_cast<int>(op().output_types.size()); ++k) {
    absl::StatusOr<poplar_sim::Type> type = ToPoplarType(output_type(k));
    if (!type.ok()) continue;  // the lowering reports unsupported types
    const uint64_t elements =
        static_cast<uint64_t>(std::max<int64_t>(output_shape(k).num_elements(), 0));
    const uint64_t size = poplar_sim::typeSize(*type);
    if (elements <= device_bytes / size ||
        elements <= largest_input_bytes / size) {
      continue;
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "Out of memory: op '", op().name(), "' (", op().op(), ") makes output ",
        k, ", ", DataTypeString(output_type(k)), output_shape(k).DebugString(),
        " of ", elements, " elements (", elements, " x ", size,
        " bytes), larger than the whole memory of the IPU it runs on (",
        target.getNumTiles(), " tiles x ", target.getBytesPerTile(), " = ",
        device_bytes, " bytes). Make the tensor smaller, or split the work "
        "over a larger device or several shards"));
  }
  return absl::OkStatus();
}

LoweringRegistry* LoweringRegistry::Global() {
  static LoweringRegistry* registry = new LoweringRegistry;
  return registry;
}

void LoweringRegistry::Register(std::string op, LoweringFn fn) {
  // Every lowering first refuses an output larger than the IPU's memory,
  // before it builds anything: a graph of a few bytes may ask for tensors
  // of any size, and building views or programs for them would cost the
  // host memory and time in proportion to that size.
  fns_[std::move(op)] = [fn = std::move(fn)](LoweringContext& ctx) {
    absl::Status fits = ctx.CheckOutputsFitDevice();
    if (!fits.ok()) return fits;
    return fn(ctx);
  };
}

bool LoweringRegistry::Has(absl::string_view op) const {
  return fns_.find(op) != fns_.end();
}

const LoweringFn* LoweringRegistry::Find(absl::string_view op) const {
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

std::vector<std::string> LoweringRegistry::ListOps() const {
  std::vector<std::string> out;
  for (const auto& [name, fn] : fns_) out.push_back(name);
  return out;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
