#include "tools/poprun/poprun_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace poprun {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ErrorOf(const std::vector<std::string>& args) {
  absl::StatusOr<PoprunOptions> o = ParsePoprunArgs(args);
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << o.status();
  return std::string(o.status().message());
}

TEST(PoprunOptionsTest, ReadsEveryFlagAndStopsAtTheProgram) {
  absl::StatusOr<PoprunOptions> o = ParsePoprunArgs(
      {"--num-instances", "2", "--num-replicas=8", "--ipus-per-replica", "2", "-H", "a,b",
       "--mpi-global-args", "--mca btl self,tcp", "--mpi-local-args=-x PATH -x 'A B'",
       "--only-output-from-instance", "1", "--print-topology", "-vv", "train", "--epochs",
       "3"});
  TF_ASSERT_OK(o);
  EXPECT_EQ(o->num_instances, 2);
  EXPECT_EQ(o->num_replicas, 8);
  EXPECT_EQ(o->ipus_per_replica, 2);
  EXPECT_EQ(o->local_replicas(), 4);
  EXPECT_THAT(o->hosts, ElementsAre("a", "b"));
  EXPECT_EQ(o->instances_per_host(), 1);
  EXPECT_THAT(o->mpi_global_args, ElementsAre("--mca", "btl", "self,tcp"));
  EXPECT_THAT(o->mpi_local_args, ElementsAre("-x", "PATH", "-x", "A B"));
  EXPECT_EQ(o->only_output_from_instance, 1);
  EXPECT_TRUE(o->print_topology);
  EXPECT_EQ(o->verbosity, 2);
  // The program's own options are the program's.
  EXPECT_THAT(o->program, ElementsAre("train", "--epochs", "3"));
}

TEST(PoprunOptionsTest, DefaultsAreOneOfEach) {
  absl::StatusOr<PoprunOptions> o = ParsePoprunArgs({"--", "prog"});
  TF_ASSERT_OK(o);
  EXPECT_EQ(o->num_instances, 1);
  EXPECT_EQ(o->num_replicas, 1);
  EXPECT_EQ(o->ipus_per_replica, 1);
  EXPECT_TRUE(o->hosts.empty());
  EXPECT_THAT(o->program, ElementsAre("prog"));
}

TEST(PoprunOptionsTest, ReplicasNotDivisibleByInstancesNamesBoth) {
  EXPECT_THAT(ErrorOf({"--num-instances", "2", "--num-replicas", "3", "prog"}),
              HasSubstr("--num-replicas 3 is not divisible by --num-instances 2"));
  // Fewer replicas than instances is the same mistake.
  EXPECT_THAT(ErrorOf({"--num-instances", "4", "--num-replicas", "2", "prog"}),
              HasSubstr("--num-replicas 2 is not divisible by --num-instances 4"));
}

TEST(PoprunOptionsTest, InstancesNotDivisibleByHostsNamesBoth) {
  EXPECT_THAT(ErrorOf({"--num-instances", "3", "--num-replicas", "3", "-H", "a,b", "prog"}),
              HasSubstr("--num-instances 3 is not divisible by the 2 hosts of -H"));
}

TEST(PoprunOptionsTest, BadValuesNameTheFlag) {
  EXPECT_THAT(ErrorOf({"--num-instances", "0", "prog"}),
              HasSubstr("--num-instances '0' is not a whole number of at least 1"));
  EXPECT_THAT(ErrorOf({"--num-replicas", "two", "prog"}),
              HasSubstr("--num-replicas 'two'"));
  EXPECT_THAT(ErrorOf({"--ipus-per-replica"}), HasSubstr("--ipus-per-replica needs a value"));
  EXPECT_THAT(ErrorOf({"--only-output-from-instance", "2", "--num-instances", "2",
                       "--num-replicas", "2", "prog"}),
              HasSubstr("--only-output-from-instance 2 is not an instance: there are 2"));
  EXPECT_THAT(ErrorOf({"-H", "a,,b", "prog"}), HasSubstr("-H 'a,,b' is not a comma-separated"));
  EXPECT_THAT(ErrorOf({"-H", "a:4", "prog"}), HasSubstr("-H 'a:4'"));
  EXPECT_THAT(ErrorOf({"--mpi-global-args", "--mca 'btl", "prog"}),
              HasSubstr("--mpi-global-args has an unmatched single quote"));
  EXPECT_THAT(ErrorOf({"--num-instance", "2", "prog"}),
              HasSubstr("unknown option '--num-instance'"));
  EXPECT_THAT(ErrorOf({"--num-instances", "2", "--num-replicas", "2"}),
              HasSubstr("no program to run"));
}

TEST(PoprunOptionsTest, SplitsWordsAsAShellQuotes) {
  absl::StatusOr<std::vector<std::string>> words =
      SplitShellWords("  -x 'A B' \"C \\\"D\\\"\" e\\ f ''  ", "--flag");
  TF_ASSERT_OK(words);
  EXPECT_THAT(*words, ElementsAre("-x", "A B", "C \"D\"", "e f", ""));
  EXPECT_THAT(SplitShellWords("\"open", "--flag").status().message(),
              HasSubstr("--flag has an unmatched double quote"));
}

TEST(PoprunOptionsTest, HelpNeedsNoProgram) {
  absl::StatusOr<PoprunOptions> o = ParsePoprunArgs({"--help"});
  TF_ASSERT_OK(o);
  EXPECT_TRUE(o->help);
  EXPECT_THAT(Usage(), HasSubstr("--num-instances N"));
}

}  // namespace
}  // namespace poprun
}  // namespace tensorflow_ipu
