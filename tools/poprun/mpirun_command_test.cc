#include "tools/poprun/mpirun_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace poprun {
namespace {

PoprunOptions Parse(const std::vector<std::string>& args) {
  absl::StatusOr<PoprunOptions> o = ParsePoprunArgs(args);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.value_or(PoprunOptions{});
}

std::string Env(int total, int local, int ipus, int offset, int local_index) {
  return absl::StrCat("-x POPDIST_NUM_TOTAL_REPLICAS=", total,
                      " -x POPDIST_NUM_LOCAL_REPLICAS=", local,
                      " -x POPDIST_NUM_IPUS_PER_REPLICA=", ipus,
                      " -x POPDIST_UNIFORM_REPLICAS_PER_INSTANCE=1"
                      " -x POPDIST_REPLICA_INDEX_OFFSET=", offset,
                      " -x POPDIST_LOCAL_INSTANCE_INDEX=", local_index);
}

TEST(MpirunCommandTest, OneContextPerInstanceWithItsOwnOffset) {
  PoprunOptions o = Parse({"--num-instances", "2", "--num-replicas", "4", "prog", "--x", "1"});
  EXPECT_EQ(absl::StrJoin(BuildMpirunCommand(o, {/*is_root=*/false, /*cores=*/2}), " "),
            absl::StrCat("mpirun --tag-output --bind-to none -np 1 ", Env(4, 2, 1, 0, 0),
                         " prog --x 1 : -np 1 ", Env(4, 2, 1, 2, 1), " prog --x 1"));
}

TEST(MpirunCommandTest, RootAndMoreInstancesThanCoresAddWhatOpenMpiNeeds) {
  PoprunOptions o = Parse({"--num-instances", "4", "--num-replicas", "4", "prog"});
  const std::vector<std::string> argv = BuildMpirunCommand(o, {/*is_root=*/true, /*cores=*/2});
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], "mpirun");
  EXPECT_EQ(argv[1], "--allow-run-as-root");
  EXPECT_EQ(argv[2], "--oversubscribe");
  EXPECT_EQ(std::count(argv.begin(), argv.end(), ":"), 3);
  EXPECT_THAT(absl::StrJoin(argv, " "), ::testing::HasSubstr(Env(4, 1, 1, 3, 3) + " prog"));
  // As many instances as cores: mpirun has the slots.
  const std::vector<std::string> fits = BuildMpirunCommand(o, {/*is_root=*/false, /*cores=*/4});
  EXPECT_EQ(std::count(fits.begin(), fits.end(), "--oversubscribe"), 0);
}

TEST(MpirunCommandTest, HostsGetEqualSlotsAndGlobalThenLocalArgs) {
  PoprunOptions o = Parse({"--num-instances", "4", "--num-replicas", "8", "--ipus-per-replica",
                           "2", "-H", "node1,node2", "--mpi-global-args",
                           "--mca btl_tcp_if_include eno1", "--mpi-local-args", "-x PATH",
                           "prog"});
  const std::string line =
      absl::StrJoin(BuildMpirunCommand(o, {/*is_root=*/false, /*cores=*/1}), " ");
  // No --oversubscribe: the hosts' slots are explicit.
  EXPECT_EQ(line, absl::StrCat("mpirun --tag-output --bind-to none -H node1:2,node2:2 "
                               "--mca btl_tcp_if_include eno1 -np 1 ",
                               Env(8, 2, 2, 0, 0), " -x PATH prog : -np 1 ",
                               Env(8, 2, 2, 2, 1), " -x PATH prog : -np 1 ",
                               Env(8, 2, 2, 4, 0), " -x PATH prog : -np 1 ",
                               Env(8, 2, 2, 6, 1), " -x PATH prog"));
}

TEST(MpirunCommandTest, OnlyOutputFromInstanceSilencesTheOthers) {
  PoprunOptions o = Parse({"--num-instances", "2", "--num-replicas", "2",
                           "--only-output-from-instance", "1", "prog"});
  const std::string line =
      absl::StrJoin(BuildMpirunCommand(o, {/*is_root=*/false, /*cores=*/2}), " ");
  EXPECT_EQ(line, absl::StrCat("mpirun --tag-output --bind-to none -np 1 ", Env(2, 1, 1, 0, 0),
                               " /bin/sh -c exec \"$@\" >/dev/null 2>&1 poprun-quiet-instance "
                               "prog : -np 1 ",
                               Env(2, 1, 1, 1, 1), " prog"));
}

TEST(MpirunCommandTest, TopologyNamesHostsReplicasAndIpus) {
  PoprunOptions o = Parse({"--num-instances", "4", "--num-replicas", "8", "--ipus-per-replica",
                           "2", "-H", "node1,node2", "prog"});
  EXPECT_EQ(Topology(o),
            "4 instances, 8 replicas, 2 IPUs per replica\n"
            "instance 0 on node1: replicas [0, 2) of 8, IPUs 0-3 (2 per replica)\n"
            "instance 1 on node1: replicas [2, 4) of 8, IPUs 0-3 (2 per replica)\n"
            "instance 2 on node2: replicas [4, 6) of 8, IPUs 0-3 (2 per replica)\n"
            "instance 3 on node2: replicas [6, 8) of 8, IPUs 0-3 (2 per replica)\n");
}

TEST(MpirunCommandTest, ShellJoinQuotesWhatNeedsIt) {
  EXPECT_EQ(ShellJoin({"mpirun", "-x", "A=b c", "it's", ""}),
            "mpirun -x 'A=b c' 'it'\\''s' ''");
}

}  // namespace
}  // namespace poprun
}  // namespace tensorflow_ipu
