#include "tensorflow_ipu/runtime/direct_session.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/abseil_mutex_checks.h"
#include "tensorflow_ipu/runtime/ipu_cluster_library.h"
#include "tensorflow_ipu/runtime/ipu_partitioner.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"
#include "tensorflow_ipu/runtime/placer.h"

namespace tensorflow_ipu {

std::unique_ptr<Session> NewSession(const SessionOptions& options) {
  return std::make_unique<DirectSession>(options);
}

DirectSession::DirectSession(const SessionOptions& options)
    : options_(options), cpu_(std::make_unique<CpuDevice>(options.num_threads)) {
  UseReleaseBuildMutexChecks();
}

DirectSession::~DirectSession() = default;

absl::Status DirectSession::Create(const GraphDef& graph) {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::FailedPreconditionError("Session has been closed");
  if (graph_ != nullptr) {
    return absl::FailedPreconditionError(
        "Session already has a graph; use Extend to add nodes");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(graph));
  graph_ = std::move(g);
  return absl::OkStatus();
}

absl::Status DirectSession::Extend(const GraphDef& graph) {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::FailedPreconditionError("Session has been closed");
  if (graph_ == nullptr) {
    ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(graph));
    graph_ = std::move(g);
    return absl::OkStatus();
  }
  return graph_->Extend(graph);
}

absl::Status DirectSession::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
  // Runs in flight hold their Prepared (and through it the graph) and
  // finish; the last of them frees it.
  cache_.clear();
  graph_.reset();
  return absl::OkStatus();
}

absl::Status DirectSession::LocalResourceManager(ResourceManager** resources) {
  if (resources == nullptr) {
    return absl::InvalidArgumentError("LocalResourceManager: resources is null");
  }
  *resources = resources_.get();
  return absl::OkStatus();
}

int DirectSession::num_cached_executors() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(cache_.size());
}

absl::StatusOr<TensorRef> DirectSession::ResolveTensor(const std::string& name,
                                                       const char* role) const {
  std::string node_name;
  int index;
  bool is_control;
  if (!ParseInputString(name, &node_name, &index, &is_control) || is_control) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Malformed ", role, " tensor name '", name,
        "'; expected 'node' or 'node:output_index'"));
  }
  Node* node = graph_->FindNode(node_name);
  if (node == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        role == std::string("feed") ? "Feeding" : "Fetching", " tensor '", name,
        "': no node named '", node_name, "' in the graph"));
  }
  if (index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        role == std::string("feed") ? "Feeding" : "Fetching", " tensor '", name,
        "': node '", node_name, "' has ", node->num_outputs(), " output(s)"));
  }
  return TensorRef{node, index};
}

absl::StatusOr<std::shared_ptr<const DirectSession::Prepared>>
DirectSession::Prepare(
    const std::vector<std::pair<std::string, Tensor>>& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names) const {
  auto prepared = std::make_shared<Prepared>();
  Executor::Spec spec;
  absl::flat_hash_set<std::string> seen;
  for (const auto& [name, value] : inputs) {
    ASSIGN_OR_RETURN(TensorRef ref, ResolveTensor(name, "feed"));
    std::string canonical = absl::StrCat(ref.node->name(), ":", ref.index);
    if (!seen.insert(canonical).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensor '", name, "' is fed more than once"));
    }
    spec.feeds.push_back(ref);
  }
  for (const std::string& name : output_names) {
    ASSIGN_OR_RETURN(TensorRef ref, ResolveTensor(name, "fetch"));
    spec.fetches.push_back(ref);
  }
  for (const std::string& name : target_names) {
    Node* node = graph_->FindNode(name);
    if (node == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "Target node '", name, "' is not in the graph"));
    }
    spec.targets.push_back(node);
  }
  // Placement: a run with no node on an IPU runs the graph as it is.
  std::vector<const Node*> needed =
      NeededNodes(spec.feeds, spec.fetches, spec.targets);
  if (AnyNodeRequestsIpu(needed)) {
    RETURN_IF_ERROR(PrepareIpuRun(spec, needed, prepared.get()));
  } else {
    prepared->graph = graph_;
    ASSIGN_OR_RETURN(prepared->executor,
                     Executor::Create(spec, cpu_.get(), resources_.get()));
  }
  for (const TensorRef& ref : spec.feeds) {
    prepared->feeds.push_back(Prepared::Feed{ref.node->name(), ref.node->output_type(ref.index),
                                             ref.node->output_shape(ref.index)});
  }
  return std::shared_ptr<const Prepared>(std::move(prepared));
}

