#include "tools/ipu_saved_model_cli/convert/pipeline/serving_graph.h"

#include <algorithm>
#include <queue>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

bool IsPassThroughOp(const std::string& op) {
  return op == "Const" || op == "Identity" || op == "Pack";
}

std::string InputNodeName(const std::string& input) {
  std::string name = !input.empty() && input[0] == '^' ? input.substr(1) : input;
  const size_t colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(0, colon);
}

absl::StatusOr<ServingGraph> ServingGraph::Make(const GraphDef& graph,
                                                const SignatureDef& signature) {
  ServingGraph g;
  g.graph_ = &graph;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!g.index_.emplace(graph.node(i).name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", graph.node(i).name(), "' appears twice in the graph"));
    }
  }
  std::vector<int> pending(graph.node_size(), 0);
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeDef& n = graph.node(i);
    std::vector<std::string>& ins = g.inputs_[n.name()];
    for (const std::string& input : n.input()) {
      const std::string producer = InputNodeName(input);
      if (g.index_.count(producer) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", n.name(), "' reads '", input, "', which is not in the graph"));
      }
      if (std::find(ins.begin(), ins.end(), producer) != ins.end()) continue;
      ins.push_back(producer);
      ++pending[i];
    }
  }
  // Kahn's algorithm; a min-heap on the graph position makes the order
  // depend only on the graph.
  std::map<std::string, std::vector<int>> readers;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string& producer : g.inputs_[graph.node(i).name()])
      readers[producer].push_back(i);
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    const std::string& name = graph.node(i).name();
    g.order_.push_back(name);
    for (int r : readers[name]) {
      if (--pending[r] == 0) ready.push(r);
    }
  }
  if (static_cast<int>(g.order_.size()) != graph.node_size()) {
    for (int i = 0; i < graph.node_size(); ++i) {
      if (pending[i] > 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", graph.node(i).name(), "' is on a cycle; a serving graph must be acyclic"));
      }
    }
  }
  for (const auto& [key, info] : signature.inputs())
    g.signature_inputs_.insert(InputNodeName(info.name()));
  for (const std::string& name : g.order_) {
    for (const std::string& producer : g.inputs_[name]) g.consumers_[producer].push_back(name);
    if (g.signature_inputs_.count(name) > 0) continue;
    if (IsPassThroughOp(g.node(name).op())) continue;
    g.compute_order_.push_back(name);
  }
  return g;
}

const NodeDef& ServingGraph::node(const std::string& name) const {
  return graph_->node(index_.at(name));
}

const std::vector<std::string>& ServingGraph::inputs(const std::string& node) const {
  static const std::vector<std::string>* const kNone = new std::vector<std::string>();
  auto it = inputs_.find(node);
  return it == inputs_.end() ? *kNone : it->second;
}

const std::vector<std::string>& ServingGraph::consumers(const std::string& node) const {
  static const std::vector<std::string>* const kNone = new std::vector<std::string>();
  auto it = consumers_.find(node);
  return it == consumers_.end() ? *kNone : it->second;
}

std::map<std::string, int> ServingGraph::CompleteStages(
    const std::map<std::string, int>& compute_stages) const {
  std::map<std::string, int> stages;
  for (const std::string& n : compute_order_) {
    auto it = compute_stages.find(n);
    if (it != compute_stages.end()) stages[n] = it->second;
  }
  // Consumers come later in topological order: walk backwards, so a chain
  // of pass-through nodes (Const -> Identity -> MatMul) resolves at once.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const std::string& n = *it;
    if (signature_inputs_.count(n) > 0 || stages.count(n) > 0) continue;
    if (!IsPassThroughOp(node(n).op())) continue;
    for (const std::string& c : consumers(n)) {
      auto s = stages.find(c);
      if (s != stages.end()) {
        stages[n] = s->second;
        break;
      }
    }
  }
  // Pass-through nodes that feed no staged node (an Identity output):
  // their producer's stage.
  for (const std::string& n : order_) {
    if (signature_inputs_.count(n) > 0 || stages.count(n) > 0) continue;
    if (!IsPassThroughOp(node(n).op())) continue;
    int stage = 0;
    for (const std::string& p : inputs(n)) {
      auto s = stages.find(p);
      if (s != stages.end()) stage = std::max(stage, s->second);
    }
    stages[n] = stage;
  }
  return stages;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
