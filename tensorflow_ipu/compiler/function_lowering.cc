#include "tensorflow_ipu/compiler/function_lowering.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

absl::Status NotInFunction(const Node& n, const FunctionBody& body,
                           absl::string_view why, absl::string_view instead) {
  return absl::UnimplementedError(absl::StrCat(
      "Op '", n.name(), "' (", n.op(), ") in function '", body.name, "' ", why,
      ", which a while_loop or cond body cannot do on the IPU; ", instead));
}

// What a function may contain on the IPU (see the header).
absl::Status CheckLowerable(const Node& n, const FunctionBody& body) {
  for (int i = 0; i < n.num_inputs(); ++i) {
    if (n.input_type(i) == DT_RESOURCE) {
      return NotInFunction(n, body, "uses a resource variable",
                           "read the variable before the loop or cond and pass the "
                           "value in, and assign results after it");
    }
  }
  for (int k = 0; k < n.num_outputs(); ++k) {
    if (n.output_type(k) == DT_RESOURCE) {
      return NotInFunction(n, body, "makes a resource handle",
                           "create variables outside the loop or cond");
    }
  }
  if (n.op_def().loop_boundary != LoopBoundary::kNone) {
    return NotInFunction(n, body, "is part of an ipu::loops::repeat",
                         "put the while_loop inside the repeat body instead");
  }
  if (n.op_def().is_stateful && FunctionAttrsOf(n).empty()) {
    return NotInFunction(n, body, "is stateful (feeds, random numbers, variables)",
                         "move it outside the loop or cond");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<const FunctionBody*> CalledFunction(const LoweringContext& caller,
                                                   const char* attr) {
  ASSIGN_OR_RETURN(std::string name, caller.GetAttr<std::string>(attr));
  const FunctionBody* f =
      caller.ir().functions == nullptr ? nullptr : caller.ir().functions->Find(name);
  if (f == nullptr) {
    return caller.Error(absl::StrCat("calls function '", name,
                                     "', which the cluster's library does not have"));
  }
  return f;
}

absl::StatusOr<std::vector<poplar_sim::Tensor>> LowerFunction(
    const LoweringContext& caller, const FunctionBody& body,
    const std::vector<poplar_sim::Tensor>& args, poplar_sim::program::Sequence* prog) {
  ClusterIr ir;
  ir.name = body.name;
  ir.functions = caller.ir().functions;
  ir.replication_factor = caller.ir().replication_factor;
  ir.process_count = caller.ir().process_count;
  const int shard = caller.op().shard;
  std::vector<std::vector<poplar_sim::Tensor>> values;
  absl::flat_hash_map<const Node*, int> op_of;
  for (const auto& owned : body.graph->nodes()) {
    const Node& n = *owned;
    std::vector<ValueRef> inputs;
    std::vector<poplar_sim::Tensor> input_values;
    for (const TensorRef& in : n.inputs()) {
      const int producer = op_of.at(in.node);
      inputs.push_back({producer, in.index});
      input_values.push_back(values[producer][in.index]);
    }
    std::vector<DataType> types;
    std::vector<TensorShape> shapes;
    for (int k = 0; k < n.num_outputs(); ++k) {
      types.push_back(n.output_type(k));
      shapes.push_back(n.output_shape(k));
      // The IPU's tensors are laid out when it is compiled (as in
      // StaticShapeCheck for the cluster itself).
      if (!shapes.back().IsFullyDefined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Tensor '", n.name(), ":", k, "' in function '", body.name, "' has shape ",
            shapes.back().DebugString(), ", which is not fully defined; the IPU needs "
            "static shapes: give the loop or cond values fully defined shapes"));
      }
    }
    const int op = ir.AddOp(n.def(), std::move(inputs), types, shapes);
    ir.ops[op].shard = shard;
    if (n.constant_value() != nullptr) ir.ops[op].constant = *n.constant_value();
    op_of[&n] = op;
    values.emplace_back();

    auto arg = std::find(body.args.begin(), body.args.end(), &n);
    if (arg != body.args.end()) {
      values[op] = {args.at(arg - body.args.begin())};
      continue;
    }
    RETURN_IF_ERROR(CheckLowerable(n, body));
    const LoweringFn* fn = LoweringRegistry::Global()->Find(n.op());
    if (fn == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Op '", n.name(), "' (", n.op(), ") in function '", body.name,
          "' has no IPU lowering; compute it outside the loop or cond on the host"));
    }
    LoweringContext ctx(ir, op, &caller.graph(), prog, std::move(input_values),
                        &caller.cluster());
    RETURN_IF_ERROR((*fn)(ctx));
    values[op] = ctx.TakeOutputs();
    for (size_t k = 0; k < values[op].size(); ++k) {
      const poplar_sim::Tensor& t = values[op][k];
      RETURN_IF_ERROR(t.status());
      ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(types[k]));
      if (t.shape() != ctx.OutputDims(k) || t.elementType() != type) {
        return absl::InternalError(absl::StrCat(
            "The IPU lowering of op '", n.name(), "' (", n.op(), ") in function '",
            body.name, "' made output ", k, " of type ",
            poplar_sim::typeName(t.elementType()), " and shape ", t.shapeToString(),
            "; the graph expects ", DataTypeString(types[k]), shapes[k].DebugString()));
      }
    }
  }
  std::vector<poplar_sim::Tensor> results;
  for (int k = 0; k < body.num_results(); ++k) {
    results.push_back(values[op_of.at(body.result_nodes[k])][body.result_indices[k]]);
  }
  return results;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
