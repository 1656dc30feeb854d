// The communicator as a singleton (one process, no mpirun): collectives
// over one instance, and the argument checks. The multi-process behaviour
// is tested by mpi_communicator_ranks.cc under mpirun.
#include "tensorflow_ipu/distributed/mpi_communicator.h"

#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace distributed {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

MpiCommunicator* Mpi() {
  absl::StatusOr<MpiCommunicator*> mpi = MpiCommunicator::Get();
  EXPECT_TRUE(mpi.ok()) << mpi.status();
  return mpi.value_or(nullptr);
}

TEST(MpiCommunicatorTest, SingletonIsRankZeroOfOne) {
  MpiCommunicator* mpi = Mpi();
  ASSERT_NE(mpi, nullptr);
  EXPECT_EQ(mpi->rank(), 0);
  EXPECT_EQ(mpi->size(), 1);
  // The same communicator every time.
  EXPECT_EQ(MpiCommunicator::Get().value_or(nullptr), mpi);
}

TEST(MpiCommunicatorTest, AllGatherAndBroadcastOfOneInstance) {
  MpiCommunicator* mpi = Mpi();
  ASSERT_NE(mpi, nullptr);
  std::vector<char> local = {'a', 'b'};
  std::vector<char> all(2);
  TF_ASSERT_OK(mpi->AllGather(local, absl::MakeSpan(all), "gather"));
  EXPECT_THAT(all, ElementsAre('a', 'b'));
  TF_ASSERT_OK(mpi->Broadcast(absl::MakeSpan(local), 0, "broadcast"));
  EXPECT_THAT(local, ElementsAre('a', 'b'));
  TF_ASSERT_OK(mpi->Barrier("barrier"));
}

TEST(MpiCommunicatorTest, AllReduceSumsLocalReplicasInOrderInDouble) {
  MpiCommunicator* mpi = Mpi();
  ASSERT_NE(mpi, nullptr);
  // Three replicas of two floats. In float, (1e8 + 1) + (-1e8) is 0; in
  // double, in replica order, it is 1.
  std::vector<float> values = {1e8f, 2.f, 1.f, 3.f, -1e8f, 4.f};
  TF_ASSERT_OK(mpi->AllReduce(poplar_sim::FLOAT, ReduceOp::kSum, 2, 3,
                              absl::MakeSpan(reinterpret_cast<char*>(values.data()),
                                             values.size() * sizeof(float)),
                              "sum"));
  EXPECT_THAT(values, ElementsAre(1.f, 9.f, 1.f, 9.f, 1.f, 9.f));
  std::vector<int32_t> ints = {1, 2, 4, 7};
  TF_ASSERT_OK(mpi->AllReduce(poplar_sim::INT, ReduceOp::kMean, 1, 4,
                              absl::MakeSpan(reinterpret_cast<char*>(ints.data()),
                                             ints.size() * sizeof(int32_t)),
                              "mean"));
  // 14 / 4 = 3.5, converted as static_cast does.
  EXPECT_THAT(ints, ElementsAre(3, 3, 3, 3));
}

TEST(MpiCommunicatorTest, BadArgumentsNameTheCollective) {
  MpiCommunicator* mpi = Mpi();
  ASSERT_NE(mpi, nullptr);
  std::vector<char> buffer(8);
  absl::Status s = mpi->AllReduce(poplar_sim::BOOL, ReduceOp::kSum, 8, 1,
                                  absl::MakeSpan(buffer), "flags");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("AllReduce 'flags': type bool is not supported"));
  s = mpi->AllReduce(poplar_sim::FLOAT, ReduceOp::kSum, 3, 1, absl::MakeSpan(buffer), "grads");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("8 bytes are not 1 replicas x 3 elements of float"));
  s = mpi->Broadcast(absl::MakeSpan(buffer), 1, "weights");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("Broadcast 'weights' from instance 1: there are 1"));
  std::vector<char> small(4);
  s = mpi->AllGather(buffer, absl::MakeSpan(small), "sizes");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // The communicator still works after refusing them.
  TF_EXPECT_OK(mpi->Barrier("after errors"));
}

}  // namespace
}  // namespace distributed
}  // namespace tensorflow_ipu
