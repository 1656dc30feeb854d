// The host ends of IPU infeeds and outfeeds, by feed name, process-wide (as
// the vendor's feeds are: a name identifies a feed across sessions).
//
// An infeed owns a dataset and an iterator over it; an IPU run that loops
// `n` times takes `n` elements at once and streams them to the device, n
// records read where the dataset produced them. An outfeed collects what device runs sent back
// until the host dequeues it.
//
//   InfeedRegistry::Get().Register("feed", dataset);
//   InfeedRegistry::Get().Reset("feed");   // the feed's initializer
//   ASSIGN_OR_RETURN(std::vector<std::vector<Tensor>> records,
//                    InfeedRegistry::Get().Take("feed", 100));
//   records[c][i]: component c of element i
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_FEEDS_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_FEEDS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/data/dataset.h"

namespace tensorflow_ipu {

class InfeedRegistry {
 public:
  static InfeedRegistry& Get();
  // Registers (or replaces) the dataset of feed `name`. Its element shapes
  // must be fully defined. It gives nothing until Reset (its initializer).
  absl::Status Register(const std::string& name, const data::Dataset& dataset);
  // Starts (or restarts) the iteration from the first element.
  absl::Status Reset(const std::string& name);
  // The next `n` elements, by component: result[c][i] is component c of
  // element i (not stacked: the device reads each in place). OutOfRange
  // saying how many elements were missing when the data ends first;
  // FailedPrecondition when the feed is unknown or was never initialized.
  absl::StatusOr<std::vector<std::vector<Tensor>>> Take(const std::string& name,
                                                       int64_t n);

 private:
  struct Feed {
    data::Dataset dataset;
    std::unique_ptr<data::Iterator> iterator;
    int64_t taken = 0;  // since the last reset
  };
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Feed>> feeds_ ABSL_GUARDED_BY(mu_);
};

class OutfeedRegistry {
 public:
  static OutfeedRegistry& Get();
  // Appends a run's records: each component is [n, ...].
  void Append(const std::string& name, std::vector<Tensor> stacked);
  // Component `index` of everything appended since the last dequeue of that
  // component, concatenated along the first dimension (mode "all"), or the
  // last record (mode "last"). FailedPrecondition if nothing was enqueued.
  absl::StatusOr<Tensor> Dequeue(const std::string& name, int index,
                                 bool last_only);

 private:
  absl::Mutex mu_;
  // name -> component -> pending runs' stacks
  std::map<std::string, std::map<int, std::vector<Tensor>>> pending_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_FEEDS_H_
