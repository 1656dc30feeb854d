#include "tools/ipu_saved_model_cli/convert/pipeline/node_costs.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using Json = nlohmann::json;

// The graph node a step or compute set named `name` belongs to, or "".
std::string OwnerNode(const ServingGraph& graph, std::string name) {
  while (!name.empty()) {
    if (graph.Has(name)) return name;
    const size_t slash = name.rfind('/');
    if (slash == std::string::npos) break;
    name.resize(slash);
  }
  return "";
}

// A non-negative integer field of `object`, or an error naming it.
absl::StatusOr<int64_t> Field(const Json& object, const char* key, const char* where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile.json: ", where, " has no integer field '", key, "'"));
  }
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  }
  return std::max<int64_t>(0, it->get<int64_t>());
}

// A string field, or "" when absent or not a string (never throws).
std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// An array field, or an empty array when absent or not an array.
const Json& ArrayField(const Json& object, const char* key) {
  static const Json* const kEmpty = new Json(Json::array());
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : *kEmpty;
}

}  // namespace

int64_t ConstBytes(const NodeDef& node) {
  if (node.op() != "Const") return 0;
  auto it = node.attr().find("value");
  if (it == node.attr().end() || !it->second.has_tensor()) return 0;
  const TensorProto& t = it->second.tensor();
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(t.tensor_shape());
  if (!shape.ok() || !shape->IsFullyDefined()) return 0;
  return shape->num_elements() * DataTypeSize(t.dtype());
}

absl::StatusOr<ProfileSummary> SummarizeProfiles(const std::vector<Json>& profiles,
                                                 const ServingGraph& graph) {
  ProfileSummary summary;
  for (const Json& p : profiles) {
    if (!p.is_object() || !p.contains("target") || !p["target"].is_object()) {
      return absl::InvalidArgumentError("profile.json: no 'target' object");
    }
    const Json& target = p["target"];
    auto num_ipus = Field(target, "numIPUs", "target");
    auto tiles_per_ipu = Field(target, "tilesPerIPU", "target");
    auto bytes_per_tile = Field(target, "bytesPerTile", "target");
    for (const auto* f : {&num_ipus, &tiles_per_ipu, &bytes_per_tile}) {
      if (!f->ok()) return f->status();
    }
    if (*tiles_per_ipu == 0 || *num_ipus == 0 || *num_ipus > 1024) {
      return absl::InvalidArgumentError("profile.json: target has no IPUs or no tiles");
    }
    summary.ipu_capacity_bytes = *tiles_per_ipu * *bytes_per_tile;
    if (summary.ipu_execute_cycles.size() < static_cast<size_t>(*num_ipus)) {
      summary.ipu_execute_cycles.resize(*num_ipus, 0);
      summary.ipu_memory_bytes.resize(*num_ipus, 0);
    }
    const Json& steps = ArrayField(p, "steps");
    for (const Json& step : steps) {
      if (!step.is_object() || StringField(step, "kind") != "Execute") continue;
      auto cycles = Field(step, "totalCycles", "a step");
      if (!cycles.ok()) return cycles.status();
      const std::string owner = OwnerNode(graph, StringField(step, "name"));
      if (!owner.empty()) summary.node_cycles[owner] += *cycles;
      const Json& ipus = ArrayField(step, "ipus");
      if (ipus.size() == 1 && ipus[0].is_number_unsigned() &&
          ipus[0].get<uint64_t>() < summary.ipu_execute_cycles.size()) {
        summary.ipu_execute_cycles[ipus[0].get<uint64_t>()] += *cycles;
      }
    }
    for (const Json& cs : ArrayField(p, "computeSets")) {
      if (!cs.is_object()) continue;
      auto state = Field(cs, "vertexStateBytes", "a compute set");
      auto exchange = Field(cs, "exchangeBufferBytes", "a compute set");
      if (!state.ok()) return state.status();
      if (!exchange.ok()) return exchange.status();
      const std::string owner = OwnerNode(graph, StringField(cs, "name"));
      if (!owner.empty()) summary.node_vertex_bytes[owner] += *state + *exchange;
    }
    if (p.contains("memory") && p["memory"].is_object()) {
      const Json& tiles = ArrayField(p["memory"], "tiles");
      for (const Json& tile : tiles) {
        if (!tile.is_object()) continue;
        auto index = Field(tile, "tile", "a tile");
        auto total = Field(tile, "total", "a tile");
        if (!index.ok()) return index.status();
        if (!total.ok()) return total.status();
        const int64_t ipu = *index / *tiles_per_ipu;
        if (ipu < *num_ipus) summary.ipu_memory_bytes[ipu] += *total;
      }
    }
  }
  return summary;
}

std::vector<int64_t> ComputeNodeCosts(const ProfileSummary& profile, const ServingGraph& graph,
                                      CostKind kind) {
  const std::map<std::string, int64_t>& measured =
      kind == CostKind::kCycles ? profile.node_cycles : profile.node_vertex_bytes;
  // The op type means, for nodes the profile has no entry for.
  std::map<std::string, std::pair<int64_t, int64_t>> by_type;  // op -> (sum, count)
  for (const std::string& n : graph.compute_order()) {
    auto it = measured.find(n);
    if (it == measured.end()) continue;
    auto& [sum, count] = by_type[graph.node(n).op()];
    sum += it->second;
    ++count;
  }
  std::map<std::string, int> position;
  const std::vector<std::string>& order = graph.compute_order();
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int>(i);
  std::vector<int64_t> costs(order.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    auto it = measured.find(order[i]);
    if (it != measured.end()) {
      costs[i] = it->second;
      continue;
    }
    auto type = by_type.find(graph.node(order[i]).op());
    if (type != by_type.end()) {
      costs[i] = type->second.first / type->second.second;
    } else {
      costs[i] = kind == CostKind::kCycles ? 500 : 0;
    }
  }
  if (kind == CostKind::kMemory) {
    // Each constant counts for the compute node it ends up with.
    const std::map<std::string, int> owners = graph.CompleteStages(position);
    for (const std::string& n : graph.order()) {
      const int64_t bytes = ConstBytes(graph.node(n));
      auto owner = owners.find(n);
      if (bytes > 0 && owner != owners.end() && owner->second < static_cast<int>(costs.size())) {
        costs[owner->second] += bytes;
      }
    }
  }
  return costs;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
