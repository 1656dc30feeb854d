// set_ipu_config in one process (no mpirun): what it sets from a PopDist
// environment, and the refusal of an environment Open MPI contradicts.
#include "tensorflow_ipu/distributed/popdist_ipu_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace distributed {
namespace popdist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PopDistIpuConfigTest, OutsidePoprunTheConfigurationStaysAsItWas) {
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 4;
  TF_ASSERT_OK(set_ipu_config(&cfg, PopDistEnv{}));
  EXPECT_THAT(cfg.auto_select_ipus.counts(), ElementsAre(4));
  EXPECT_EQ(cfg.experimental.multi_replica_distribution.process_count, 0);
  EXPECT_EQ(cfg.experimental.multi_replica_distribution.exchange, nullptr);
}

TEST(PopDistIpuConfigTest, OneInstanceAttachesItsReplicasIpusWithoutDistribution) {
  PopDistEnv env;
  env.is_popdist_env_set = true;
  env.num_total_replicas = env.num_local_replicas = 2;
  env.num_ipus_per_replica = 2;
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  TF_ASSERT_OK(set_ipu_config(&cfg, env));
  EXPECT_THAT(cfg.auto_select_ipus.counts(), ElementsAre(4));
  EXPECT_EQ(cfg.experimental.multi_replica_distribution.process_count, 0);
}

TEST(PopDistIpuConfigTest, AnEnvironmentOpenMpiContradictsIsRefused) {
  // Two instances claimed, but this process is a singleton (size 1).
  PopDistEnv env;
  env.is_popdist_env_set = true;
  env.num_instances = 2;
  env.instance_index = 1;
  env.num_total_replicas = 2;
  env.replica_index_offset = 1;
  ipu::config::IPUConfig cfg;
  absl::Status s = set_ipu_config(&cfg, env);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(s.message(), HasSubstr("the PopDist environment says instance 1 of 2 but Open "
                                     "MPI says rank 0 of 1; launch the program with tools/poprun"));
}

}  // namespace
}  // namespace popdist
}  // namespace distributed
}  // namespace tensorflow_ipu
