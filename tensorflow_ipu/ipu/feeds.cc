#include "tensorflow_ipu/ipu/feeds.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/cc/ops/op_builder.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/runtime/ipu_feeds.h"

namespace tensorflow_ipu {
namespace ipu {
namespace {

// Host ops of the feeds: on the CPU, outside any IPU cluster.
Scope HostScope(const Scope& scope) {
  return scope.WithDevice("/device:CPU:0").WithoutAttrs();
}

}  // namespace

absl::StatusOr<IPUInfeedQueue> IPUInfeedQueue::Create(
    const data::Dataset& dataset, const std::string& feed_name) {
  RETURN_IF_ERROR(InfeedRegistry::Get().Register(feed_name, dataset));
  IPUInfeedQueue q;
  q.feed_name_ = feed_name;
  q.dtypes_ = dataset.output_types();
  q.shapes_ = dataset.output_shapes();
  return q;
}

Operation IPUInfeedQueue::initializer(const Scope& scope) const {
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

Operation IPUOutfeedQueue::enqueue(const Scope& scope,
                                   const std::vector<Output>& values) {
  dtypes_.clear();
  shapes_.clear();
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
    scope.UpdateStatus(absl::FailedPreconditionError(absl::StrCat(
        "Outfeed '", feed_name_, "' has nothing enqueued yet; build the "
        "loop that calls enqueue before dequeue")));
    return out;
  }
  for (size_t k = 0; k < dtypes_.size(); ++k) {
    Operation op = ops::BuildOp(
        HostScope(scope), "IpuOutfeedDequeue", {},
        {{"dtype", MakeAttrValue(dtypes_[k])},
         {"shape", MakeAttrValue(shapes_[k])},
         {"feed_name", MakeAttrValue(feed_name_)},
         {"index", MakeAttrValue(static_cast<int64_t>(k))},
         {"mode", MakeAttrValue(std::string(mode_ == OutfeedMode::kAll ? "all"
                                                                        : "last"))}},
        feed_name_ + "/dequeue");
    out.push_back(op.valid() ? Output(op, 0) : Output());
  }
  return out;
}

}  // namespace ipu
}  // namespace tensorflow_ipu
