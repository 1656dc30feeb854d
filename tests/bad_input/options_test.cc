// IPUConfig options with bad values: an unknown Poplar option (named, with
// the known ones listed), Poplar option values of the wrong kind, unknown
// versions, a compile-only connection without a version, an IPU Model
// without a version, negative sizes, enum values out of range, planner
// options the simulator cannot take, a host network without bandwidth; and a run on
// a device configured for compilation only. Each is InvalidArgument naming
// the option and what it accepts; a failed configure_ipu_system changes
// nothing, and a rejected run leaves the session working once the system is
// configured to run.
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using ipu::config::DeviceConnectionType;
using ipu::config::IPUConfig;

class BadOptionsTest : public testing::IpuTest {
 protected:
  void SetUp() override {
    IpuTest::SetUp();
    Configure(1);
  }

  // -a on /device:IPU:0 in `session`'s graph `root`.
  static void ExpectRuns(const Scope& root, const ClientSession& session) {
    auto a = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                              ops::Placeholder::Shape({2}));
    auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), a);
    std::vector<Tensor> out;
    absl::Status s = session.Run({{a, {1.f, -2.f}}}, {neg}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].DebugString(), "[-1.  2.]");
  }

  // `cfg` (with one IPU) fails with InvalidArgument and `words`; the earlier
  // configuration stays, and runs.
  static void ExpectRefused(IPUConfig cfg, const std::string& words) {
    if (cfg.auto_select_ipus.empty()) cfg.auto_select_ipus = 1;
    const std::optional<IPUConfig> before = ipu::IpuSystem::Get().configuration();
    absl::Status s = cfg.configure_ipu_system();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(words));
    ASSERT_TRUE(ipu::IpuSystem::Get().configured());
    std::optional<IPUConfig> after = ipu::IpuSystem::Get().configuration();
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(after->compilation_poplar_options, before->compilation_poplar_options);
    Scope root = Scope::NewRootScope();
    ClientSession session(root);
    ExpectRuns(root, session);
  }
};

TEST_F(BadOptionsTest, UnknownPoplarOptionIsNamedWithTheKnownOnes) {
  IPUConfig cfg;
  cfg.compilation_poplar_options = {{"opt.enableMagic", "true"}};
  ExpectRefused(cfg,
                "compilation_poplar_options: Unrecognised engine option "
                "'opt.enableMagic'. Known options: autoReport.all, "
                "autoReport.directory,");
}

TEST_F(BadOptionsTest, PoplarOptionValuesOfTheWrongKind) {
  IPUConfig cfg;
  cfg.compilation_poplar_options = {{"debug.allowOutOfMemory", "yes"}};
  ExpectRefused(cfg,
                "compilation_poplar_options: Option 'debug.allowOutOfMemory' "
                "must be \"true\" or \"false\", not \"yes\"");
  cfg.compilation_poplar_options = {{"debug.maxTraceEvents", "-5"}};
  ExpectRefused(cfg, "Option 'debug.maxTraceEvents' must be a non-negative integer");
}

TEST_F(BadOptionsTest, PlannerOptionsTheSimulatorCannotTake) {
  IPUConfig cfg;
  cfg.matmuls.poplar_options = {{"availableMemoryProportion", "1.5"}};
  ExpectRefused(cfg, "matmuls.poplar_options: availableMemoryProportion must be a number in "
                     "(0, 1], not \"1.5\"");
  cfg.matmuls.poplar_options = {{"availableMemoryProportion", "nan"}};
  ExpectRefused(cfg, "availableMemoryProportion must be a number in (0, 1], not \"nan\"");
  cfg.matmuls.poplar_options = {{"partialsType", "double"}};
  ExpectRefused(cfg, "matmuls.poplar_options: partialsType must be \"float\" or \"half\"");
  cfg.matmuls.poplar_options = {};
  cfg.convolutions.poplar_options = {{"use128BitConvUnitLoad", "true"}};
  ExpectRefused(cfg, "convolutions.poplar_options: unknown option \"use128BitConvUnitLoad\"; "
                     "the simulator's planner takes availableMemoryProportion and partialsType");
}

