#include "tensorflow_ipu/distributed/broadcast_variables.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace distributed {

absl::StatusOr<VariableBroadcast> VariableBroadcast::Create(const Scope& root,
                                                            std::vector<Variable> variables) {
  VariableBroadcast b;
  for (size_t k = 0; k < variables.size(); ++k) {
    const Variable& v = variables[k];
    if (!v.valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "VariableBroadcast: variable ", k, " of ", variables.size(), " is not a variable"));
    }
    if (v.dtype() == DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "VariableBroadcast: variable '", v.name(), "' holds strings; only numeric "
          "variables can be broadcast"));
    }
    Scope s = root.NewSubScope(absl::StrCat("broadcast_from_instance_0/", v.name()));
    Entry e;
    e.variable = v;
    e.read = v.value(s.WithOpName("read"));
    e.placeholder = ops::Placeholder(s.WithOpName("value"), v.dtype(),
                                     ops::Placeholder::Shape(v.shape()));
    e.assign = v.assign(s.WithOpName("assign"), e.placeholder);
    b.entries_.push_back(std::move(e));
  }
  RETURN_IF_ERROR(root.status());
  return b;
}

absl::Status VariableBroadcast::Run(const ClientSession& session, MpiCommunicator& mpi) const {
  std::vector<Tensor> values;
  if (mpi.rank() == 0) {
    std::vector<Output> reads;
    for (const Entry& e : entries_) reads.push_back(e.read);
    RETURN_IF_ERROR(session.Run(reads, &values));
  } else {
    for (const Entry& e : entries_) {
      ASSIGN_OR_RETURN(Tensor t, Tensor::Create(e.variable.dtype(), e.variable.shape()));
      values.push_back(std::move(t));
    }
  }
  ClientSession::FeedType feeds;
  std::vector<Operation> assigns;
  for (size_t k = 0; k < entries_.size(); ++k) {
    Tensor& t = values[k];
    RETURN_IF_ERROR(mpi.Broadcast(
        absl::MakeSpan(static_cast<char*>(t.raw_data()), t.TotalBytes()), 0,
        absl::StrCat("initial value of '", entries_[k].variable.name(), "'")));
    feeds.emplace(entries_[k].placeholder, t);
    assigns.push_back(entries_[k].assign);
  }
  if (mpi.rank() == 0) return absl::OkStatus();
  return session.Run(feeds, {}, assigns, nullptr);
}

}  // namespace distributed
}  // namespace tensorflow_ipu
