#include "tensorflow_ipu/ipu/embedded_runtime.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/types.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"

namespace tensorflow_ipu {
namespace ipu {
namespace embedded_runtime {
namespace {

std::string ShapeList(const TensorShape& s) {
  std::vector<std::string> dims;
  for (int64_t d : s.dim_sizes()) dims.push_back(d < 0 ? "None" : absl::StrCat(d));
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

// The vendor's checks, on what the graph knows: a dimension the graph does
// not know yet is checked when the call runs.
absl::Status CheckOutputs(const google::protobuf::RepeatedPtrField<ApplicationTensorInfo>& expected,
                          const std::vector<Output>& inputs, absl::string_view what) {
  if (static_cast<int>(inputs.size()) != expected.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " expects ", expected.size(),
                                                   " inputs, but ", inputs.size(),
                                                   " were provided."));
  }
  for (int i = 0; i < expected.size(); ++i) {
    ASSIGN_OR_RETURN(TensorShape want, TensorShape::FromProto(expected[i].shape()));
    const TensorShape& have = inputs[i].shape();
    if (!have.IsCompatibleWith(want)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Mismatched input shape at position ", i, " ('", expected[i].name(), "'). Expected ",
          ShapeList(want), ", but input ", i, " has shape ", ShapeList(have), "."));
    }
    if (inputs[i].type() != expected[i].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Mismatched input dtype at position ", i, " ('", expected[i].name(), "'). Expected ",
          DataTypeString(expected[i].dtype()), ", but input ", i, " has dtype ",
          DataTypeString(inputs[i].type()), "."));
    }
  }
  return absl::OkStatus();
}

std::vector<DataType> TypesOf(const std::vector<Output>& outputs) {
  std::vector<DataType> types;
  for (const Output& o : outputs) types.push_back(o.type());
  return types;
}

}  // namespace

std::vector<DataType> RuntimeContext::output_types() const {
  std::vector<DataType> types;
  for (const ApplicationTensorInfo& info : signature().streamed_outputs()) {
    types.push_back(info.dtype());
  }
  return types;
}

absl::StatusOr<RuntimeContext> embedded_runtime_start(const Scope& scope,
                                                      const std::string& executable_file,
                                                      const std::vector<Output>& inputs,
                                                      const std::string& name,
                                                      int64_t timeout_us) {
  RETURN_IF_ERROR(scope.status());
  if (timeout_us <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedded_runtime_start: timeout ", timeout_us,
        " us; give how long (in microseconds, > 0) the engine waits for the next call"));
  }
  ASSIGN_OR_RETURN(ApplicationExecutableProto exe, ReadApplicationExecutable(executable_file));
  const ApplicationSignature& sig = exe.embedded_runtime_config().signature();
  RETURN_IF_ERROR(CheckOutputs(sig.inputs(), inputs, "Embedded application runtime"));
  // The program takes its inputs in argument order.
  std::vector<Input> ordered(inputs.size(), Input(Output()));
  for (int i = 0; i < sig.inputs_size(); ++i) ordered[sig.inputs(i).argument()] = inputs[i];
  Operation op = ops::BuildOp(scope, "ApplicationRuntime", ordered,
                              {{"input_types", MakeAttrValue(TypesOf(inputs))},
                               {"filename", MakeAttrValue(executable_file)},
                               {"engine_name", MakeAttrValue(name)},
                               {"timeout_us", MakeAttrValue(timeout_us)}});
  RETURN_IF_ERROR(scope.status());
  RuntimeContext context;
  context.anchor_ = Output(op, 0);
  context.name_ = name;
  context.exe_ = std::move(exe);
  return context;
}

absl::StatusOr<RuntimeContext> embedded_runtime_start(const Scope& scope,
                                                      const std::string& executable_file,
                                                      const std::map<std::string, Output>& inputs,
                                                      const std::string& name,
                                                      int64_t timeout_us) {
  ASSIGN_OR_RETURN(ApplicationExecutableProto exe, ReadApplicationExecutable(executable_file));
  std::vector<Output> ordered;
  for (const ApplicationTensorInfo& info : exe.embedded_runtime_config().signature().inputs()) {
    auto it = inputs.find(info.name());
    if (it == inputs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to find input tensor with name '", info.name(), "' in input dictionary."));
    }
    ordered.push_back(it->second);
  }
  return embedded_runtime_start(scope, executable_file, ordered, name, timeout_us);
}

absl::StatusOr<std::vector<Output>> embedded_runtime_call(const Scope& scope,
                                                          const std::vector<Output>& inputs,
                                                          const RuntimeContext& context) {
  RETURN_IF_ERROR(scope.status());
  RETURN_IF_ERROR(CheckOutputs(context.signature().streamed_inputs(), inputs,
                               "Embedded application call"));
  std::vector<Input> args(inputs.begin(), inputs.end());
  args.push_back(context.start_op());
  std::vector<TensorShape> shapes;
  for (const ApplicationTensorInfo& info : context.signature().streamed_outputs()) {
    ASSIGN_OR_RETURN(TensorShape s, TensorShape::FromProto(info.shape()));
    shapes.push_back(s);
  }
  Operation op = ops::BuildOp(scope, "ApplicationCall", args,
                              {{"infeed_types", MakeAttrValue(TypesOf(inputs))},
                               {"outfeed_types", MakeAttrValue(context.output_types())},
                               {"engine_name", MakeAttrValue(context.name())},
                               {"_output_shapes", MakeAttrValue(shapes)}});
  RETURN_IF_ERROR(scope.status());
  std::vector<Output> outputs;
  for (int i = 0; i < op.node()->num_outputs(); ++i) outputs.push_back(Output(op, i));
  return outputs;
}

absl::Status embedded_runtime_stop(const RuntimeContext&) {
  return absl::UnimplementedError("Embedded runtime doesn't support stopping an engine.");
}

}  // namespace embedded_runtime
}  // namespace ipu
}  // namespace tensorflow_ipu
