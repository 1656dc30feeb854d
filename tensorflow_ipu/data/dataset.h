// Dataset: a host input pipeline with tf.data's stages (FromTensorSlices,
// FromTensors, Range, Zip, Map, Shuffle, Batch, Repeat, Prefetch, Shard,
// Take, Skip), to feed training loops and infeeds.
//
//   ASSIGN_OR_RETURN(Dataset ds, Dataset::FromTensorSlices({images, labels}));
//   ds = ds.Shuffle(/*buffer_size=*/1000, /*seed=*/42)
//          .Batch(32, /*drop_remainder=*/true)
//          .Repeat()
//          .Prefetch(2);
//   ASSIGN_OR_RETURN(auto it, ds.MakeIterator());
//   std::vector<Tensor> batch;  bool end = false;
//   RETURN_IF_ERROR(it->GetNext(&batch, &end));
//
// Datasets are immutable descriptions; each iterator walks its own copy of
// the pipeline. The same seed gives the same order on every run; a shuffle
// followed by Repeat reshuffles each epoch (deterministically).
#ifndef TENSORFLOW_IPU_DATA_DATASET_H_
#define TENSORFLOW_IPU_DATA_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace data {

// One element: a tuple of tensors (e.g. an image and its label).
using Element = std::vector<Tensor>;

// One pass over a dataset. Not thread-safe: one thread at a time calls
// GetNext or GetNextRows (an infeed serialises the runs that read it).
class Iterator {
 public:
  virtual ~Iterator() = default;
  // Sets `*end` at the end of the data (then `out` is untouched).
  virtual absl::Status GetNext(Element* out, bool* end) = 0;
  // Up to `max_rows` next elements stacked along a new first dimension, as
  // Batch stacks them; `*rows` says how many (0 at the end of the data, and
  // then `out` is untouched). InvalidArgument for max_rows below 1, and,
  // naming the component, when two elements' shapes differ.
  absl::Status GetNextRows(int64_t max_rows, Element* out, int64_t* rows);

 protected:
  // GetNextRows for max_rows >= 1. This default stacks what GetNext
  // returns; a stage whose rows lie in one tensor (slices of it) copies
  // them from there.
  virtual absl::Status NextRows(int64_t max_rows, Element* out, int64_t* rows);
};

namespace internal {
class DatasetNode;
}  // namespace internal

class Dataset {
 public:
  static constexpr int64_t kInfinite = -1;
  static constexpr int64_t kUnknown = -2;

  // Elements are the slices of `components` along their first dimension,
  // which must be the same for all. InvalidArgument otherwise.
  static absl::StatusOr<Dataset> FromTensorSlices(std::vector<Tensor> components);
  // One element: the tensors themselves (tf.data.Dataset.from_tensors).
  static absl::StatusOr<Dataset> FromTensors(std::vector<Tensor> components);
  // int64 scalars start, start + step, ... up to (not including) stop, as
  // Python's range. InvalidArgument for a step of 0.
  static Dataset Range(int64_t start, int64_t stop, int64_t step = 1);
  static Dataset Range(int64_t stop) { return Range(0, stop); }
  // Elements whose components are those of one element of each dataset,
  // in order; it ends with the shortest. InvalidArgument if none is given.
  static Dataset Zip(const std::vector<Dataset>& datasets);

  // Each element through `fn`, which returns the new element (or an error,
  // which the iterator returns). Its dtypes and shapes, which infeeds need
  // before the first run, come from `fn` applied once to the first input
  // element when Map is called; every later output must have them
  // (InvalidArgument naming the component otherwise).
  using MapFn = std::function<absl::StatusOr<Element>(const Element&)>;
  Dataset Map(MapFn fn) const;
  // Every num_shards-th element, from element `index` (for one of
  // num_shards workers). InvalidArgument for num_shards < 1 or an index
  // outside [0, num_shards).
  Dataset Shard(int64_t num_shards, int64_t index) const;
  // The first `count` elements (-1: all of them).
  Dataset Take(int64_t count) const;
  // All but the first `count` elements (-1: none).
  Dataset Skip(int64_t count) const;

  // Picks elements at random from a buffer of `buffer_size` (>= 1).
  Dataset Shuffle(int64_t buffer_size, uint64_t seed) const;
  // Stacks `batch_size` (>= 1) consecutive elements along a new first
  // dimension. With drop_remainder the last, smaller batch is dropped, so
  // every batch has a static shape (as infeeds require). A batch that needs
  // more than half of the machine's memory is ResourceExhausted (before
  // anything is collected when the element shapes are known).
  Dataset Batch(int64_t batch_size, bool drop_remainder) const;
  // Repeats the data `count` times (kInfinite: forever).
  Dataset Repeat(int64_t count = kInfinite) const;
  // Produces up to `buffer_size` elements ahead on a background thread.
  Dataset Prefetch(int64_t buffer_size) const;

  // The number of elements, kInfinite or kUnknown.
  int64_t Cardinality() const;
  std::vector<DataType> output_types() const;
  // Shapes of each component; a batch dimension is -1 unless the batch
  // drops its remainder.
  std::vector<TensorShape> output_shapes() const;

  // InvalidArgument when a stage was given a bad argument (a batch or
  // shuffle buffer size below 1): the first such error, naming the stage.
  absl::StatusOr<std::unique_ptr<Iterator>> MakeIterator() const;
  // OK, or the error MakeIterator returns.
  const absl::Status& status() const { return status_; }

 private:
  explicit Dataset(std::shared_ptr<const internal::DatasetNode> node,
                   absl::Status status = absl::OkStatus())
      : node_(std::move(node)), status_(std::move(status)) {}
  // This dataset, or an invalid one carrying `error` if it is not already
  // invalid (the first error wins, as with a Scope's status).
  Dataset WithError(absl::Status error) const;

  // The first error among `datasets` and this one, or OK.
  absl::Status FirstError(const std::vector<Dataset>& datasets) const;

  std::shared_ptr<const internal::DatasetNode> node_;
  absl::Status status_;
};

}  // namespace data
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DATA_DATASET_H_
