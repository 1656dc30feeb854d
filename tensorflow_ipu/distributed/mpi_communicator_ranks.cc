// The communicator over several processes, run by mpi_communicator_test.sh
// under mpirun. Each rank checks what it receives and exits non-zero with a
// message on the first mismatch (which makes mpirun fail the job).
//   mpi_communicator_ranks basic     collectives give the exact results
//   mpi_communicator_ranks timeout   a late instance is named, not waited for
//   mpi_communicator_ranks mismatch  instances at different collectives
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/distributed/mpi_communicator.h"

namespace tensorflow_ipu {
namespace distributed {
namespace {

int failures = 0;
int rank = -1;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "rank " << rank << ": FAILED: " << what << std::endl;
    ++failures;
  }
}

bool Contains(const absl::Status& s, const std::string& text) {
  return s.message().find(text) != absl::string_view::npos;
}

template <typename T>
absl::Span<char> Bytes(std::vector<T>& v) {
  return absl::MakeSpan(reinterpret_cast<char*>(v.data()), v.size() * sizeof(T));
}

// The value of element i on global replica r: magnitudes far apart, so
// that the order of summation shows in the last bits.
float Value(int r, int i) { return (r % 2 == 0 ? 1e7f : 1.f / 3) * (r + 1) * (i + 1); }

void Basic(MpiCommunicator& mpi) {
  const int n = mpi.size();
  // All-gather: each rank's three ints, in rank order.
  std::vector<int32_t> mine = {10 * rank, 10 * rank + 1, 10 * rank + 2};
  std::vector<int32_t> all(3 * n);
  absl::Status s = mpi.AllGather(Bytes(mine), Bytes(all), "gather");
  Check(s.ok(), s.ToString());
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < 3; ++i) Check(all[3 * r + i] == 10 * r + i, "gather element");
  }
  // Broadcast from the last rank.
  std::vector<double> data = {rank == n - 1 ? 2.5 : 0.0, rank == n - 1 ? -7.0 : 0.0};
  s = mpi.Broadcast(Bytes(data), n - 1, "broadcast");
  Check(s.ok() && data[0] == 2.5 && data[1] == -7.0, "broadcast from the last rank " + s.ToString());
  // All-reduce of two local replicas per rank: the result must be the sum
  // over the 2n global replicas in global order, in double, rounded once.
  const int local = 2;
  const int count = 5;
  std::vector<float> values(local * count);
  for (int l = 0; l < local; ++l) {
    for (int i = 0; i < count; ++i) values[l * count + i] = Value(rank * local + l, i);
  }
  std::vector<Eigen::half> halves(values.size());
  std::vector<int32_t> ints(values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    halves[k] = Eigen::half(values[k] / 1e7f);
    ints[k] = static_cast<int32_t>(k) + rank * 100;
  }
  s = mpi.AllReduce(poplar_sim::FLOAT, ReduceOp::kSum, count, local, Bytes(values), "floats");
  Check(s.ok(), s.ToString());
  std::vector<Eigen::half> half_in = halves;
  s = mpi.AllReduce(poplar_sim::HALF, ReduceOp::kMean, count, local, Bytes(halves), "halves");
  Check(s.ok(), s.ToString());
  s = mpi.AllReduce(poplar_sim::INT, ReduceOp::kSum, count, local, Bytes(ints), "ints");
  Check(s.ok(), s.ToString());
  for (int i = 0; i < count; ++i) {
    double sum = 0;
    double half_sum = 0;
    int64_t int_sum = 0;
    for (int r = 0; r < local * n; ++r) {
      sum += Value(r, i);
      half_sum += static_cast<double>(Eigen::half(Value(r, i) / 1e7f));
      int_sum += (r % local) * count + i + (r / local) * 100;
    }
    for (int l = 0; l < local; ++l) {
      Check(values[l * count + i] == static_cast<float>(sum),
            absl::StrCat("float sum of element ", i, ": ", values[l * count + i], " != ",
                         static_cast<float>(sum)));
      Check(halves[l * count + i] == Eigen::half(static_cast<float>(half_sum / (local * n))),
            absl::StrCat("half mean of element ", i));
      Check(ints[l * count + i] == int_sum, absl::StrCat("int sum of element ", i));
    }
  }
  s = mpi.Barrier("end");
  Check(s.ok(), s.ToString());
}

void Timeout(MpiCommunicator& mpi) {
  if (rank == 1) {
    sleep(3);  // arrives after rank 0 gave up
    absl::Status s = mpi.Barrier("late");
    Check(s.ok(), "the late rank's own barrier: " + s.ToString());
    return;
  }
  mpi.set_timeout(absl::Seconds(1));
  absl::Status s = mpi.Barrier("late");
  Check(s.code() == absl::StatusCode::kDeadlineExceeded, "expected a timeout: " + s.ToString());
  Check(Contains(s, "instance 1 did not reach collective #1 'late' within 1s"), s.ToString());
  // Out of step now: refused, not hung.
  s = mpi.Barrier("after");
  Check(s.code() == absl::StatusCode::kFailedPrecondition &&
            Contains(s, "an earlier one failed"),
        "expected the communicator to refuse: " + s.ToString());
}

void Mismatch(MpiCommunicator& mpi) {
  std::vector<char> mine(rank == 0 ? 8 : 4);
  std::vector<char> all(mine.size() * mpi.size());
  absl::Status s = mpi.AllGather(mine, absl::MakeSpan(all), rank == 0 ? "weights" : "grads");
  Check(s.code() == absl::StatusCode::kFailedPrecondition, "expected out of step: " + s.ToString());
  const std::string other = rank == 0 ? "instance 1 sent collective #1 'grads' with 4 bytes"
                                      : "instance 0 sent collective #1 'weights' with 8 bytes";
  Check(Contains(s, other), s.ToString());
}

}  // namespace
}  // namespace distributed
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  using namespace tensorflow_ipu::distributed;  // NOLINT
  absl::StatusOr<MpiCommunicator*> mpi = MpiCommunicator::Get();
  if (!mpi.ok()) {
    std::cerr << mpi.status() << std::endl;
    return 1;
  }
  rank = (*mpi)->rank();
  const std::string mode = argc > 1 ? argv[1] : "basic";
  if (mode == "basic") {
    Basic(**mpi);
  } else if (mode == "timeout") {
    Timeout(**mpi);
  } else if (mode == "mismatch") {
    Mismatch(**mpi);
  } else {
    std::cerr << "unknown mode " << mode << std::endl;
    return 2;
  }
  if (failures == 0) std::cout << "rank " << rank << " of " << (*mpi)->size() << ": OK" << std::endl;
  return failures == 0 ? 0 : 1;
}
