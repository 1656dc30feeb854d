// configure_ipu_system over the simulated hardware system and the IPU Model:
// attach lines, device ids in the vendor's numbering, and the errors.
#include "tensorflow_ipu/ipu/ipu_system.h"

#include <cstdlib>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace ipu {
namespace {

class IpuSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("TF_POPLAR_FLAGS");
    IpuSystem::Get().Reset();
  }
  void TearDown() override {
    unsetenv("TF_POPLAR_FLAGS");
    IpuSystem::Get().Reset();
  }
};

TEST_F(IpuSystemTest, OneIpuLogsTheTutorialAttachLine) {
  logging::ScopedLogCapture log;
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_TRUE(log.Contains("Device /device:IPU:0 attached to IPU: 0"));
  EXPECT_EQ(IpuSystem::Get().num_devices(), 1);
  EXPECT_EQ(IpuSystem::Get().GetDevice(0)->getId(), 0u);
}

TEST_F(IpuSystemTest, FourIpusAttachAGroupWithItsOwnId) {
  logging::ScopedLogCapture log;
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 4;
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  poplar_sim::Device d = IpuSystem::Get().GetDevice(0).value();
  EXPECT_EQ(d.getId(), 24u);  // the first group of four in a 16-IPU system
  EXPECT_EQ(d.getDriverIDs().size(), 4u);
  EXPECT_TRUE(log.Contains("Device /device:IPU:0 attached to IPUs: 24"));
}

TEST_F(IpuSystemTest, SeveralDevicesAreDisjoint) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = {2, 2, 1};
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(IpuSystem::Get().num_devices(), 3);
  EXPECT_EQ(IpuSystem::Get().GetDevice(0)->getId(), 16u);
  EXPECT_EQ(IpuSystem::Get().GetDevice(1)->getId(), 17u);
  // IPUs 0-3 are taken by the two pairs, so the single is IPU 4.
  EXPECT_EQ(IpuSystem::Get().GetDevice(2)->getId(), 4u);
  auto missing = IpuSystem::Get().GetDevice(3);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("has 3 IPU device(s)"),
            std::string::npos);
}

TEST_F(IpuSystemTest, ReconfiguringResetsWithAWarning) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 16;
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  logging::ScopedLogCapture log;
  TF_ASSERT_OK(cfg.configure_ipu_system());  // all 16 again: old ones freed
  EXPECT_TRUE(log.Contains("already been configured"));
  EXPECT_EQ(IpuSystem::Get().GetDevice(0)->getId(), 30u);
}

TEST_F(IpuSystemTest, CountErrorsSayHowManyExist) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 32;
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("has 16 IPUs"), std::string::npos) << s;
  cfg.auto_select_ipus = 0;
  EXPECT_EQ(cfg.configure_ipu_system().code(),
            absl::StatusCode::kInvalidArgument);
  cfg.auto_select_ipus = 3;
  s = cfg.configure_ipu_system();
  EXPECT_NE(s.message().find("power of two"), std::string::npos) << s;
  EXPECT_FALSE(IpuSystem::Get().configured());
}

TEST_F(IpuSystemTest, MultiReplicaDistributionNeedsAnIndexInRangeAndAnExchange) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  cfg.experimental.multi_replica_distribution.process_count = 2;
  cfg.experimental.multi_replica_distribution.process_index = 2;
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("process_index 2 of process_count 2 is not a process of the job"),
            std::string::npos) << s;
  cfg.experimental.multi_replica_distribution.process_index = 1;
  s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("process_count 2 but no exchange reaches the other processes"),
            std::string::npos) << s;
  EXPECT_FALSE(IpuSystem::Get().configured());
  // One process needs no exchange.
  cfg.experimental.multi_replica_distribution.process_count = 1;
  cfg.experimental.multi_replica_distribution.process_index = 0;
  TF_EXPECT_OK(cfg.configure_ipu_system());
}

TEST_F(IpuSystemTest, AHostNetworkWithoutBandwidthIsRefused) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  cfg.experimental.multi_replica_distribution.host_network.bytesPerSecond = 0;
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("experimental.multi_replica_distribution.host_network: "
                             "bytesPerSecond 0 and latencySeconds 3e-06 do not describe a network"),
            std::string::npos) << s;
  cfg.experimental.multi_replica_distribution.host_network = {1e9, -1};
  s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_FALSE(IpuSystem::Get().configured());
  cfg.experimental.multi_replica_distribution.host_network = {1e9, 0};
  TF_EXPECT_OK(cfg.configure_ipu_system());
}

TEST_F(IpuSystemTest, NoFreeDeviceLeft) {
  config::IPUConfig cfg;
  cfg.auto_select_ipus = {8, 8, 1};
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("no free device of 1 IPUs"), std::string::npos) << s;
}

TEST_F(IpuSystemTest, SelectIpusByIdAndConflicts) {
  config::IPUConfig cfg;
  cfg.select_ipus = {24};
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_EQ(IpuSystem::Get().GetDevice(0)->getDriverIDs().size(), 4u);
  cfg.select_ipus = {0, 24};  // IPU 0 is inside group 24
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("device 24 cannot be attached"), std::string::npos)
      << s;
  cfg.select_ipus = {99};
  s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  cfg.auto_select_ipus = 1;
  cfg.select_ipus = {0};
  EXPECT_NE(cfg.configure_ipu_system().message().find("both"), std::string::npos);
}

TEST_F(IpuSystemTest, IpuModelFromTheEnvironment) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model --ipu_model_tiles=8", 1);
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 2;
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_TRUE(IpuSystem::Get().uses_ipu_model());
  poplar_sim::Device d = IpuSystem::Get().GetDevice(0).value();
  EXPECT_EQ(d.getTargetType(), poplar_sim::TargetType::IPU_MODEL);
  EXPECT_EQ(d.getTarget().getTilesPerIPU(), 8u);
  EXPECT_EQ(d.getTarget().getNumIPUs(), 2u);
}

TEST_F(IpuSystemTest, UnknownPoplarFlagIsAnError) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_modle", 1);
  config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  absl::Status s = cfg.configure_ipu_system();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--use_ipu_modle"), std::string::npos);
}

TEST_F(IpuSystemTest, NotConfigured) {
  auto d = IpuSystem::Get().GetDevice(0);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(d.status().message().find("configure_ipu_system"), std::string::npos);
}

}  // namespace
}  // namespace ipu
}  // namespace tensorflow_ipu
