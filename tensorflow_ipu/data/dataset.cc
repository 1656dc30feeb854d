#include "tensorflow_ipu/data/dataset.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor_copy.h"
#include "tensorflow_ipu/data/batch_memory_limit.h"
#include "tensorflow_ipu/data/dataset_node.h"

namespace tensorflow_ipu {
namespace data {
namespace {

// Batches that cannot fit: known before collecting (`collected` < 0), or
// found while collecting, after `collected` elements.
absl::Status BatchTooLarge(int64_t batch_size, uint64_t row_bytes, int64_t collected) {
  const std::string limit = absl::StrCat("the ", internal::MaxBatchBytes(),
                                         " bytes a batch may use (half of this machine's memory)");
  return absl::ResourceExhaustedError(
      collected < 0
          ? absl::StrCat("Batch: a batch of ", batch_size, " elements of ", row_bytes,
                         " bytes each needs more than ", limit, "; use a smaller batch_size")
          : absl::StrCat("Batch: collecting a batch of ", batch_size, " elements passed ",
                         limit, " after ", collected, " elements of ", row_bytes,
                         " bytes; use a smaller batch_size"));
}

using internal::DatasetNode;
using internal::Self;

// Row `i` of `t` (a copy of one slice along dimension 0).
absl::StatusOr<Tensor> Slice0(const Tensor& t, int64_t i) {
  TensorShape shape = t.shape();
  shape.RemoveDim(0);
  Tensor out(t.dtype(), shape);
  const int64_t n = out.NumElements();
  RETURN_IF_ERROR(CopyElements(t, i * n, &out, 0, n));
  return out;
}

class SlicesNode : public DatasetNode {
 public:
  explicit SlicesNode(std::vector<Tensor> components)
      : components_(std::move(components)) {}
  int64_t Cardinality() const override { return components_[0].dim_size(0); }
  std::vector<DataType> types() const override {
    std::vector<DataType> t;
    for (const Tensor& c : components_) t.push_back(c.dtype());
    return t;
  }
  std::vector<TensorShape> shapes() const override {
    std::vector<TensorShape> s;
    for (const Tensor& c : components_) {
      TensorShape shape = c.shape();
      shape.RemoveDim(0);
      s.push_back(shape);
    }
    return s;
  }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const SlicesNode> n) : n_(std::move(n)) {}
      absl::Status GetNext(Element* out, bool* end) override {
        *end = next_ >= n_->Cardinality();
        if (*end) return absl::OkStatus();
        out->clear();
        for (const Tensor& c : n_->components_) {
          ASSIGN_OR_RETURN(Tensor slice, Slice0(c, next_));
          out->push_back(std::move(slice));
        }
        ++next_;
        return absl::OkStatus();
      }
      // The next rows of each component are one block of it: one copy per
      // component instead of a tensor per row and a second copy to stack.
      absl::Status NextRows(int64_t max_rows, Element* out, int64_t* rows) override {
        *rows = std::max<int64_t>(0, std::min(max_rows, n_->Cardinality() - next_));
        if (*rows == 0) return absl::OkStatus();
        std::vector<int64_t> picked(*rows);
        for (int64_t r = 0; r < *rows; ++r) picked[r] = next_ + r;
        next_ += *rows;
        return n_->Gather(picked, out);
      }

     private:
      std::shared_ptr<const SlicesNode> n_;
      int64_t next_ = 0;
    };
    return std::make_unique<It>(Self(this));
  }

  const std::vector<Tensor>& components() const { return components_; }
  // Rows `rows` (in range) of each component, stacked: one copy per run of
  // consecutive rows, or none when they are all one run (a batch of the
  // slices in order): the batch is then Tensor::Slice's part of the
  // component's buffer where it is aligned (a training loop's batches were
  // a copy of 100 KB a step, a tenth of its time).
  absl::Status Gather(const std::vector<int64_t>& rows, Element* out) const {
    Element stacked;
    const int64_t n = static_cast<int64_t>(rows.size());
    bool one_run = n > 0;
    for (int64_t r = 1; r < n && one_run; ++r) one_run = rows[r] == rows[r - 1] + 1;
    for (const Tensor& c : components_) {
      if (one_run && c.dtype() != DT_STRING) {
        ASSIGN_OR_RETURN(Tensor part, c.Slice(rows.front(), rows.front() + n));
        stacked.push_back(std::move(part));
        continue;
      }
      TensorShape shape = c.shape();
      shape.set_dim(0, n);
      ASSIGN_OR_RETURN(Tensor b, Tensor::Create(c.dtype(), shape));
      const int64_t per_row = b.NumElements() / n;
      for (int64_t r = 0; r < n;) {
        int64_t run = 1;
        while (r + run < n && rows[r + run] == rows[r] + run) ++run;
        RETURN_IF_ERROR(CopyElements(c, rows[r] * per_row, &b, r * per_row, run * per_row));
        r += run;
      }
      stacked.push_back(std::move(b));
    }
    *out = std::move(stacked);
    return absl::OkStatus();
  }

