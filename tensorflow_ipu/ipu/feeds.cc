#include "tensorflow_ipu/ipu/feeds.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/runtime/ipu_feeds.h"

namespace tensorflow_ipu {
namespace ipu {
namespace {

// Host ops of the feeds: on the CPU, outside any IPU cluster.
Scope HostScope(const Scope& scope) {
  return scope.WithDevice("/device:CPU:0").WithoutAttrs();
}

// In a job of several processes (multi-replica distribution) every
// instance must feed its replicas the same number of elements: an instance
// that runs out first would leave the others waiting for it in the next
// cross-replica reduction. The instances create their infeeds at the same
// point of the same program, so they compare lengths there, before the
// first step. A length that cannot be known without reading the data
// (kUnknown) is not compared; then the reduction's timeout names the
// instance that stopped.
absl::Status CheckSameLengthOnEveryInstance(const data::Dataset& dataset,
                                            const std::string& feed_name) {
  std::optional<config::IPUConfig> cfg = IpuSystem::Get().configuration();
  if (!cfg.has_value()) return absl::OkStatus();
  const config::MultiReplicaDistributionConfig& job = cfg->experimental.multi_replica_distribution;
  if (job.process_count <= 1 || job.exchange == nullptr) return absl::OkStatus();
  const int64_t mine = dataset.Cardinality();
  std::vector<int64_t> lengths(job.process_count);
  RETURN_IF_ERROR(job.exchange->allGather(
      absl::MakeConstSpan(reinterpret_cast<const char*>(&mine), sizeof(mine)),
      absl::MakeSpan(reinterpret_cast<char*>(lengths.data()), lengths.size() * sizeof(int64_t)),
      absl::StrCat("the length of infeed '", feed_name, "'")));
  auto describe = [](int64_t n) {
    return n == data::Dataset::kInfinite ? std::string("infinite") : absl::StrCat(n);
  };
  for (int i = 0; i < job.process_count; ++i) {
    if (lengths[i] == data::Dataset::kUnknown) return absl::OkStatus();
  }
  for (int i = 1; i < job.process_count; ++i) {
    if (lengths[i] == lengths[0]) continue;
    std::vector<std::string> all;
    for (int64_t n : lengths) all.push_back(describe(n));
    return absl::FailedPreconditionError(absl::StrCat(
        "The dataset of infeed '", feed_name, "' has ", describe(lengths[0]),
        " elements on instance 0 but ", describe(lengths[i]), " on instance ", i,
        " (instances 0 to ", job.process_count - 1, ": ", absl::StrJoin(all, ", "),
        "). Every instance of a multi-process job must run the same number of steps, "
        "or the others would wait for the one that ran out in a cross-replica "
        "reduction; give each instance an equal share (Shard(num_instances, index) "
        "of a dataset the instances divide evenly, or Take the shortest share's length)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<IPUInfeedQueue> IPUInfeedQueue::Create(
    const data::Dataset& dataset, const std::string& feed_name) {
  RETURN_IF_ERROR(CheckSameLengthOnEveryInstance(dataset, feed_name));
  RETURN_IF_ERROR(InfeedRegistry::Get().Register(feed_name, dataset));
  IPUInfeedQueue q;
  q.feed_name_ = feed_name;
  q.dtypes_ = dataset.output_types();
  q.shapes_ = dataset.output_shapes();
  return q;
}

namespace {

// The first node of `graph` running `op` for feed `feed_name`, or nullptr.
Node* FindFeedOp(const Graph& graph, const std::string& op,
                 const std::string& feed_name) {
  for (const auto& node : graph.nodes()) {
    if (node == nullptr || node->op() != op) continue;
    auto it = node->def().attr().find("feed_name");
    if (it != node->def().attr().end() && it->second.s() == feed_name) {
      return node.get();
    }
  }
  return nullptr;
}

}  // namespace

Operation IPUInfeedQueue::initializer(const Scope& scope) const {
  // The vendor's `initializer` may be read once per queue, because each
  // read would make another device iterator. Here the op only restarts the
  // feed's host iterator, so a second call gives the first call's op: the
  // same graph, and no error for code that asks twice.
  if (!scope.ok()) return Operation();
  if (Node* existing = FindFeedOp(*scope.graph(), "IpuInfeedInitializer", feed_name_)) {
    return Operation(existing);
  }
  return ops::BuildOp(HostScope(scope), "IpuInfeedInitializer", {},
                      {{"feed_name", MakeAttrValue(feed_name_)}},
                      feed_name_ + "/initializer");
}

std::vector<Output> IPUInfeedQueue::dequeue(const Scope& scope) const {
  std::vector<Output> out;
  for (size_t k = 0; k < dtypes_.size(); ++k) {
    Operation op = ops::BuildOp(
        scope, "IpuInfeedDequeue", {},
        {{"dtype", MakeAttrValue(dtypes_[k])},
         {"shape", MakeAttrValue(shapes_[k])},
         {"feed_name", MakeAttrValue(feed_name_)},
         {"index", MakeAttrValue(static_cast<int64_t>(k))}},
        feed_name_ + "/dequeue");
    out.push_back(op.valid() ? Output(op, 0) : Output());
  }
  return out;
}

namespace {

// The replication factor the clusters on `device` will have, as the
// compiler decides it (shard_assignment.h): the device's IPUs divided by
// the shard count of the ops placed there (largest _ipu_shard + 1, rounded
// up to a power of two). 0 when it cannot be known yet (no IPU system
// configured, or an enqueue not under ipu_scope).
int64_t ReplicationFactor(const Graph& graph, const std::string& device) {
  absl::StatusOr<DeviceName> name = ParseDeviceName(device);
  if (!name.ok() || name->type != "IPU" || !IpuSystem::Get().configured()) return 0;
  absl::StatusOr<poplar_sim::Device> d = IpuSystem::Get().GetDevice(name->id);
  if (!d.ok()) return 0;
  int64_t max_shard = 0;
  for (const auto& node : graph.nodes()) {
    if (node == nullptr || node->requested_device().type != "IPU" ||
        node->requested_device().id != name->id) {
      continue;
    }
    auto it = node->def().attr().find(kShardAttr);
    if (it != node->def().attr().end()) max_shard = std::max(max_shard, it->second.i());
  }
  int64_t shards = 1;
  while (shards < max_shard + 1) shards *= 2;
  const int64_t ipus = d->getTarget().getNumIPUs();
  return ipus % shards == 0 ? ipus / shards : 0;
}

}  // namespace

Operation IPUOutfeedQueue::enqueue(const Scope& scope,
                                   const std::vector<Output>& values) {
  if (!scope.ok()) return Operation();
  if (Node* earlier = FindFeedOp(*scope.graph(), "IpuOutfeedEnqueue", feed_name_)) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "An outfeed can only be enqueued once. Outfeed '", feed_name_,
        "' is already enqueued in this graph by '", earlier->name(),
        "'; enqueue all its values in one call, or use another "
        "IPUOutfeedQueue with another feed name")));
    return Operation();
  }
  dtypes_.clear();
  shapes_.clear();
  device_ = scope.device();
  std::vector<Operation> ops;
  for (size_t k = 0; k < values.size(); ++k) {
    if (!values[k].valid()) continue;
    dtypes_.push_back(values[k].type());
    shapes_.push_back(values[k].shape());
    ops.push_back(ops::BuildOp(scope, "IpuOutfeedEnqueue", {values[k]},
                               {{"feed_name", MakeAttrValue(feed_name_)},
                                {"index", MakeAttrValue(static_cast<int64_t>(k))}},
                               feed_name_ + "/enqueue"));
  }
  if (ops.size() == 1) return ops[0];
  return ops::NoOp(scope.WithControlDependencies(ops).WithOpName(feed_name_ +
                                                                 "/enqueued"));
}

std::vector<Output> IPUOutfeedQueue::dequeue(const Scope& scope) const {
  std::vector<Output> out;
  if (dtypes_.empty()) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "Trying to dequeue an outfeed which has not been enqueued: outfeed '",
        feed_name_, "'. Build the loop that calls enqueue before dequeue")));
    return out;
  }
  const int64_t replicas = ReplicationFactor(*scope.graph(), device_);
  for (size_t k = 0; k < dtypes_.size(); ++k) {
    Operation op = ops::BuildOp(
        HostScope(scope), "IpuOutfeedDequeue", {},
        {{"dtype", MakeAttrValue(dtypes_[k])},
         {"shape", MakeAttrValue(shapes_[k])},
         {"feed_name", MakeAttrValue(feed_name_)},
         {"index", MakeAttrValue(static_cast<int64_t>(k))},
         {"mode", MakeAttrValue(std::string(mode_ == OutfeedMode::kAll ? "all"
                                                                        : "last"))},
         {"replication_factor", MakeAttrValue(replicas)}},
        feed_name_ + "/dequeue");
    out.push_back(op.valid() ? Output(op, 0) : Output());
  }
  return out;
}

}  // namespace ipu
}  // namespace tensorflow_ipu
