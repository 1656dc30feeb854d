#include "tools/bench/ipu_setup.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(IpuSetupTest, ConfiguresAndDescribesTheDevice) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model --ipu_model_tiles=8", 1);
  ASSERT_TRUE(ConfigureBenchIpus(2).ok());
  EXPECT_EQ(IpuSummary(), "IPU: IPU Model, /device:IPU:0 = 2 IPU(s) x 8 tiles");
  unsetenv("TF_POPLAR_FLAGS");
  ASSERT_TRUE(ConfigureBenchIpus(1).ok());
  EXPECT_TRUE(absl::StrContains(IpuSummary(), "simulated hardware")) << IpuSummary();
  EXPECT_FALSE(ConfigureBenchIpus(3).ok());
}

}  // namespace
}  // namespace tfipu_bench
