// The view of a frozen serving graph that pipelining works on: its nodes in
// a deterministic topological order, which of them are "compute" nodes
// that a split assigns to stages, and which are pass-through nodes (Const,
// Identity, Pack) that follow their consumer, as the original tool does.
//
//   ASSIGN_OR_RETURN(ServingGraph g, ServingGraph::Make(graph, signature));
//   for (const std::string& n : g.compute_order()) ...   // what a split cuts
//
// Signature inputs (the Placeholders the signature feeds) are neither: they
// are streamed from the host and belong to no stage.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SERVING_GRAPH_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SERVING_GRAPH_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// Const, Identity and Pack: the ops a split skips; they take the stage of
// their (first, in topological order) consumer.
bool IsPassThroughOp(const std::string& op);

// The node name of an input string: "a:1" -> "a", "^a" -> "a".
std::string InputNodeName(const std::string& input);

// Keeps a pointer to the GraphDef it was made from, which must outlive it.
class ServingGraph {
 public:
  // InvalidArgument naming the node for an input that is not in the graph
  // or a cycle; the order is Kahn's, taking ready nodes in the graph's order.
  static absl::StatusOr<ServingGraph> Make(const GraphDef& graph, const SignatureDef& signature);

  // Every node, inputs first.
  const std::vector<std::string>& order() const { return order_; }
  // The nodes a split assigns: neither signature inputs nor pass-through.
  const std::vector<std::string>& compute_order() const { return compute_order_; }
  // Node names of the signature's inputs ("x:0" -> "x").
  const std::set<std::string>& signature_inputs() const { return signature_inputs_; }
  bool Has(const std::string& node) const { return index_.count(node) > 0; }
  const NodeDef& node(const std::string& name) const;
  // The nodes `node` reads (data and control inputs), without repeats.
  const std::vector<std::string>& inputs(const std::string& node) const;
  // The nodes that read `node`, in topological order.
  const std::vector<std::string>& consumers(const std::string& node) const;

  // The stages of the compute nodes (those of `compute_stages`; a compute
  // node it lacks stays without one) and of every pass-through node: that
  // of its first consumer with a stage, or for one whose consumers have none
  // (an output Identity) the latest stage of its inputs, else 0.
  std::map<std::string, int> CompleteStages(const std::map<std::string, int>& compute_stages) const;

 private:
  const GraphDef* graph_ = nullptr;
  std::map<std::string, int> index_;  // name -> position in graph_
  std::vector<std::string> order_;
  std::vector<std::string> compute_order_;
  std::set<std::string> signature_inputs_;
  std::map<std::string, std::vector<std::string>> inputs_;
  std::map<std::string, std::vector<std::string>> consumers_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_SERVING_GRAPH_H_
