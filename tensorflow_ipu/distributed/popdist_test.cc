#include "tensorflow_ipu/distributed/popdist.h"

#include <cstdlib>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace distributed {
namespace popdist {
namespace {

using ::testing::HasSubstr;

EnvLookup Fake(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// What tools/poprun gives rank 1 of --num-instances 2 --num-replicas 4.
std::map<std::string, std::string> Rank1Of2With4Replicas() {
  return {{"POPDIST_NUM_TOTAL_REPLICAS", "4"},   {"POPDIST_NUM_LOCAL_REPLICAS", "2"},
          {"POPDIST_NUM_IPUS_PER_REPLICA", "1"}, {"POPDIST_REPLICA_INDEX_OFFSET", "2"},
          {"POPDIST_UNIFORM_REPLICAS_PER_INSTANCE", "1"},
          {"POPDIST_LOCAL_INSTANCE_INDEX", "1"}, {"OMPI_COMM_WORLD_RANK", "1"},
          {"OMPI_COMM_WORLD_SIZE", "2"},         {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
          {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
}

std::string ErrorOf(std::map<std::string, std::string> vars) {
  absl::StatusOr<PopDistEnv> env = ReadPopDistEnv(Fake(std::move(vars)));
  EXPECT_EQ(env.status().code(), absl::StatusCode::kInvalidArgument) << env.status();
  return std::string(env.status().message());
}

TEST(PopDistTest, UnsetEnvironmentIsOneProcessWithOneReplica) {
  absl::StatusOr<PopDistEnv> env = ReadPopDistEnv(Fake({}));
  TF_ASSERT_OK(env);
  EXPECT_FALSE(env->is_popdist_env_set);
  EXPECT_EQ(env->num_instances, 1);
  EXPECT_EQ(env->instance_index, 0);
  EXPECT_EQ(env->num_total_replicas, 1);
  EXPECT_EQ(env->num_local_replicas, 1);
  EXPECT_EQ(env->replica_index_offset, 0);
  EXPECT_EQ(env->num_ipus_per_replica, 1);
}

TEST(PopDistTest, PlainMpirunWithoutPopDistVariablesIsNotSet) {
  absl::StatusOr<PopDistEnv> env =
      ReadPopDistEnv(Fake({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}));
  TF_ASSERT_OK(env);
  EXPECT_FALSE(env->is_popdist_env_set);
  EXPECT_EQ(env->num_instances, 1);
}

TEST(PopDistTest, ReadsWhatPoprunSetsForOneRank) {
  absl::StatusOr<PopDistEnv> env = ReadPopDistEnv(Fake(Rank1Of2With4Replicas()));
  TF_ASSERT_OK(env);
  EXPECT_TRUE(env->is_popdist_env_set);
  EXPECT_EQ(env->num_instances, 2);
  EXPECT_EQ(env->instance_index, 1);
  EXPECT_EQ(env->num_total_replicas, 4);
  EXPECT_EQ(env->num_local_replicas, 2);
  EXPECT_EQ(env->replica_index_offset, 2);
  EXPECT_EQ(env->num_ipus_per_replica, 1);
  EXPECT_EQ(env->local_instance_index, 1);
  EXPECT_EQ(env->num_local_instances, 2);
  EXPECT_EQ(Describe(*env), "instance 1 of 2: replicas [2, 4) of 4, 1 IPU per replica");
}

TEST(PopDistTest, DerivesLocalReplicasAndOffsetFromTheRank) {
  absl::StatusOr<PopDistEnv> env = ReadPopDistEnv(Fake({{"POPDIST_NUM_TOTAL_REPLICAS", "8"},
                                                        {"POPDIST_NUM_IPUS_PER_REPLICA", "2"},
                                                        {"OMPI_COMM_WORLD_RANK", "3"},
                                                        {"OMPI_COMM_WORLD_SIZE", "4"}}));
  TF_ASSERT_OK(env);
  // The vendor's example: 8 replicas over 4 instances, instance 3 runs 2
  // replicas from index 6.
  EXPECT_EQ(env->num_local_replicas, 2);
  EXPECT_EQ(env->replica_index_offset, 6);
  EXPECT_EQ(env->num_ipus_per_replica, 2);
  EXPECT_EQ(Describe(*env), "instance 3 of 4: replicas [6, 8) of 8, 2 IPUs per replica");
}

TEST(PopDistTest, SingletonWithPopDistVariablesIsOneInstance) {
  absl::StatusOr<PopDistEnv> env = ReadPopDistEnv(Fake({{"POPDIST_NUM_TOTAL_REPLICAS", "2"}}));
  TF_ASSERT_OK(env);
  EXPECT_TRUE(env->is_popdist_env_set);
  EXPECT_EQ(env->num_instances, 1);
  EXPECT_EQ(env->num_local_replicas, 2);
}

TEST(PopDistTest, TotalThatIsNotLocalTimesInstancesNamesAllThree) {
  auto vars = Rank1Of2With4Replicas();
  vars["POPDIST_NUM_TOTAL_REPLICAS"] = "6";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_NUM_TOTAL_REPLICAS=6 is not "
                                       "POPDIST_NUM_LOCAL_REPLICAS=2 x OMPI_COMM_WORLD_SIZE=2"));
}

TEST(PopDistTest, TotalNotDivisibleByInstancesIsRefused) {
  EXPECT_THAT(ErrorOf({{"POPDIST_NUM_TOTAL_REPLICAS", "3"},
                       {"OMPI_COMM_WORLD_RANK", "0"},
                       {"OMPI_COMM_WORLD_SIZE", "2"}}),
              HasSubstr("POPDIST_NUM_TOTAL_REPLICAS=3 is not divisible by OMPI_COMM_WORLD_SIZE=2"));
}

TEST(PopDistTest, WrongOffsetNamesTheExpectedOne) {
  auto vars = Rank1Of2With4Replicas();
  vars["POPDIST_REPLICA_INDEX_OFFSET"] = "1";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_REPLICA_INDEX_OFFSET=1 but instance "
                                       "OMPI_COMM_WORLD_RANK=1 with POPDIST_NUM_LOCAL_REPLICAS=2 "
                                       "must start at replica 2"));
}

TEST(PopDistTest, RankBeyondSizeIsRefused) {
  auto vars = Rank1Of2With4Replicas();
  vars["OMPI_COMM_WORLD_RANK"] = "2";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("OMPI_COMM_WORLD_RANK=2 is not below OMPI_COMM_WORLD_SIZE=2"));
}

TEST(PopDistTest, NonNumericValueNamesTheVariable) {
  auto vars = Rank1Of2With4Replicas();
  vars["POPDIST_NUM_IPUS_PER_REPLICA"] = "two";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_NUM_IPUS_PER_REPLICA='two' is not a decimal integer"));
  vars["POPDIST_NUM_IPUS_PER_REPLICA"] = "-1";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_NUM_IPUS_PER_REPLICA='-1'"));
  vars["POPDIST_NUM_IPUS_PER_REPLICA"] = "99999999999";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_NUM_IPUS_PER_REPLICA='99999999999'"));
}

TEST(PopDistTest, ZeroCountsAreRefused) {
  auto vars = Rank1Of2With4Replicas();
  vars["POPDIST_NUM_IPUS_PER_REPLICA"] = "0";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_NUM_IPUS_PER_REPLICA=0 must be at least 1"));
  EXPECT_THAT(ErrorOf({{"POPDIST_NUM_TOTAL_REPLICAS", "0"}}),
              HasSubstr("POPDIST_NUM_TOTAL_REPLICAS=0 must be at least 1"));
}

TEST(PopDistTest, NonUniformLayoutIsRefused) {
  auto vars = Rank1Of2With4Replicas();
  vars["POPDIST_UNIFORM_REPLICAS_PER_INSTANCE"] = "0";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_UNIFORM_REPLICAS_PER_INSTANCE=0"));
}

TEST(PopDistTest, HalfSetContractIsRefused) {
  EXPECT_THAT(ErrorOf({{"POPDIST_NUM_LOCAL_REPLICAS", "2"}, {"POPDIST_REPLICA_INDEX_OFFSET", "2"}}),
              HasSubstr("POPDIST_NUM_LOCAL_REPLICAS, POPDIST_REPLICA_INDEX_OFFSET set but "
                        "POPDIST_NUM_TOTAL_REPLICAS is not"));
}

TEST(PopDistTest, LocalInstanceIndexMustAgreeWithOpenMpi) {
  auto vars = Rank1Of2With4Replicas();
  vars["OMPI_COMM_WORLD_LOCAL_RANK"] = "0";
  EXPECT_THAT(ErrorOf(vars), HasSubstr("POPDIST_LOCAL_INSTANCE_INDEX=1 disagrees with "
                                       "OMPI_COMM_WORLD_LOCAL_RANK=0"));
}

TEST(PopDistTest, GettersReadTheProcessEnvironment) {
  for (const auto& [name, value] : Rank1Of2With4Replicas()) {
    ASSERT_EQ(setenv(name.c_str(), value.c_str(), 1), 0);
  }
  EXPECT_EQ(is_popdist_env_set().value_or(false), true);
  EXPECT_EQ(get_num_instances().value_or(-1), 2);
  EXPECT_EQ(get_instance_index().value_or(-1), 1);
  EXPECT_EQ(get_num_total_replicas().value_or(-1), 4);
  EXPECT_EQ(get_num_local_replicas().value_or(-1), 2);
  EXPECT_EQ(get_replica_index_offset().value_or(-1), 2);
  EXPECT_EQ(get_num_ipus_per_replica().value_or(-1), 1);
  ASSERT_EQ(setenv("POPDIST_NUM_TOTAL_REPLICAS", "5", 1), 0);
  EXPECT_EQ(get_num_instances().status().code(), absl::StatusCode::kInvalidArgument);
  for (const auto& entry : Rank1Of2With4Replicas()) unsetenv(entry.first.c_str());
  EXPECT_EQ(is_popdist_env_set().value_or(true), false);
}

}  // namespace
}  // namespace popdist
}  // namespace distributed
}  // namespace tensorflow_ipu
