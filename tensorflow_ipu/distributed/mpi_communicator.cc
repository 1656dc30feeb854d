#include "tensorflow_ipu/distributed/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace distributed {
namespace {

constexpr int kTag = 7919;
constexpr char kTimeoutVariable[] = "TF_IPU_DISTRIBUTED_TIMEOUT_SECONDS";

// What precedes every message: which collective it belongs to, so that
// instances out of step are reported rather than mixed up.
struct Header {
  uint64_t sequence;
  uint64_t bytes;
  char what[112];
};

Header MakeHeader(uint64_t sequence, uint64_t bytes, const std::string& what) {
  Header h{};
  h.sequence = sequence;
  h.bytes = bytes;
  std::strncpy(h.what, what.c_str(), sizeof(h.what) - 1);
  return h;
}

absl::Status MpiError(int code, const std::string& what) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::InternalError(absl::StrCat("MPI failed in ", what, ": ", text));
}

// Sends still in flight when a collective failed: their buffers must live
// until MPI is done with them (MPI cannot reliably cancel a send).
struct Abandoned {
  std::vector<MPI_Request> requests;
  std::shared_ptr<std::vector<char>> buffer;
};

absl::Mutex registry_mu;
MpiCommunicator* instance ABSL_GUARDED_BY(registry_mu) = nullptr;
bool finalized ABSL_GUARDED_BY(registry_mu) = false;
// A leaf lock: nothing else is taken while it is held.
absl::Mutex abandoned_mu;
std::vector<Abandoned>* abandoned ABSL_GUARDED_BY(abandoned_mu) = nullptr;

absl::StatusOr<absl::Duration> TimeoutFromEnvironment() {
  const char* text = std::getenv(kTimeoutVariable);
  if (text == nullptr) return absl::Seconds(120);
  double seconds = 0;
  if (!absl::SimpleAtod(text, &seconds) || !(seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kTimeoutVariable, "='", text, "' is not a positive number of seconds"));
  }
  return absl::Seconds(seconds);
}

// Waits a little, more the longer a collective has waited: the instances
// may share cores (oversubscribed), so spinning would slow the late one.
void Pause(int round) {
  if (round < 64) return;
  absl::SleepFor(absl::Microseconds(std::min(500, 10 * (round - 63))));
}

}  // namespace

MpiCommunicator::MpiCommunicator(int rank, int size) : rank_(rank), size_(size) {}

absl::StatusOr<MpiCommunicator*> MpiCommunicator::Get() {
  absl::MutexLock lock(&registry_mu);
  if (instance != nullptr) return instance;
  if (finalized) {
    return absl::FailedPreconditionError(
        "MPI was finalised; it cannot start again in this process");
  }
  ASSIGN_OR_RETURN(absl::Duration timeout, TimeoutFromEnvironment());
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    const int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (code != MPI_SUCCESS) return MpiError(code, "MPI_Init_thread");
    if (provided < MPI_THREAD_SERIALIZED) {
      return absl::InternalError(
          "this Open MPI does not support calls from several threads (MPI_THREAD_SERIALIZED)");
    }
    std::atexit(&MpiCommunicator::Finalize);
  }
  // Errors come back as codes (turned into statuses), never abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  instance = new MpiCommunicator(rank, size);
  {
    absl::MutexLock abandoned_lock(&abandoned_mu);
    abandoned = new std::vector<Abandoned>();
  }
  instance->set_timeout(timeout);
  return instance;
}

void MpiCommunicator::Finalize() {
  absl::MutexLock lock(&registry_mu);
  if (finalized) return;
  finalized = true;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return;
  int done = 0;
  MPI_Finalized(&done);
  if (done) return;
  // Give sends of failed collectives a moment to be taken (a late instance
  // may still receive them), then let MPI drop them.
  absl::MutexLock abandoned_lock(&abandoned_mu);
  if (abandoned != nullptr) {
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    for (Abandoned& a : *abandoned) {
      for (MPI_Request& r : a.requests) {
        int complete = 0;
        while (r != MPI_REQUEST_NULL && absl::Now() < deadline) {
          MPI_Test(&r, &complete, MPI_STATUS_IGNORE);
          if (!complete) absl::SleepFor(absl::Milliseconds(1));
        }
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
      }
    }
  }
  MPI_Finalize();
}

