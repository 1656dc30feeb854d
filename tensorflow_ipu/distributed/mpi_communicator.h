// The instances of a multi-process job talking over Open MPI: MPI started
// once per process and finished at exit, rank and size, and the collectives
// the distributed glue needs: an all-gather (each instance's bytes, in
// instance order, on every instance), a broadcast from one instance, and an
// all-reduce of float, half and int32 buffers whose result does not depend
// on how many processes take part.
//
//   ASSIGN_OR_RETURN(MpiCommunicator* mpi, MpiCommunicator::Get());
//   std::vector<float> grads = ...;   // this instance's replicas, in order
//   RETURN_IF_ERROR(mpi->AllReduce(poplar_sim::FLOAT, ReduceOp::kSum, ...));
//
// Determinism: MPI_Allreduce's order of summation is unspecified, so 2
// processes x 2 replicas could differ from 1 x 4 in the last bit. Here the
// values of every replica are gathered and every instance reduces them
// itself, in global replica order, in double (as poplar_sim's cross-replica
// reduction does), so results are bit-identical whatever the split.
//
// No hangs: every collective waits at most timeout() for the others; an
// instance that does not arrive makes it DeadlineExceeded naming that
// instance (and the collective's name and number). The instances are then
// out of step, so later collectives are FailedPrecondition; the job should
// end (returning from main with an error makes mpirun end every instance).
// Collectives are point-to-point messages with a header (sequence number,
// size, name), so instances that call different collectives, or one of a
// different size, get FailedPrecondition naming both rather than garbage.
// Collectives of one communicator are serialised (thread-safe).
#ifndef TENSORFLOW_IPU_DISTRIBUTED_MPI_COMMUNICATOR_H_
#define TENSORFLOW_IPU_DISTRIBUTED_MPI_COMMUNICATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "poplar_sim/type.h"

namespace tensorflow_ipu {
namespace distributed {

enum class ReduceOp { kSum, kMean };

class MpiCommunicator {
 public:
  // The process's communicator (MPI_COMM_WORLD), initialising MPI on first
  // use and finalising it at exit. Works without mpirun too (a singleton:
  // size 1). Internal if MPI cannot start.
  static absl::StatusOr<MpiCommunicator*> Get();

  int rank() const { return rank_; }
  int size() const { return size_; }

  // How long a collective waits for the other instances. The default is
  // 120 s (poprun's own timeout), or TF_IPU_DISTRIBUTED_TIMEOUT_SECONDS.
  void set_timeout(absl::Duration timeout);
  absl::Duration timeout() const;

  // `all` gets every instance's `local` (all the same size), in rank order:
  // all.size() == size() x local.size(). `what` names the collective in
  // errors.
  absl::Status AllGather(absl::Span<const char> local, absl::Span<char> all,
                         const std::string& what);
  // `data` of instance `root` is copied into every instance's `data`.
  absl::Status Broadcast(absl::Span<char> data, int root, const std::string& what);
  // `values` holds this instance's `replicas` copies of a buffer of `count`
  // elements of `type` (FLOAT, HALF or INT), one after the other; every
  // copy on every instance gets the sum (or mean) over all replicas of all
  // instances, computed in global replica order (instance 0's replicas
  // first). InvalidArgument for another type or a size that does not match.
  absl::Status AllReduce(poplar_sim::Type type, ReduceOp op, size_t count, unsigned replicas,
                         absl::Span<char> values, const std::string& what);
  absl::Status Barrier(const std::string& what);

  // Finishes MPI (also done at exit); later collectives fail.
  static void Finalize();

 private:
  MpiCommunicator(int rank, int size);
  // Sends `send` to each rank in `to` and receives one message from each
  // rank in `from` into from_buffers (sized by the header), with headers
  // checked. Caller holds mu_.
  absl::Status Exchange(const std::vector<int>& to, absl::Span<const char> send,
                        const std::vector<int>& from, std::vector<absl::Span<char>> into,
                        const std::string& what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int rank_;
  const int size_;
  mutable absl::Mutex mu_;
  absl::Duration timeout_ ABSL_GUARDED_BY(mu_);
  uint64_t sequence_ ABSL_GUARDED_BY(mu_) = 0;
  // Set when a collective failed half way: the instances are out of step.
  std::string broken_ ABSL_GUARDED_BY(mu_);
};

}  // namespace distributed
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_DISTRIBUTED_MPI_COMMUNICATOR_H_
