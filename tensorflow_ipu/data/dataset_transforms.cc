// The Dataset stages that TF1 programs feed their infeeds with, beside the
// ones in dataset.cc: Range, FromTensors, Zip, Map, Shard, Take and Skip,
// with tf.data's semantics.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/data/dataset_node.h"

namespace tensorflow_ipu {
namespace data {
namespace {

using internal::DatasetNode;
using internal::Self;

// Elements made by a function of the iterator's position (a source that
// holds no iterator of its own).
class GeneratedNode : public DatasetNode {
 public:
  using Make = std::function<Element(int64_t)>;
  GeneratedNode(int64_t count, std::vector<DataType> types, std::vector<TensorShape> shapes,
                Make make)
      : count_(count), types_(std::move(types)), shapes_(std::move(shapes)),
        make_(std::move(make)) {}
  int64_t Cardinality() const override { return count_; }
  std::vector<DataType> types() const override { return types_; }
  std::vector<TensorShape> shapes() const override { return shapes_; }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const GeneratedNode> n) : n_(std::move(n)) {}
      absl::Status GetNext(Element* out, bool* end) override {
        *end = next_ >= n_->count_;
        if (!*end) *out = n_->make_(next_++);
        return absl::OkStatus();
      }

     private:
      std::shared_ptr<const GeneratedNode> n_;
      int64_t next_ = 0;
    };
    return std::make_unique<It>(Self(this));
  }

 private:
  int64_t count_;
  std::vector<DataType> types_;
  std::vector<TensorShape> shapes_;
  Make make_;
};

// The shortest of several cardinalities (infinite counts as longest).
int64_t ShortestCardinality(const std::vector<int64_t>& counts) {
  int64_t shortest = Dataset::kInfinite;
  for (int64_t n : counts) {
    if (n == Dataset::kUnknown) return Dataset::kUnknown;
    if (n >= 0 && (shortest < 0 || n < shortest)) shortest = n;
  }
  return shortest;
}

class ZipNode : public DatasetNode {
 public:
  explicit ZipNode(std::vector<std::shared_ptr<const DatasetNode>> inputs)
      : inputs_(std::move(inputs)) {}
  int64_t Cardinality() const override {
    std::vector<int64_t> counts;
    for (const auto& in : inputs_) counts.push_back(in->Cardinality());
    return ShortestCardinality(counts);
  }
  std::vector<DataType> types() const override {
    std::vector<DataType> t;
    for (const auto& in : inputs_) {
      for (DataType d : in->types()) t.push_back(d);
    }
    return t;
  }
  std::vector<TensorShape> shapes() const override {
    std::vector<TensorShape> s;
    for (const auto& in : inputs_) {
      for (const TensorShape& shape : in->shapes()) s.push_back(shape);
    }
    return s;
  }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const ZipNode> n) : n_(std::move(n)) {
        for (const auto& in : n_->inputs_) inputs_.push_back(in->MakeIterator());
      }
      absl::Status GetNext(Element* out, bool* end) override {
        Element zipped;
        for (auto& in : inputs_) {
          Element e;
          RETURN_IF_ERROR(in->GetNext(&e, end));
          if (*end) return absl::OkStatus();
          for (Tensor& t : e) zipped.push_back(std::move(t));
        }
        *out = std::move(zipped);
        return absl::OkStatus();
      }

     private:
      std::shared_ptr<const ZipNode> n_;
      std::vector<std::unique_ptr<Iterator>> inputs_;
    };
    return std::make_unique<It>(Self(this));
  }

 private:
  std::vector<std::shared_ptr<const DatasetNode>> inputs_;
};