void MpiCommunicator::set_timeout(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  timeout_ = timeout;
}

absl::Duration MpiCommunicator::timeout() const {
  absl::MutexLock lock(&mu_);
  return timeout_;
}

absl::Status MpiCommunicator::Exchange(const std::vector<int>& to, absl::Span<const char> send,
                                       const std::vector<int>& from,
                                       std::vector<absl::Span<char>> into,
                                       const std::string& what) {
  if (!broken_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot run collective '", what, "': an earlier one failed (", broken_,
        "), so the instances are out of step; end the job"));
  }
  const uint64_t sequence = ++sequence_;
  const std::string where = absl::StrCat("collective #", sequence, " '", what, "'");
  // Header and payload in one owned buffer: if the collective fails, the
  // sends may outlive the caller's memory.
  auto message = std::make_shared<std::vector<char>>(sizeof(Header) + send.size());
  const Header header = MakeHeader(sequence, send.size(), what);
  std::memcpy(message->data(), &header, sizeof(Header));
  if (!send.empty()) std::memcpy(message->data() + sizeof(Header), send.data(), send.size());
  std::vector<MPI_Request> sends(to.size(), MPI_REQUEST_NULL);
  auto fail = [&](absl::Status status) {
    broken_ = std::string(status.message());
    absl::MutexLock lock(&abandoned_mu);
    if (abandoned != nullptr) abandoned->push_back({sends, message});
    return status;
  };
  for (size_t k = 0; k < to.size(); ++k) {
    const int code = MPI_Isend(message->data(), static_cast<int>(message->size()), MPI_BYTE,
                               to[k], kTag, MPI_COMM_WORLD, &sends[k]);
    if (code != MPI_SUCCESS) return fail(MpiError(code, where));
  }
  std::vector<bool> received(from.size(), false);
  size_t pending = from.size();
  std::vector<char> incoming;
  const absl::Time deadline = absl::Now() + timeout_;
  for (int round = 0; pending > 0; ++round) {
    for (size_t k = 0; k < from.size(); ++k) {
      if (received[k]) continue;
      int flag = 0;
      MPI_Status status;
      int code = MPI_Iprobe(from[k], kTag, MPI_COMM_WORLD, &flag, &status);
      if (code != MPI_SUCCESS) return fail(MpiError(code, where));
      if (!flag) continue;
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      incoming.resize(std::max<size_t>(bytes, sizeof(Header)));
      code = MPI_Recv(incoming.data(), bytes, MPI_BYTE, from[k], kTag, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS) return fail(MpiError(code, where));
      Header theirs;
      std::memcpy(&theirs, incoming.data(), sizeof(Header));
      theirs.what[sizeof(theirs.what) - 1] = '\0';
      if (static_cast<size_t>(bytes) < sizeof(Header) || theirs.sequence != sequence ||
          std::strcmp(theirs.what, header.what) != 0 || theirs.bytes != into[k].size() ||
          static_cast<size_t>(bytes) != sizeof(Header) + theirs.bytes) {
        return fail(absl::FailedPreconditionError(absl::StrCat(
            "instances out of step: instance ", rank_, " is at ", where, " with ",
            into[k].size(), " bytes from each instance, but instance ", from[k],
            " sent collective #", theirs.sequence, " '", theirs.what, "' with ", theirs.bytes,
            " bytes; every instance must run the same collectives in the same order (the same "
            "number of steps, the same graph)")));
      }
      if (theirs.bytes > 0) {
        std::memcpy(into[k].data(), incoming.data() + sizeof(Header), theirs.bytes);
      }
      received[k] = true;
      --pending;
    }
    if (pending == 0) break;
    if (absl::Now() > deadline) {
      std::vector<int> missing;
      for (size_t k = 0; k < from.size(); ++k) {
        if (!received[k]) missing.push_back(from[k]);
      }
      return fail(absl::DeadlineExceededError(absl::StrCat(
          "instance", missing.size() == 1 ? " " : "s ", absl::StrJoin(missing, ", "),
          " did not reach ", where, " within ", absl::FormatDuration(timeout_),
          " (instance ", rank_, " waited); an instance failed, hangs, or runs fewer steps "
          "than the others (", kTimeoutVariable, " sets the timeout)")));
    }
    Pause(round);
  }
  // The others have sent theirs, so they are here too: our sends complete
  // as they receive them.
  for (int round = 0;; ++round) {
    int all = 0;
    const int code = MPI_Testall(static_cast<int>(sends.size()), sends.data(), &all,
                                 MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS) return fail(MpiError(code, where));
    if (all) break;
    if (absl::Now() > deadline) {
      return fail(absl::DeadlineExceededError(absl::StrCat(
          "the other instances did not take instance ", rank_, "'s part of ", where,
          " within ", absl::FormatDuration(timeout_))));
    }
    Pause(round);
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::AllGather(absl::Span<const char> local, absl::Span<char> all,
                                        const std::string& what) {
  if (all.size() != local.size() * size_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AllGather '", what, "': the result holds ", all.size(), " bytes, but ", size_,
        " instances x ", local.size(), " bytes need ", local.size() * size_));
  }
  if (!local.empty()) std::memcpy(all.data() + rank_ * local.size(), local.data(), local.size());
  std::vector<int> peers;
  std::vector<absl::Span<char>> into;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    peers.push_back(r);
    into.push_back(all.subspan(r * local.size(), local.size()));
  }
  absl::MutexLock lock(&mu_);
  return Exchange(peers, local, peers, std::move(into), what);
}