 private:
  std::vector<Tensor> components_;
};

// Takes an item of `buffer` at random, its place filled by the last one.
template <typename T>
T TakeAtRandom(std::vector<T>& buffer, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, buffer.size() - 1);
  const size_t i = pick(rng);
  std::swap(buffer[i], buffer.back());
  T item = std::move(buffer.back());
  buffer.pop_back();
  return item;
}

class ShuffleNode : public DatasetNode {
 public:
  ShuffleNode(std::shared_ptr<const DatasetNode> input, int64_t buffer, uint64_t seed)
      : input_(std::move(input)), buffer_(buffer < 1 ? 1 : buffer), seed_(seed) {}
  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::vector<DataType> types() const override { return input_->types(); }
  std::vector<TensorShape> shapes() const override { return input_->shapes(); }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      It(std::shared_ptr<const ShuffleNode> n, uint64_t seed)
          : n_(std::move(n)), input_(n_->input_->MakeIterator()), rng_(seed) {}
      absl::Status GetNext(Element* out, bool* end) override {
        while (!input_done_ && static_cast<int64_t>(buffer_.size()) < n_->buffer_) {
          Element e;
          bool done = false;
          RETURN_IF_ERROR(input_->GetNext(&e, &done));
          if (done) {
            input_done_ = true;
          } else {
            buffer_.push_back(std::move(e));
          }
        }
        *end = buffer_.empty();
        if (*end) return absl::OkStatus();
        *out = TakeAtRandom(buffer_, rng_);
        return absl::OkStatus();
      }

     private:
      std::shared_ptr<const ShuffleNode> n_;
      std::unique_ptr<Iterator> input_;
      std::mt19937_64 rng_;
      std::vector<Element> buffer_;
      bool input_done_ = false;
    };
    // Slices shuffled: the buffer holds row numbers, not copies of the rows
    // (a whole-dataset buffer, as Keras's fit makes, would copy every
    // example into a tensor of its own); the same draws pick the same rows,
    // and a batch copies each picked row once, into the batch.
    class RowsIt : public Iterator {
     public:
      RowsIt(std::shared_ptr<const ShuffleNode> n, std::shared_ptr<const SlicesNode> slices,
             uint64_t seed)
          : n_(std::move(n)), slices_(std::move(slices)), rng_(seed) {}
      absl::Status GetNext(Element* out, bool* end) override {
        int64_t row;
        *end = !NextRow(&row);
        if (*end) return absl::OkStatus();
        out->clear();
        for (const Tensor& c : slices_->components()) {
          ASSIGN_OR_RETURN(Tensor slice, Slice0(c, row));
          out->push_back(std::move(slice));
        }
        return absl::OkStatus();
      }
      absl::Status NextRows(int64_t max_rows, Element* out, int64_t* rows) override {
        std::vector<int64_t> picked;
        for (int64_t row; static_cast<int64_t>(picked.size()) < max_rows && NextRow(&row);) {
          picked.push_back(row);
        }
        *rows = static_cast<int64_t>(picked.size());
        if (*rows == 0) return absl::OkStatus();
        return slices_->Gather(picked, out);
      }

     private:
      // As It::GetNext draws: the buffer refilled from the rows not yet
      // taken, then one taken at random.
      bool NextRow(int64_t* row) {
        while (static_cast<int64_t>(buffer_.size()) < n_->buffer_ &&
               next_ < slices_->Cardinality()) {
          buffer_.push_back(next_++);
        }
        if (buffer_.empty()) return false;
        *row = TakeAtRandom(buffer_, rng_);
        return true;
      }
      std::shared_ptr<const ShuffleNode> n_;
      std::shared_ptr<const SlicesNode> slices_;
      std::mt19937_64 rng_;
      std::vector<int64_t> buffer_;
      int64_t next_ = 0;
    };
    // Each new iterator (each epoch under Repeat) draws a new order from the
    // seed sequence, deterministically.
    uint64_t epoch = epochs_.fetch_add(1);
    const uint64_t seed = seed_ * 0x9E3779B97F4A7C15ull + epoch;
    if (auto slices = std::dynamic_pointer_cast<const SlicesNode>(input_)) {
      return std::make_unique<RowsIt>(Self<ShuffleNode>(this), std::move(slices), seed);
    }
    return std::make_unique<It>(Self<ShuffleNode>(this), seed);
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  int64_t buffer_;
  uint64_t seed_;
  mutable std::atomic<uint64_t> epochs_{0};
};

