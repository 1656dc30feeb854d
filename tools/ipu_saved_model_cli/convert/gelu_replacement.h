// GeluReplacement (config file "gelu_replacement"), the vendor converter's
// first rewrite: a GELU written out of primitive ops (the x^3, tanh, ...
// nodes of a BERT-style model) becomes one IpuGelu op, which the IPU runs
// as a fused activation.
//
//   "gelu_replacement": {"nodes": ["gelu/"],                  // deleted
//                        "node_as_gelu_input": ["dense/BiasAdd$"],
//                        "node_use_gelu_output": ["output$"]}
//
// Every node matching `nodes` (regexes matched anywhere in the name) is
// deleted. Each node matching `node_as_gelu_input` gets an IpuGelu reading
// it, named `<node>/IpuGelu`, of the node's type (its T, Tparams, dtype or
// SrcT attr; if it has none: `<node>/IpuGelu can not get type from
// <node>.`), on the node's device. In each node matching
// `node_use_gelu_output`, an input from a deleted node is rewired to the
// IpuGelu of the GELU that deleted node belonged to.
//
// Fixed defect: the original rewires such an input to the last IpuGelu it
// happened to create, so with several GELUs the result depended on the
// order of the nodes. Here a deleted node belongs to the GELU whose input
// node it reads (through other deleted nodes); a deleted node that reads
// no GELU input, or several, is an error naming it, and so is a node left
// reading a deleted one that is not a GELU consumer (the graph would
// otherwise not load).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_GELU_REPLACEMENT_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_GELU_REPLACEMENT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class GeluReplacement : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<GeluReplacement>> Create(const ConvertOptions& options);

  absl::string_view name() const override { return "GeluReplacement"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  GeluReplacement() = default;

  bool enabled_ = false;
  NodePatterns nodes_;
  NodePatterns inputs_;
  NodePatterns consumers_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_GELU_REPLACEMENT_H_