absl::Status MpiCommunicator::Broadcast(absl::Span<char> data, int root,
                                        const std::string& what) {
  if (root < 0 || root >= size_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Broadcast '", what, "' from instance ", root, ": there are ", size_, " instances"));
  }
  std::vector<int> to;
  std::vector<int> from;
  std::vector<absl::Span<char>> into;
  if (rank_ == root) {
    for (int r = 0; r < size_; ++r) {
      if (r != rank_) to.push_back(r);
    }
  } else {
    from.push_back(root);
    into.push_back(data);
  }
  absl::MutexLock lock(&mu_);
  return Exchange(to, rank_ == root ? absl::Span<const char>(data) : absl::Span<const char>(),
                  from, std::move(into), what);
}

absl::Status MpiCommunicator::AllReduce(poplar_sim::Type type, ReduceOp op, size_t count,
                                        unsigned replicas, absl::Span<char> values,
                                        const std::string& what) {
  if (type != poplar_sim::FLOAT && type != poplar_sim::HALF && type != poplar_sim::INT) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AllReduce '", what, "': type ", poplar_sim::typeName(type),
        " is not supported; use float, half or int32"));
  }
  const size_t bytes = count * poplar_sim::typeSize(type);
  if (replicas == 0 || values.size() != bytes * replicas) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AllReduce '", what, "': ", values.size(), " bytes are not ", replicas, " replicas x ",
        count, " elements of ", poplar_sim::typeName(type)));
  }
  std::vector<char> all(values.size() * size_);
  RETURN_IF_ERROR(AllGather(values, absl::MakeSpan(all), what));
  const unsigned total = replicas * size_;
  std::vector<char> result(bytes);
  for (size_t i = 0; i < count; ++i) {
    // The order and precision of poplar_sim's cross-replica reduction.
    double acc = poplar_sim::loadAsDouble(type, all.data(), i);
    for (unsigned r = 1; r < total; ++r) {
      acc += poplar_sim::loadAsDouble(type, all.data() + r * bytes, i);
    }
    if (op == ReduceOp::kMean) acc /= total;
    poplar_sim::storeFromDouble(type, result.data(), i, acc);
  }
  for (unsigned r = 0; r < replicas; ++r) {
    if (bytes > 0) std::memcpy(values.data() + r * bytes, result.data(), bytes);
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::Barrier(const std::string& what) {
  return AllGather({}, {}, what);
}

}  // namespace distributed
}  // namespace tensorflow_ipu