class BatchNode : public DatasetNode {
 public:
  BatchNode(std::shared_ptr<const DatasetNode> input, int64_t batch, bool drop)
      : input_(std::move(input)), batch_(batch < 1 ? 1 : batch), drop_(drop) {}
  int64_t Cardinality() const override {
    int64_t n = input_->Cardinality();
    if (n < 0) return n;
    return drop_ ? n / batch_ : (n + batch_ - 1) / batch_;
  }
  std::vector<DataType> types() const override { return input_->types(); }
  std::vector<TensorShape> shapes() const override {
    std::vector<TensorShape> s = input_->shapes();
    for (TensorShape& shape : s) shape.InsertDim(0, drop_ ? batch_ : -1);
    return s;
  }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const BatchNode> n)
          : n_(std::move(n)), input_(n_->input_->MakeIterator()) {}
      absl::Status GetNext(Element* out, bool* end) override {
        if (!checked_size_) {
          RETURN_IF_ERROR(n_->CheckSize());
          checked_size_ = true;
        }
        Element batch;
        int64_t rows = 0;
        RETURN_IF_ERROR(input_->GetNextRows(n_->batch_, &batch, &rows));
        *end = rows == 0 || (n_->drop_ && rows < n_->batch_);
        if (!*end) *out = std::move(batch);
        return absl::OkStatus();
      }

     private:
      std::shared_ptr<const BatchNode> n_;
      std::unique_ptr<Iterator> input_;
      bool checked_size_ = false;
    };
    return std::make_unique<It>(Self(this));
  }

 private:
  // Refuses, before collecting anything, a batch whose elements have known
  // shapes and that could not fit in memory: batch_size rows, or the
  // input's number of elements when that is known and smaller (so
  // "Batch(a huge number)" to take a whole finite dataset still works).
  // Elements of unknown shape are checked while they are collected
  // (Iterator::NextRows).
  absl::Status CheckSize() const {
    const uint64_t limit = internal::MaxBatchBytes();
    if (limit == 0) return absl::OkStatus();
    uint64_t row_bytes = 0;
    const std::vector<DataType> types = input_->types();
    const std::vector<TensorShape> shapes = input_->shapes();
    for (size_t c = 0; c < types.size() && c < shapes.size(); ++c) {
      if (!IsValueType(types[c]) || !shapes[c].IsFullyDefined()) return absl::OkStatus();
      const uint64_t n = static_cast<uint64_t>(shapes[c].num_elements());
      const uint64_t size = static_cast<uint64_t>(DataTypeSize(types[c]));
      if (size == 0) return absl::OkStatus();  // strings: sizes vary per element
      // Saturating: a row larger than the limit is refused whatever its size.
      row_bytes = n > limit / size ? limit + 1 : std::min(limit + 1, row_bytes + n * size);
    }
    const int64_t card = input_->Cardinality();
    const int64_t rows = card >= 0 ? std::min(card, batch_) : batch_;
    if (row_bytes > 0 && static_cast<uint64_t>(rows) > limit / row_bytes) {
      return BatchTooLarge(rows, row_bytes, -1);
    }
    return absl::OkStatus();
  }

  std::shared_ptr<const DatasetNode> input_;
  int64_t batch_;
  bool drop_;
};

