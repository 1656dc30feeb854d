#include "tensorflow_ipu/runtime/ipu_partitioner.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/compiler/static_shape_check.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu_cluster_runtime.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"

namespace tensorflow_ipu {
namespace {

std::string TensorName(const TensorRef& r) {
  return absl::StrCat(r.node->name(), ":", r.index);
}

int64_t Key(const TensorRef& r) {
  return (static_cast<int64_t>(r.node->id()) << 20) | r.index;
}

int GroupOf(DataType t) {
  const std::vector<DataType>& groups = ClusterInputGroups();
  auto it = std::find(groups.begin(), groups.end(), t);
  return static_cast<int>(it - groups.begin());
}

class Partitioner {
 public:
  Partitioner(const Graph& graph, const std::vector<TensorRef>& feeds,
              const std::vector<const Node*>& needed,
              const Placement& placement)
      : graph_(graph), feeds_(feeds), needed_(needed), placement_(placement) {}

  // Ops that compute nothing (OpDef::passes_through): a cluster of nothing
  // else is not worth an engine (the vendor's port runs such graphs on the
  // host).
  static bool PassesThrough(const Node& n) { return n.op_def().passes_through; }

  absl::StatusOr<PartitionedRun> Run(const std::vector<TensorRef>& fetches,
                                     const std::vector<const Node*>& targets) {
    for (const TensorRef& f : feeds_) {
      if (OnIpu(f.node)) {
        return absl::UnimplementedError(absl::StrCat(
            "Feeding tensor '", TensorName(f), "', an output of node '",
            f.node->name(), "' placed on an IPU, is not supported; feed a "
            "placeholder on the host instead"));
      }
    }
    AssignClusters();
    // Clusters that only read variables or pass values through run on the
    // host: fetching a variable then copies it from the device that holds
    // it, instead of loading an engine to do the same.
    bool demoted = false;
    for (const Cluster& c : clusters_) {
      if (!std::all_of(c.nodes.begin(), c.nodes.end(),
                       [](const Node* n) { return PassesThrough(*n); })) {
        continue;
      }
      for (const Node* n : c.nodes) placement_[n->id()].on_ipu = false;
      demoted = true;
    }
    if (demoted) {
      clusters_.clear();
      cluster_of_.clear();
      AssignClusters();
    }
    CollectResults(fetches);
    PartitionedRun run;
    run.graph = graph_.ToGraphDef();
    absl::flat_hash_map<std::string, int> index_of;
    for (int i = 0; i < run.graph.node_size(); ++i) {
      index_of[run.graph.node(i).name()] = i;
    }
    for (size_t c = 0; c < clusters_.size(); ++c) {
      ASSIGN_OR_RETURN(IpuClusterPlan plan, BuildCluster(c, &run.graph));
      run.clusters.push_back(std::move(plan));
    }
    // Rewire the run's host nodes to the clusters' results.
    for (const Node* n : needed_) {
      if (OnIpu(n)) continue;
      NodeDef* def = run.graph.mutable_node(index_of.at(n->name()));
      def->clear_input();
      for (const TensorRef& in : n->inputs()) def->add_input(SourceName(in));
      for (const Node* c : n->control_inputs()) {
        def->add_input(absl::StrCat(
            "^", OnIpu(c) ? clusters_[cluster_of_.at(c->id())].node_name
                          : c->name()));
      }
    }
    for (const TensorRef& f : fetches) run.fetches.push_back(SourceName(f));
    for (const Node* t : targets) {
      run.targets.push_back(OnIpu(t) ? clusters_[cluster_of_.at(t->id())].node_name
                                     : t->name());
    }
    return run;
  }

 private:
  struct Cluster {
    int ipu_ordinal = 0;
    int level = 0;
    std::string name;       // "cluster_<k>"
    std::string node_name;  // its node in the partitioned graph
    std::vector<const Node*> nodes;
    std::vector<TensorRef> results;
    absl::flat_hash_map<int64_t, int> result_index;
  };

  // Handle ops only name a variable: they run on the host, and every
  // cluster that uses the variable gets its own copy of the handle op.
  bool OnIpu(const Node* n) const {
    return placement_.at(n->id()).on_ipu && !n->op_def().is_resource_handle;
  }
  int Ordinal(const Node* n) const { return placement_.at(n->id()).ipu_ordinal; }