// The host network of a multi-process job, for the cost model.
TEST_F(BadOptionsTest, AHostNetworkThatIsNoNetwork) {
  IPUConfig cfg;
  const double inf = std::numeric_limits<double>::infinity();
  for (const poplar_sim::HostNetwork& bad :
       {poplar_sim::HostNetwork{inf, 3e-6}, poplar_sim::HostNetwork{-1, 3e-6},
        poplar_sim::HostNetwork{12.5e9, std::numeric_limits<double>::quiet_NaN()},
        poplar_sim::HostNetwork{12.5e9, -inf}}) {
    cfg.experimental.multi_replica_distribution.host_network = bad;
    ExpectRefused(cfg, "experimental.multi_replica_distribution.host_network: bytesPerSecond");
  }
}

TEST_F(BadOptionsTest, UnknownVersions) {
  IPUConfig cfg;
  cfg.device_connection.version = "ipu3";
  ExpectRefused(cfg,
                "device_connection.version = \"ipu3\" is not valid; accepted "
                "values: \"ipu1\", \"ipu2\" or \"\"");
  IPUConfig model;
  model.ipu_model.version = "gc200x";
  ExpectRefused(model,
                "ipu_model.version = \"gc200x\" is not valid; accepted values: "
                "\"ipu1\", \"ipu2\" or \"\"");
}

TEST_F(BadOptionsTest, CompileOnlyConnectionsNeedAVersion) {
  for (DeviceConnectionType type :
       {DeviceConnectionType::NEVER, DeviceConnectionType::PRE_COMPILE}) {
    IPUConfig cfg;
    cfg.device_connection.type = type;
    ExpectRefused(cfg,
                  "device_connection.version must be set when "
                  "device_connection.type is DeviceConnectionType.NEVER or "
                  "DeviceConnectionType.PRE_COMPILE");
  }
}

TEST_F(BadOptionsTest, TheIpuModelNeedsAVersion) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  IPUConfig cfg;
  cfg.ipu_model.version = "";
  ExpectRefused(cfg, "ipu_model.version must be set when using the IPUModel");
}

TEST_F(BadOptionsTest, NegativeSizes) {
  IPUConfig cfg;
  cfg.optimizations.maximum_cross_replica_sum_buffer_size = -1;
  ExpectRefused(cfg,
                "optimizations.maximum_cross_replica_sum_buffer_size = -1 is not "
                "valid; accepted values: a size in bytes or elements >= 0");
  IPUConfig blocks;
  blocks.optimizations.cholesky_block_size = -8;
  ExpectRefused(blocks, "optimizations.cholesky_block_size = -8 is not valid");
  IPUConfig tiles;
  tiles.ipu_model.tiles_per_ipu = -1;
  ExpectRefused(tiles,
                "ipu_model.tiles_per_ipu = -1: give a positive number of tiles, "
                "or 0 for the architecture's full count");
}

TEST_F(BadOptionsTest, EnumValuesOutOfRange) {
  IPUConfig cfg;
  cfg.selection_order = static_cast<ipu::config::SelectionOrder>(9);
  ExpectRefused(cfg,
                "selection_order = 9 is not valid; accepted values: "
                "SelectionOrder::AUTO, ZIGZAG, SNAKE or HOOF");
  IPUConfig connection;
  connection.device_connection.type = static_cast<DeviceConnectionType>(-1);
  ExpectRefused(connection,
                "device_connection.type = -1 is not valid; accepted values: "
                "DeviceConnectionType::ALWAYS, ON_DEMAND, PRE_COMPILE or NEVER");
}

// A run on a device configured for compilation only is refused with the
// vendor's error, every time; configured to run, the same session runs.
TEST_F(BadOptionsTest, RunningOnACompileOnlyDevice) {
  IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  cfg.device_connection.type = DeviceConnectionType::NEVER;
  cfg.device_connection.version = "ipu2";
  absl::Status s = cfg.configure_ipu_system();
  ASSERT_TRUE(s.ok()) << s;
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithDevice("cpu"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), a);
  ClientSession session(root);
  std::vector<Tensor> out;
  for (int attempt = 0; attempt < 2; ++attempt) {
    s = session.Run({{a, {1.f, 2.f}}}, {neg}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("Trying to run an executable on a device that was "
                          "configured for compilation only. /device:IPU:0 has "
                          "device_connection.type NEVER"));
  }
  Configure(1);
  s = session.Run({{a, {1.f, 2.f}}}, {neg}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].DebugString(), "[-1. -2.]");
}

}  // namespace
}  // namespace tensorflow_ipu