class RepeatNode : public DatasetNode {
 public:
  RepeatNode(std::shared_ptr<const DatasetNode> input, int64_t count)
      : input_(std::move(input)), count_(count) {}
  int64_t Cardinality() const override {
    int64_t n = input_->Cardinality();
    if (count_ < 0) return n == 0 ? 0 : Dataset::kInfinite;
    if (n < 0) return n;
    return n * count_;
  }
  std::vector<DataType> types() const override { return input_->types(); }
  std::vector<TensorShape> shapes() const override { return input_->shapes(); }
  std::unique_ptr<Iterator> MakeIterator() const override {
    class It : public Iterator {
     public:
      explicit It(std::shared_ptr<const RepeatNode> n)
          : n_(std::move(n)), input_(n_->input_->MakeIterator()) {}
      absl::Status GetNext(Element* out, bool* end) override {
        while (true) {
          if (n_->count_ >= 0 && epoch_ >= n_->count_) {
            *end = true;
            return absl::OkStatus();
          }
          bool done = false;
          RETURN_IF_ERROR(input_->GetNext(out, &done));
          if (!done) {
            produced_in_epoch_ = true;
            *end = false;
            return absl::OkStatus();
          }
          // An empty input repeated forever must end, not spin.
          if (!produced_in_epoch_) {
            *end = true;
            return absl::OkStatus();
          }
          ++epoch_;
          produced_in_epoch_ = false;
          input_ = n_->input_->MakeIterator();
        }
      }

     private:
      std::shared_ptr<const RepeatNode> n_;
      std::unique_ptr<Iterator> input_;
      int64_t epoch_ = 0;
      bool produced_in_epoch_ = false;
    };
    return std::make_unique<It>(Self(this));
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  int64_t count_;
};

class PrefetchNode : public DatasetNode {
 public:
  PrefetchNode(std::shared_ptr<const DatasetNode> input, int64_t buffer)
      : input_(std::move(input)), buffer_(buffer < 1 ? 1 : buffer) {}
  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::vector<DataType> types() const override { return input_->types(); }
  std::vector<TensorShape> shapes() const override { return input_->shapes(); }
  std::unique_ptr<Iterator> MakeIterator() const override {
    // A producer thread fills a bounded queue; the iterator's destructor
    // stops it before the queue goes away.
    class It : public Iterator {
     public:
      It(std::unique_ptr<Iterator> input, int64_t capacity)
          : input_(std::move(input)), capacity_(capacity) {
        producer_ = std::thread([this] { Produce(); });
      }
      ~It() override {
        {
          absl::MutexLock lock(&mu_);
          cancelled_ = true;
        }
        producer_.join();
      }
      absl::Status GetNext(Element* out, bool* end) override {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](It* it) { return !it->queue_.empty() || it->finished_; }, this));
        if (!queue_.empty()) {
          *out = std::move(queue_.front());
          queue_.pop_front();
          *end = false;
          return absl::OkStatus();
        }
        *end = true;
        return status_;
      }

     private:
      void Produce() {
        while (true) {
          {
            absl::MutexLock lock(&mu_);
            mu_.Await(absl::Condition(
                +[](It* it) {
                  return it->cancelled_ ||
                         static_cast<int64_t>(it->queue_.size()) < it->capacity_;
                },
                this));
            if (cancelled_) break;
          }
          Element e;
          bool done = false;
          absl::Status s = input_->GetNext(&e, &done);
          absl::MutexLock lock(&mu_);
          if (!s.ok() || done) {
            status_ = s;
            finished_ = true;
            break;
          }
          queue_.push_back(std::move(e));
        }
        absl::MutexLock lock(&mu_);
        finished_ = true;
      }

      std::unique_ptr<Iterator> input_;
      const int64_t capacity_;
      absl::Mutex mu_;
      std::deque<Element> queue_ ABSL_GUARDED_BY(mu_);
      bool finished_ ABSL_GUARDED_BY(mu_) = false;
      bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
      absl::Status status_ ABSL_GUARDED_BY(mu_);
      std::thread producer_;
    };
    return std::make_unique<It>(input_->MakeIterator(), buffer_);
  }

 private:
  std::shared_ptr<const DatasetNode> input_;
  int64_t buffer_;
};

}  // namespace

absl::Status Iterator::GetNextRows(int64_t max_rows, Element* out, int64_t* rows) {
  if (max_rows < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GetNextRows: max_rows is ", max_rows, "; it must be at least 1"));
  }
  return NextRows(max_rows, out, rows);
}

