#include "tensorflow_ipu/runtime/ipu_feeds.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

// Concatenates along the first dimension.
absl::StatusOr<Tensor> Concat(const std::vector<Tensor>& parts) {
  int64_t rows = 0;
  for (const Tensor& p : parts) rows += p.dim_size(0);
  std::vector<int64_t> dims(parts[0].shape().dim_sizes().begin(),
                            parts[0].shape().dim_sizes().end());
  dims[0] = rows;
  ASSIGN_OR_RETURN(Tensor out, Tensor::Create(parts[0].dtype(), TensorShape(dims)));
  char* dst = static_cast<char*>(out.raw_data());
  for (const Tensor& p : parts) {
    if (p.TotalBytes() > 0) std::memcpy(dst, p.raw_data(), p.TotalBytes());
    dst += p.TotalBytes();
  }
  return out;
}

}  // namespace

InfeedRegistry& InfeedRegistry::Get() {
  static InfeedRegistry* r = new InfeedRegistry;
  return *r;
}

absl::Status InfeedRegistry::Register(const std::string& name,
                                      const data::Dataset& dataset) {
  RETURN_IF_ERROR(dataset.status());
  for (const TensorShape& s : dataset.output_shapes()) {
    if (!s.IsFullyDefined()) {
      // The vendor's words, naming the infeed.
      return absl::InvalidArgumentError(absl::StrCat(
          "Output shape ", s.DebugString(), " of infeed '", name,
          "' is not fully defined. If using tf.Dataset.batch, set "
          "`drop_remainder=True`."));
    }
  }
  // No iterator until the initializer runs (Reset): as in the vendor's
  // port, a loop that reads the feed before that is an error.
  auto feed = std::make_unique<Feed>(Feed{dataset, nullptr, 0});
  absl::MutexLock lock(&mu_);
  feeds_[name] = std::move(feed);
  return absl::OkStatus();
}

absl::Status InfeedRegistry::Reset(const std::string& name) {
  absl::MutexLock lock(&mu_);
  auto it = feeds_.find(name);
  if (it == feeds_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Infeed '", name, "' does not exist; create an IPUInfeedQueue "
        "with that feed name first"));
  }
  ASSIGN_OR_RETURN(it->second->iterator, it->second->dataset.MakeIterator());
  it->second->taken = 0;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<Tensor>>> InfeedRegistry::Take(
    const std::string& name, int64_t n) {
  absl::MutexLock lock(&mu_);
  auto it = feeds_.find(name);
  if (it == feeds_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Infeed '", name, "' does not exist; create an IPUInfeedQueue "
        "with that feed name and run its initializer first"));
  }
  Feed& feed = *it->second;
  if (feed.iterator == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Infeed '", name, "' has not been initialized: run its initializer "
        "(session.Run of infeed_queue.initializer) before the loop that "
        "reads it"));
  }
  std::vector<data::Element> elements;
  for (int64_t i = 0; i < n; ++i) {
    data::Element e;
    bool end = false;
    RETURN_IF_ERROR(feed.iterator->GetNext(&e, &end));
    if (end) {
      return absl::OutOfRangeError(absl::StrCat(
          "Infeed '", name, "' ran out of data: this run's loop needs ", n,
          " elements, but only ", i, " were left (", feed.taken + i,
          " taken since the initializer), ", n - i,
          " short. Make the dataset's size a multiple of the loop's "
          "iterations, or Repeat() it"));
    }
    elements.push_back(std::move(e));
  }
  feed.taken += n;
  std::vector<std::vector<Tensor>> by_component(elements.empty() ? 0 : elements[0].size());
  for (size_t c = 0; c < by_component.size(); ++c) {
    by_component[c].reserve(elements.size());
    for (data::Element& e : elements) by_component[c].push_back(std::move(e[c]));
  }
  return by_component;
}

OutfeedRegistry& OutfeedRegistry::Get() {
  static OutfeedRegistry* r = new OutfeedRegistry;
  return *r;
}

void OutfeedRegistry::Append(const std::string& name,
                             std::vector<Tensor> stacked) {
  absl::MutexLock lock(&mu_);
  for (size_t c = 0; c < stacked.size(); ++c) {
    pending_[name][static_cast<int>(c)].push_back(std::move(stacked[c]));
  }
}

absl::StatusOr<Tensor> OutfeedRegistry::Dequeue(const std::string& name,
                                                int index, bool last_only) {
  std::vector<Tensor> parts;
  {
    absl::MutexLock lock(&mu_);
    auto& component = pending_[name][index];
    parts.swap(component);
  }
  if (parts.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Outfeed '", name, "' has no data: run the IPU loop that enqueues "
        "to it before dequeuing"));
  }
  if (!last_only) return Concat(parts);
  const Tensor& last = parts.back();
  const int64_t rows = last.dim_size(0);
  std::vector<int64_t> dims(last.shape().dim_sizes().begin() + 1,
                            last.shape().dim_sizes().end());
  ASSIGN_OR_RETURN(Tensor out, Tensor::Create(last.dtype(), TensorShape(dims)));
  if (out.TotalBytes() > 0) {
    std::memcpy(out.raw_data(),
                static_cast<const char*>(last.raw_data()) +
                    (rows - 1) * out.TotalBytes(),
                out.TotalBytes());
  }
  return out;
}

}  // namespace tensorflow_ipu