absl::Status DirectSession::PrepareIpuRun(
    const Executor::Spec& spec, const std::vector<const Node*>& needed,
    Prepared* prepared) const {
  ASSIGN_OR_RETURN(Placement placement,
                   PlaceNodes(needed, PlacementEnv::FromIpuSupport()));
  ASSIGN_OR_RETURN(std::shared_ptr<IpuClusterLibrary> library,
                   IpuClusterLibrary::Of(resources_.get()));
  ASSIGN_OR_RETURN(PartitionedRun run,
                   PartitionForIpu(spec, needed, placement, library.get()));
  prepared->graph = std::move(run.graph);
  ASSIGN_OR_RETURN(prepared->executor, Executor::Create(run.spec, cpu_.get(),
                                                        resources_.get()));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const DirectSession::Prepared>>
DirectSession::GetOrPrepare(
    const std::vector<std::pair<std::string, Tensor>>& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names) {
  std::string key;
  for (const auto& in : inputs) absl::StrAppend(&key, in.first, ",");
  key += "|";
  for (const auto& o : output_names) absl::StrAppend(&key, o, ",");
  key += "|";
  for (const auto& t : target_names) absl::StrAppend(&key, t, ",");

  absl::MutexLock lock(&mu_);
  if (closed_) return absl::FailedPreconditionError("Session has been closed");
  if (graph_ == nullptr) {
    return absl::FailedPreconditionError(
        "Session has no graph; call Create with a GraphDef first");
  }
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  ASSIGN_OR_RETURN(std::shared_ptr<const Prepared> prepared,
                   Prepare(inputs, output_names, target_names));
  cache_.emplace(std::move(key), prepared);
  return prepared;
}

absl::Status DirectSession::Run(
    const std::vector<std::pair<std::string, Tensor>>& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names, std::vector<Tensor>* outputs) {
  return Run(RunOptions(), inputs, output_names, target_names, outputs,
             /*run_metadata=*/nullptr);
}

absl::Status DirectSession::Run(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<std::string>& target_names, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata) {
  if (outputs == nullptr && !output_names.empty()) {
    return absl::InvalidArgumentError("outputs is null but fetches were given");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const Prepared> prepared,
                   GetOrPrepare(inputs, output_names, target_names));
  std::vector<Tensor> feed_values;
  feed_values.reserve(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Prepared::Feed& feed = prepared->feeds[k];
    const Tensor& value = inputs[k].second;
    if (value.dtype() != feed.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Feed for '", inputs[k].first, "' has dtype ",
          DataTypeString(value.dtype()), " but '", feed.node_name,
          "' expects ", DataTypeString(feed.dtype)));
    }
    if (!feed.shape.IsCompatibleWith(value.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Feed for '", inputs[k].first, "' has shape ",
          value.shape().DebugString(), ", which is not compatible with the ",
          "shape ", feed.shape.DebugString(), " of '", feed.node_name, "'"));
    }
    feed_values.push_back(value);
  }
  if (run_options.timeout_in_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RunOptions.timeout_in_ms is ", run_options.timeout_in_ms,
        "; give a positive number of milliseconds, or 0 for no timeout"));
  }
  const absl::Time deadline =
      run_options.timeout_in_ms > 0
          ? absl::Now() + absl::Milliseconds(run_options.timeout_in_ms)
          : absl::InfiniteFuture();
  std::vector<Tensor> scratch;
  RunCollector collector(run_options.trace_level > RunOptions::NO_TRACE);
  absl::Status status = prepared->executor->Run(
      feed_values, outputs ? outputs : &scratch, &collector, deadline);
  if (run_metadata != nullptr) *run_metadata = collector.Finish();
  return status;
}

}  // namespace tensorflow_ipu