absl::Status Iterator::NextRows(int64_t max_rows, Element* out, int64_t* rows) {
  std::vector<Element> elements;
  const uint64_t limit = internal::MaxBatchBytes();
  uint64_t collected = 0;
  while (static_cast<int64_t>(elements.size()) < max_rows) {
    Element e;
    bool done = false;
    RETURN_IF_ERROR(GetNext(&e, &done));
    if (done) break;
    // Elements of shapes unknown before they come (BatchNode::CheckSize
    // could not tell): stop before they take the machine's memory.
    uint64_t row_bytes = 0;
    for (const Tensor& t : e) row_bytes += t.TotalBytes() + sizeof(Tensor);
    collected += row_bytes;
    if (limit > 0 && collected > limit) {
      return BatchTooLarge(max_rows, row_bytes, static_cast<int64_t>(elements.size()) + 1);
    }
    if (!elements.empty()) {
      for (size_t c = 0; c < e.size(); ++c) {
        if (e[c].shape() != elements[0][c].shape()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Batch: component ", c, " has shape ", e[c].shape().DebugString(),
              " in one element and ", elements[0][c].shape().DebugString(), " in another"));
        }
      }
    }
    elements.push_back(std::move(e));
  }
  *rows = static_cast<int64_t>(elements.size());
  if (elements.empty()) return absl::OkStatus();
  Element stacked;
  for (size_t c = 0; c < elements[0].size(); ++c) {
    TensorShape shape = elements[0][c].shape();
    shape.InsertDim(0, *rows);
    ASSIGN_OR_RETURN(Tensor batch, Tensor::Create(elements[0][c].dtype(), shape));
    const int64_t n = elements[0][c].NumElements();
    for (int64_t r = 0; r < *rows; ++r) {
      RETURN_IF_ERROR(CopyElements(elements[r][c], 0, &batch, r * n, n));
    }
    stacked.push_back(std::move(batch));
  }
  *out = std::move(stacked);
  return absl::OkStatus();
}

absl::StatusOr<Dataset> Dataset::FromTensorSlices(std::vector<Tensor> components) {
  if (components.empty()) {
    return absl::InvalidArgumentError("FromTensorSlices needs at least one tensor");
  }
  for (size_t i = 0; i < components.size(); ++i) {
    if (components[i].dims() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FromTensorSlices: component ", i, " is a scalar; it needs a first "
          "dimension to slice"));
    }
    if (components[i].dim_size(0) != components[0].dim_size(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FromTensorSlices: component ", i, " has ", components[i].dim_size(0),
          " rows but component 0 has ", components[0].dim_size(0),
          "; all components need the same first dimension"));
    }
  }
  return Dataset(std::make_shared<SlicesNode>(std::move(components)));
}

Dataset Dataset::WithError(absl::Status error) const {
  return Dataset(node_, status_.ok() ? std::move(error) : status_);
}

Dataset Dataset::Shuffle(int64_t buffer_size, uint64_t seed) const {
  if (buffer_size < 1) {
    return WithError(absl::InvalidArgumentError(absl::StrCat(
        "Shuffle: buffer_size is ", buffer_size, "; it must be at least 1")));
  }
  return Dataset(std::make_shared<ShuffleNode>(node_, buffer_size, seed), status_);
}
Dataset Dataset::Batch(int64_t batch_size, bool drop_remainder) const {
  if (batch_size < 1) {
    return WithError(absl::InvalidArgumentError(absl::StrCat(
        "Batch: batch_size is ", batch_size, "; it must be at least 1")));
  }
  return Dataset(std::make_shared<BatchNode>(node_, batch_size, drop_remainder),
                 status_);
}
Dataset Dataset::Repeat(int64_t count) const {
  return Dataset(std::make_shared<RepeatNode>(node_, count), status_);
}
Dataset Dataset::Prefetch(int64_t buffer_size) const {
  return Dataset(std::make_shared<PrefetchNode>(node_, buffer_size), status_);
}
int64_t Dataset::Cardinality() const {
  return status_.ok() ? node_->Cardinality() : kUnknown;
}
std::vector<DataType> Dataset::output_types() const { return node_->types(); }
std::vector<TensorShape> Dataset::output_shapes() const { return node_->shapes(); }

absl::StatusOr<std::unique_ptr<Iterator>> Dataset::MakeIterator() const {
  if (!status_.ok()) return status_;
  return node_->MakeIterator();
}

}  // namespace data
}  // namespace tensorflow_ipu
