// DatasetNode: one stage of a Dataset pipeline, shared by the files that
// define stages (dataset.cc: slices, shuffle, batch, repeat, prefetch;
// dataset_transforms.cc: range, from_tensors, zip, map, shard, take, skip).
// Internal to the dataset library.
#ifndef TENSORFLOW_IPU_DATA_DATASET_NODE_H_
#define TENSORFLOW_IPU_DATA_DATASET_NODE_H_

#include <memory>
#include <vector>

#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/data/dataset.h"

namespace tensorflow_ipu {
namespace data {
namespace internal {

// Knows its element spec and makes iterators. Iterators hold their node
// (and so the whole upstream pipeline) alive, so an iterator may outlive the
// Dataset it came from.
class DatasetNode : public std::enable_shared_from_this<DatasetNode> {
 public:
  virtual ~DatasetNode() = default;
  virtual int64_t Cardinality() const = 0;
  virtual std::vector<DataType> types() const = 0;
  virtual std::vector<TensorShape> shapes() const = 0;
  virtual std::unique_ptr<Iterator> MakeIterator() const = 0;
};

// The shared_ptr owning `node`.
template <typename T>
std::shared_ptr<const T> Self(const T* node) {
  return std::static_pointer_cast<const T>(node->shared_from_this());
}

}  // namespace internal
}  // namespace data
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DATA_DATASET_NODE_H_