  void AssignClusters() {
    absl::flat_hash_map<int, int> level;
    // A compile() call is a cluster of its own (one engine), as XLA makes
    // it; ops under ipu_scope outside compile() are grouped automatically.
    std::map<std::tuple<int, int, std::string>, std::vector<const Node*>> groups;
    for (const Node* n : needed_) {
      int l = 0;
      auto visit = [&](const Node* p) {
        const int lp = level.at(p->id());
        // Leaving a cluster (to the host, another device or another
        // compile() call) starts a later one.
        const bool crosses =
            OnIpu(p) && (!OnIpu(n) || Ordinal(p) != Ordinal(n) ||
                         CompileTag(*p) != CompileTag(*n));
        l = std::max(l, crosses ? lp + 1 : lp);
      };
      for (const TensorRef& in : n->inputs()) {
        if (!IsFed(feeds_, in)) visit(in.node);
      }
      for (const Node* c : n->control_inputs()) visit(c);
      level[n->id()] = l;
      if (OnIpu(n)) groups[{l, Ordinal(n), CompileTag(*n)}].push_back(n);
    }
    for (auto& [key, nodes] : groups) {
      Cluster c;
      c.level = std::get<0>(key);
      c.ipu_ordinal = std::get<1>(key);
      c.name = absl::StrCat("cluster_", clusters_.size());
      c.node_name = UniqueNodeName(absl::StrCat("_ipu_", c.name));
      c.nodes = std::move(nodes);
      for (const Node* n : c.nodes) cluster_of_[n->id()] = clusters_.size();
      clusters_.push_back(std::move(c));
    }
  }

  static std::string CompileTag(const Node& n) {
    auto it = n.def().attr().find(kCompileClusterAttr);
    return it == n.def().attr().end() ? std::string() : it->second.s();
  }

  std::string UniqueNodeName(std::string base) const {
    std::string name = base;
    for (int k = 1; graph_.FindNode(name) != nullptr; ++k) {
      name = absl::StrCat(base, "_", k);
    }
    return name;
  }

  // A value of a cluster read outside it becomes one of its results.
  void AddResult(const TensorRef& r) {
    Cluster& c = clusters_[cluster_of_.at(r.node->id())];
    if (c.result_index.contains(Key(r))) return;
    c.result_index[Key(r)] = static_cast<int>(c.results.size());
    c.results.push_back(r);
  }

  void CollectResults(const std::vector<TensorRef>& fetches) {
    for (const Node* n : needed_) {
      for (const TensorRef& in : n->inputs()) {
        if (IsFed(feeds_, in) || !OnIpu(in.node)) continue;
        if (OnIpu(n) && cluster_of_.at(n->id()) == cluster_of_.at(in.node->id())) {
          continue;
        }
        AddResult(in);
      }
    }
    for (const TensorRef& f : fetches) {
      if (!IsFed(feeds_, f) && OnIpu(f.node)) AddResult(f);
    }
  }

  std::string OutputNodeName(const Cluster& c, int k) const {
    return absl::StrCat(c.node_name, "/output_", k);
  }

  // The name, in the partitioned graph, of the value `r` as seen from
  // outside the cluster that produced it.
  std::string SourceName(const TensorRef& r) const {
    if (IsFed(feeds_, r) || !OnIpu(r.node)) return TensorName(r);
    const Cluster& c = clusters_[cluster_of_.at(r.node->id())];
    return OutputNodeName(c, c.result_index.at(Key(r)));
  }