class MapNode : public DatasetNode {
 public:
  MapNode(std::shared_ptr<const DatasetNode> input, Dataset::MapFn fn,
          std::vector<DataType> types, std::vector<TensorShape> shapes)
      : input_(std::move(input)), fn_(std::move(fn)), types_(std::move(types)),
        shapes_(std::move(shapes)) {}
  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::vector<DataType> types() const override { return types_; }
  std::vector<TensorShape> shapes() const override { return shapes_; }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const MapNode> n)
          : n_(std::move(n)), input_(n_->input_->MakeIterator()) {}
      absl::Status GetNext(Element* out, bool* end) override {
        Element e;
        RETURN_IF_ERROR(input_->GetNext(&e, end));
        if (*end) return absl::OkStatus();
        ASSIGN_OR_RETURN(Element mapped, n_->fn_(e));
        RETURN_IF_ERROR(n_->CheckSpec(mapped));
        *out = std::move(mapped);
        return absl::OkStatus();
      }

     private:
      std::shared_ptr<const MapNode> n_;
      std::unique_ptr<Iterator> input_;
    };
    return std::make_unique<It>(Self(this));
  }
  absl::Status CheckSpec(const Element& e) const {
    if (e.size() != types_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Map: the function returned ", e.size(), " component(s), but ", types_.size(),
          " for the first element; return the same components for every element"));
    }
    for (size_t c = 0; c < e.size(); ++c) {
      if (e[c].dtype() != types_[c] || e[c].shape() != shapes_[c]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Map: component ", c, " is ", DataTypeString(e[c].dtype()),
            e[c].shape().DebugString(), " here but was ", DataTypeString(types_[c]),
            shapes_[c].DebugString(), " for the first element; return the same dtypes "
            "and shapes for every element"));
      }
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  Dataset::MapFn fn_;
  std::vector<DataType> types_;
  std::vector<TensorShape> shapes_;
};

// Elements [first, first + count) of the input, every `stride`-th.
class SelectNode : public DatasetNode {
 public:
  SelectNode(std::shared_ptr<const DatasetNode> input, int64_t first, int64_t count,
             int64_t stride)
      : input_(std::move(input)), first_(first), count_(count), stride_(stride) {}
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n == Dataset::kUnknown) return n;
    // Positions first, first + stride, ... below the input's end and
    // within count.
    int64_t available = Dataset::kInfinite;
    if (n >= 0) available = n <= first_ ? 0 : 1 + (n - first_ - 1) / stride_;
    if (count_ < 0) return available;
    return available < 0 ? count_ : std::min(available, count_);
  }
  std::vector<DataType> types() const override { return input_->types(); }
  std::vector<TensorShape> shapes() const override { return input_->shapes(); }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const SelectNode> n)
          : n_(std::move(n)), input_(n_->input_->MakeIterator()) {}
      absl::Status GetNext(Element* out, bool* end) override {
        if (n_->count_ >= 0 && taken_ >= n_->count_) {
          *end = true;
          return absl::OkStatus();
        }
        // Skip to the next selected position.
        // Saturating: a stride near 2^63 must not overflow.
        const int64_t target =
            taken_ == 0 ? n_->first_
                        : (position_ > std::numeric_limits<int64_t>::max() - (n_->stride_ - 1)
                               ? std::numeric_limits<int64_t>::max()
                               : position_ + n_->stride_ - 1);
        while (position_ < target) {
          Element skipped;
          RETURN_IF_ERROR(input_->GetNext(&skipped, end));
          if (*end) return absl::OkStatus();
          ++position_;
        }
        RETURN_IF_ERROR(input_->GetNext(out, end));
        if (*end) return absl::OkStatus();
        ++position_;
        ++taken_;
        return absl::OkStatus();
      }

     private:
      std::shared_ptr<const SelectNode> n_;
      std::unique_ptr<Iterator> input_;
      int64_t position_ = 0;  // input elements consumed
      int64_t taken_ = 0;
    };
    return std::make_unique<It>(Self(this));
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  int64_t first_, count_, stride_;
};

}  // namespace

absl::StatusOr<Dataset> Dataset::FromTensors(std::vector<Tensor> components) {
  if (components.empty()) {
    return absl::InvalidArgumentError("FromTensors needs at least one tensor");
  }
  std::vector<DataType> types;
  std::vector<TensorShape> shapes;
  for (const Tensor& t : components) {
    types.push_back(t.dtype());
    shapes.push_back(t.shape());
  }
  return Dataset(std::make_shared<GeneratedNode>(
      1, std::move(types), std::move(shapes),
      [components = std::move(components)](int64_t) { return components; }));
}

