// IPUInfeedQueue and IPUOutfeedQueue: moving data between a host dataset
// and on-device loops (ipu::loops::repeat), as the vendor's TF1 port does.
//
//   ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed,
//                    ipu::IPUInfeedQueue::Create(dataset, "training_feed"));
//   ipu::IPUOutfeedQueue outfeed("loss_feed");
//   auto body = [&](const Scope& s, const std::vector<Output>& carried,
//                   const std::vector<Output>& batch) {   // batch: x, y
//     Output loss = ...;
//     outfeed.enqueue(s, {loss});
//     return std::vector<Output>{};
//   };
//   ... loops::repeat(ipu, 100, body, {}, &infeed) inside compile ...
//   session.Run({}, {}, {infeed.initializer(root)}, nullptr);
//   session.Run({}, {}, {train}, nullptr);             // 100 steps
//   session.Run({outfeed.dequeue(root)[0]}, &out);     // [100] losses
//
// The dataset's element shapes must be fully defined (batch with
// drop_remainder). Each Run of a loop of n iterations takes n elements; a
// dataset that runs out mid-run is an OutOfRange error saying how many
// elements were missing.
#ifndef TENSORFLOW_IPU_IPU_FEEDS_H_
#define TENSORFLOW_IPU_IPU_FEEDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/data/dataset.h"

namespace tensorflow_ipu {
namespace ipu {

class IPUInfeedQueue {
 public:
  // Registers `dataset` under `feed_name` (replacing an earlier feed of
  // that name). InvalidArgument if its shapes are not fully defined. In a
  // multi-process job (docs/distributed.md) every instance creates its
  // infeeds at the same point, and their datasets must have the same
  // number of elements: FailedPrecondition naming each instance's count
  // otherwise, before anything runs.
  static absl::StatusOr<IPUInfeedQueue> Create(const data::Dataset& dataset,
                                               const std::string& feed_name);

  // A host op that (re)starts the dataset from its first element. Called
  // again for the same graph, it returns the same op (the vendor allows one
  // read of `initializer`; the op can be run any number of times).
  Operation initializer(const Scope& scope) const;
  // Inside a loop body: this iteration's element, one Output per component.
  std::vector<Output> dequeue(const Scope& scope) const;

  const std::string& feed_name() const { return feed_name_; }
  const std::vector<DataType>& dtypes() const { return dtypes_; }
  const std::vector<TensorShape>& shapes() const { return shapes_; }

 private:
  IPUInfeedQueue() = default;
  std::string feed_name_;
  std::vector<DataType> dtypes_;
  std::vector<TensorShape> shapes_;
};

enum class OutfeedMode {
  kAll,   // dequeue gives every enqueued element, stacked: [n, ...]
  kLast,  // dequeue gives the last element
};

class IPUOutfeedQueue {
 public:
  explicit IPUOutfeedQueue(std::string feed_name,
                           OutfeedMode mode = OutfeedMode::kAll)
      : feed_name_(std::move(feed_name)), mode_(mode) {}

  // Inside a loop body: sends `values` to the host once per iteration.
  // Records their dtypes and shapes for dequeue. A second enqueue of the
  // feed in one graph is the vendor's InvalidArgument "An outfeed can only
  // be enqueued once.", recorded on the scope.
  Operation enqueue(const Scope& scope, const std::vector<Output>& values);
  // On the host: what the loop runs sent since the last dequeue, one Output
  // per enqueued component. Call after enqueue (before it: InvalidArgument
  // "Trying to dequeue an outfeed which has not been enqueued", recorded on
  // the scope). With R replicas (more IPUs
  // attached than the graph has shards) each element gains a replica
  // dimension: [n, R, ...] in mode ALL, [R, ...] in mode LAST; R is known
  // from the configured IPU system, else the declared rank is unknown.
  std::vector<Output> dequeue(const Scope& scope) const;

  OutfeedMode mode() const { return mode_; }

 private:
  std::string feed_name_;
  OutfeedMode mode_;
  std::string device_;  // the enqueue's device ("/device:IPU:0")
  std::vector<DataType> dtypes_;
  std::vector<TensorShape> shapes_;
};

}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_FEEDS_H_