  absl::StatusOr<IpuClusterPlan> BuildCluster(size_t index, GraphDef* out) {
    Cluster& c = clusters_[index];
    const size_t self = index;
    IpuClusterPlan plan;
    plan.ipu_ordinal = c.ipu_ordinal;
    plan.node_name = c.node_name;
    compiler::ClusterIr& ir = plan.ir;
    ir.name = c.name;

    // Arguments: every value read from outside, grouped by dtype.
    std::vector<TensorRef> args;
    std::vector<TensorRef> constants;
    absl::flat_hash_map<int64_t, int> arg_of;
    for (const Node* n : c.nodes) {
      for (const TensorRef& in : n->inputs()) {
        const bool inside = !IsFed(feeds_, in) && OnIpu(in.node) &&
                            cluster_of_.at(in.node->id()) == self;
        if (inside || arg_of.contains(Key(in))) continue;
        arg_of[Key(in)] = -1;
        // Host constants are compiled into the cluster, as XLA does: ops
        // such as Sum need their axes at compile time. So are variable
        // handles: the variable then lives in the cluster's device memory.
        if (!IsFed(feeds_, in) && (in.node->constant_value() != nullptr ||
                                   in.node->op_def().is_resource_handle)) {
          constants.push_back(in);
        } else {
          args.push_back(in);
        }
      }
    }
    std::stable_sort(args.begin(), args.end(),
                     [](const TensorRef& a, const TensorRef& b) {
                       return GroupOf(a.node->output_type(a.index)) <
                              GroupOf(b.node->output_type(b.index));
                     });
    for (const TensorRef& a : args) {
      arg_of[Key(a)] = ir.AddArg(TensorName(a), a.node->output_type(a.index),
                                 a.node->output_shape(a.index));
    }
    for (const TensorRef& k : constants) {
      const int op = ir.AddOp(k.node->def(), {}, {k.node->output_type(0)},
                              {k.node->output_shape(0)});
      if (k.node->constant_value() != nullptr) {
        ir.ops[op].constant = *k.node->constant_value();
      }
      arg_of[Key(k)] = op;
    }
    absl::flat_hash_map<int, int> op_of;  // node id -> IR op
    for (const Node* n : c.nodes) {
      std::vector<compiler::ValueRef> inputs;
      for (const TensorRef& in : n->inputs()) {
        auto a = arg_of.find(Key(in));
        inputs.push_back(a != arg_of.end()
                             ? compiler::ValueRef{a->second, 0}
                             : compiler::ValueRef{op_of.at(in.node->id()),
                                                  in.index});
      }
      std::vector<DataType> types;
      std::vector<TensorShape> shapes;
      for (int k = 0; k < n->num_outputs(); ++k) {
        types.push_back(n->output_type(k));
        shapes.push_back(n->output_shape(k));
      }
      const int op = ir.AddOp(n->def(), std::move(inputs), std::move(types),
                              std::move(shapes));
      if (n->constant_value() != nullptr) ir.ops[op].constant = *n->constant_value();
      for (const Node* p : n->control_inputs()) {
        auto it = op_of.find(p->id());
        if (it != op_of.end()) ir.ops[op].control_inputs.push_back(it->second);
      }
      op_of[n->id()] = op;
    }
    for (const TensorRef& r : c.results) {
      ir.results.push_back({op_of.at(r.node->id()), r.index});
    }
    // Result offsets need static shapes: check now, before any compile.
    RETURN_IF_ERROR(compiler::StaticShapeCheck().Run(&ir).status());

    // The cluster node.
    NodeDef* node = out->add_node();
    node->set_name(c.node_name);
    node->set_op(kIpuClusterOp);
    auto& attrs = *node->mutable_attr();
    std::vector<int64_t> counts(ClusterInputGroups().size(), 0);
    for (const TensorRef& a : args) {
      node->add_input(SourceName(a));
      ++counts[GroupOf(a.node->output_type(a.index))];
    }
    for (size_t g = 0; g < counts.size(); ++g) {
      const std::string name = DataTypeString(ClusterInputGroups()[g]);
      attrs["N_" + name] = MakeAttrValue(counts[g]);
      attrs["T_" + name] = MakeAttrValue(ClusterInputGroups()[g]);
    }
    attrs["key"] = MakeAttrValue(int64_t{0});  // set by the session
    for (const Node* n : c.nodes) {
      for (const Node* p : n->control_inputs()) {
        if (!OnIpu(p)) {
          node->add_input(absl::StrCat("^", p->name()));
        } else if (cluster_of_.at(p->id()) != self) {
          node->add_input(
              absl::StrCat("^", clusters_[cluster_of_.at(p->id())].node_name));
        }
      }
    }
    ResultLayout layout = ComputeResultLayout(ir);
    for (size_t k = 0; k < c.results.size(); ++k) {
      const TensorRef& r = c.results[k];
      NodeDef* o = out->add_node();
      o->set_name(OutputNodeName(c, static_cast<int>(k)));
      o->set_op(kIpuClusterOutputOp);
      o->add_input(c.node_name);
      (*o->mutable_attr())["T"] = MakeAttrValue(r.node->output_type(r.index));
      (*o->mutable_attr())["shape"] = MakeAttrValue(r.node->output_shape(r.index));
      (*o->mutable_attr())["offset"] = MakeAttrValue(layout.offsets[k]);
    }
    return plan;
  }

  const Graph& graph_;
  const std::vector<TensorRef>& feeds_;
  const std::vector<const Node*>& needed_;
  Placement placement_;
  std::vector<Cluster> clusters_;
  absl::flat_hash_map<int, size_t> cluster_of_;
};

}  // namespace

absl::StatusOr<PartitionedRun> PartitionForIpu(
    const Graph& graph, const std::vector<TensorRef>& feeds,
    const std::vector<TensorRef>& fetches,
    const std::vector<const Node*>& targets,
    const std::vector<const Node*>& needed, const Placement& placement) {
  Partitioner p(graph, feeds, needed, placement);
  return p.Run(fetches, targets);
}

}  // namespace tensorflow_ipu