Dataset Dataset::Range(int64_t start, int64_t stop, int64_t step) {
  int64_t count = 0;
  absl::Status status;
  if (step == 0) {
    status = absl::InvalidArgumentError("Range: step must not be 0");
  } else if ((step > 0 && stop > start) || (step < 0 && stop < start)) {
    // Computed in unsigned arithmetic: stop - start may not fit an int64.
    const uint64_t span = step > 0 ? static_cast<uint64_t>(stop) - static_cast<uint64_t>(start)
                                   : static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
    const uint64_t magnitude = step > 0 ? static_cast<uint64_t>(step)
                                        : 0 - static_cast<uint64_t>(step);
    count = static_cast<int64_t>(
        std::min<uint64_t>((span - 1) / magnitude + 1, std::numeric_limits<int64_t>::max()));
  }
  return Dataset(std::make_shared<GeneratedNode>(
                     count, std::vector<DataType>{DT_INT64}, std::vector<TensorShape>{{}},
                     [start, step](int64_t i) {
                       Tensor t(DT_INT64, TensorShape({}));
                       t.data<int64_t>()[0] = static_cast<int64_t>(
                           static_cast<uint64_t>(start) + static_cast<uint64_t>(i) *
                                                              static_cast<uint64_t>(step));
                       return Element{t};
                     }),
                 status);
}

absl::Status Dataset::FirstError(const std::vector<Dataset>& datasets) const {
  if (!status_.ok()) return status_;
  for (const Dataset& d : datasets) {
    if (!d.status_.ok()) return d.status_;
  }
  return absl::OkStatus();
}

Dataset Dataset::Zip(const std::vector<Dataset>& datasets) {
  if (datasets.empty()) {
    return Range(0).WithError(absl::InvalidArgumentError("Zip needs at least one dataset"));
  }
  std::vector<std::shared_ptr<const DatasetNode>> nodes;
  for (const Dataset& d : datasets) nodes.push_back(d.node_);
  return Dataset(std::make_shared<ZipNode>(std::move(nodes)),
                 datasets[0].FirstError(datasets));
}

Dataset Dataset::Map(MapFn fn) const {
  if (!status_.ok()) return *this;
  if (!fn) return WithError(absl::InvalidArgumentError("Map: the function is empty"));
  // The element spec: the function applied to the first element.
  std::vector<DataType> types = node_->types();
  std::vector<TensorShape> shapes = node_->shapes();
  std::unique_ptr<Iterator> it = node_->MakeIterator();
  Element first;
  bool end = false;
  absl::Status s = it->GetNext(&first, &end);
  if (!s.ok()) return WithError(s);
  if (!end) {
    absl::StatusOr<Element> mapped = fn(first);
    if (!mapped.ok()) {
      return WithError(absl::InvalidArgumentError(absl::StrCat(
          "Map: the function failed on the first element: ", mapped.status().message())));
    }
    types.clear();
    shapes.clear();
    for (const Tensor& t : *mapped) {
      types.push_back(t.dtype());
      shapes.push_back(t.shape());
    }
  }
  return Dataset(std::make_shared<MapNode>(node_, std::move(fn), std::move(types),
                                           std::move(shapes)),
                 status_);
}

Dataset Dataset::Shard(int64_t num_shards, int64_t index) const {
  if (num_shards < 1) {
    return WithError(absl::InvalidArgumentError(absl::StrCat(
        "Shard: the number of shards must be greater than zero (currently num_shards = ",
        num_shards, ")")));
  }
  if (index < 0 || index >= num_shards) {
    return WithError(absl::InvalidArgumentError(absl::StrCat(
        "Shard: the index must be between 0 and ", num_shards - 1, " (currently index = ",
        index, ")")));
  }
  return Dataset(std::make_shared<SelectNode>(node_, index, -1, num_shards), status_);
}

Dataset Dataset::Take(int64_t count) const {
  return Dataset(std::make_shared<SelectNode>(node_, 0, count < 0 ? -1 : count, 1), status_);
}

Dataset Dataset::Skip(int64_t count) const {
  // -1 skips everything, as tf.data's skip(-1), without reading anything:
  // reading an infinite input to its end would never return.
  if (count < 0) return Dataset(std::make_shared<SelectNode>(node_, 0, 0, 1), status_);
  return Dataset(std::make_shared<SelectNode>(node_, count, -1, 1), status_);
}

}  // namespace data
}  // namespace tensorflow_ipu
