#include "tools/bench/ipu_setup.h"

#include <cstdlib>
#include <optional>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/ipu/ipu_system.h"

namespace tfipu_bench {
namespace {

TEST(IpuSetupTest, ConfiguresAndDescribesTheDevice) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model --ipu_model_tiles=8", 1);
  TF_ASSERT_OK(ConfigureBenchIpus(2));
  EXPECT_EQ(IpuSummary(), "IPU: IPU Model, /device:IPU:0 = 2 IPU(s) x 8 tiles");
  unsetenv("TF_POPLAR_FLAGS");
  TF_ASSERT_OK(ConfigureBenchIpus(1));
  EXPECT_TRUE(absl::StrContains(IpuSummary(), "simulated hardware")) << IpuSummary();
  // Another buffer for cross-replica sums is another configuration.
  TF_ASSERT_OK(ConfigureBenchIpus(1, 10 << 20));
  std::optional<tensorflow_ipu::ipu::config::IPUConfig> cfg =
      tensorflow_ipu::ipu::IpuSystem::Get().configuration();
  ASSERT_TRUE(cfg.has_value());
  EXPECT_EQ(cfg->optimizations.maximum_cross_replica_sum_buffer_size, 10 << 20);
  EXPECT_FALSE(ConfigureBenchIpus(3).ok());
}

}  // namespace
}  // namespace tfipu_bench
