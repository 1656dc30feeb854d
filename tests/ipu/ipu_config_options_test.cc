// IPUConfig's options, from configure_ipu_system to the simulator: each
// option that reaches the simulator changes what a run does or reports, and
// the options only recorded change nothing. On the IPU Model and on the
// simulated hardware, where an option applies to both.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ipu::config::DeviceConnectionType;
using ipu::config::IPUConfig;
using ipu::config::SelectionOrder;

fs::path FreshDirectory(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(tmp ? tmp : "/tmp") / name;
  fs::remove_all(dir);
  return dir;
}

// The subdirectories of `dir` holding a profile.txt.
int ReportsIn(const fs::path& dir) {
  int n = 0;
  if (!fs::exists(dir)) return 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    n += fs::exists(e.path() / "profile.txt") ? 1 : 0;
  }
  return n;
}

// -a on /device:IPU:0 of a fresh graph: its value, cycles and profile.
struct NegRun {
  absl::Status status;
  std::string value;
  IpuClusterProfile profile;
};

NegRun RunNeg() {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), a);
  testing::ProfilingSession session(root);
  std::vector<Tensor> out;
  NegRun r;
  r.status = session.Run({{a, {1.f, -2.f}}}, {neg}, &out);
  if (r.status.ok()) {
    r.value = out[0].DebugString();
    r.profile = session.last_profile().clusters.at(0);
  }
  return r;
}

// The parameter: TF_POPLAR_FLAGS ("" for the simulated hardware).
class ConfigOptionsTest : public testing::IpuTest,
                          public ::testing::WithParamInterface<const char*> {
 protected:
  bool ipu_model() const { return std::string(GetParam()) != ""; }
  absl::Status ConfigureWith(IPUConfig cfg) {
    setenv("TF_POPLAR_FLAGS", GetParam(), 1);
    if (cfg.auto_select_ipus.empty()) cfg.auto_select_ipus = 1;
    cfg.ipu_model.tiles_per_ipu = 16;  // the IPU Model's; small and quick
    return cfg.configure_ipu_system();
  }
};

// compilation_poplar_options go to every cluster's engine: here they ask
// for autoReport's files.
TEST_P(ConfigOptionsTest, CompilationPoplarOptionsReachTheEngine) {
  const fs::path dir = FreshDirectory(std::string("cfg_reports") + (ipu_model() ? "_model" : ""));
  IPUConfig cfg;
  cfg.compilation_poplar_options = {{"autoReport.all", "true"},
                                    {"autoReport.directory", dir.string()}};
  absl::Status s = ConfigureWith(cfg);
  ASSERT_TRUE(s.ok()) << s;
  NegRun r = RunNeg();
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.value, "[-1.  2.]");
  EXPECT_EQ(ReportsIn(dir), 1);
}

// NEVER and PRE_COMPILE: the cluster compiles (its report is written) but
// does not run; the device is never attached. Host ops still run.
TEST_P(ConfigOptionsTest, CompileOnlyConnectionsCompileButDoNotRun) {
  for (DeviceConnectionType type :
       {DeviceConnectionType::NEVER, DeviceConnectionType::PRE_COMPILE}) {
    SCOPED_TRACE(ipu::config::DeviceConnectionTypeName(type));
    const fs::path dir = FreshDirectory(
        std::string("cfg_compile_only_") + ipu::config::DeviceConnectionTypeName(type));
    IPUConfig cfg;
    cfg.device_connection.type = type;
    cfg.device_connection.version = "ipu2";
    cfg.compilation_poplar_options = {{"autoReport.all", "true"},
                                      {"autoReport.directory", dir.string()}};
    absl::Status s = ConfigureWith(cfg);
    ASSERT_TRUE(s.ok()) << s;
    NegRun r = RunNeg();
    EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument) << r.status;
    EXPECT_THAT(std::string(r.status.message()),
                HasSubstr("Trying to run an executable on a device that was "
                          "configured for compilation only."));
    EXPECT_EQ(ReportsIn(dir), 1);  // compiled
    absl::StatusOr<poplar_sim::Device> device = ipu::IpuSystem::Get().GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    EXPECT_FALSE(device->isAttached());

    Scope root = Scope::NewRootScope();
    auto host = ops::Neg(root.WithDevice("cpu"), ops::Const(root, {1.f, 2.f}));
    ClientSession session(root);
    std::vector<Tensor> out;
    s = session.Run({host}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].DebugString(), "[-1. -2.]");
  }
}

// ON_DEMAND: nothing attached until the first run needs the device.
TEST_P(ConfigOptionsTest, OnDemandAttachesAtTheFirstRun) {
  logging::ScopedLogCapture log;
  IPUConfig cfg;
  cfg.device_connection.type = DeviceConnectionType::ON_DEMAND;
  absl::Status s = ConfigureWith(cfg);
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<poplar_sim::Device> device = ipu::IpuSystem::Get().GetDevice(0);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_FALSE(device->isAttached());
  EXPECT_FALSE(log.Contains("attached to IPU"));
  NegRun r = RunNeg();
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.value, "[-1.  2.]");
  EXPECT_TRUE(device->isAttached());
  EXPECT_TRUE(log.Contains("Device /device:IPU:0 attached to IPU: "));
}

// A chain of four shards on four IPUs: SNAKE and HOOF lay the shards out so
// that each copy crosses one IPU-Link; ZIGZAG's copy from IPU 1 to IPU 2
// crosses two. The values are the same.
TEST_P(ConfigOptionsTest, SelectionOrderChangesTheLinksTheCopiesCross) {
  auto run = [&](SelectionOrder order) {
    IPUConfig cfg;
    cfg.auto_select_ipus = 4;
    cfg.selection_order = order;
    absl::Status s = ConfigureWith(cfg);
    EXPECT_TRUE(s.ok()) << s;
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                              ops::Placeholder::Shape({256}));
    Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
    Output y = x;
    for (int shard = 0; shard < 4; ++shard) {
      y = ops::Mul(ipu::scopes::ipu_shard(ipu, shard), y, 2.f);
    }
    testing::ProfilingSession session(root);
    std::vector<Tensor> out;
    s = session.Run({{x, Tensor::Vector<float>(std::vector<float>(256, 1.f))}}, {y}, &out);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_EQ(out.at(0).data<float>()[255], 16.f);
    return session.last_profile().clusters.at(0).cycles;
  };
  const uint64_t zigzag = run(SelectionOrder::ZIGZAG);
  const uint64_t snake = run(SelectionOrder::SNAKE);
  const uint64_t hoof = run(SelectionOrder::HOOF);
  const uint64_t automatic = run(SelectionOrder::AUTO);
  absl::StatusOr<poplar_sim::Device> device = ipu::IpuSystem::Get().GetDevice(0);
  ASSERT_TRUE(device.ok()) << device.status();
  const poplar_sim::Target& t = device->getTarget();
  EXPECT_EQ(zigzag - snake, t.ipuLinkTransferCycles(1024, 2) - t.ipuLinkTransferCycles(1024, 1));
  EXPECT_EQ(hoof, snake);
  EXPECT_EQ(automatic, zigzag);  // no pipeline
}

// allow_recompute, enable_remote_buffers and optimizations.* are recorded
// (configuration() has them) and change nothing of a run
// (maximum_cross_replica_sum_buffer_size acts on replicated clusters only:
// replication_test).
TEST_P(ConfigOptionsTest, RecordedOptionsAreKeptAndChangeNothing) {
  absl::Status s = ConfigureWith(IPUConfig());
  ASSERT_TRUE(s.ok()) << s;
  NegRun plain = RunNeg();
  ASSERT_TRUE(plain.status.ok()) << plain.status;

  IPUConfig cfg;
  cfg.allow_recompute = true;
  cfg.device_connection.enable_remote_buffers = true;
  cfg.optimizations.math.fast = true;
  cfg.optimizations.prefetch_data_streams = false;
  cfg.optimizations.merge_infeed_io_copies = true;
  cfg.optimizations.maximum_cross_replica_sum_buffer_size = 10 << 20;
  cfg.optimizations.maximum_inter_ipu_copies_buffer_size = 1 << 20;
  s = ConfigureWith(cfg);
  ASSERT_TRUE(s.ok()) << s;
  std::optional<IPUConfig> applied = ipu::IpuSystem::Get().configuration();
  ASSERT_TRUE(applied.has_value());
  EXPECT_TRUE(applied->allow_recompute);
  EXPECT_TRUE(applied->device_connection.enable_remote_buffers);
  EXPECT_TRUE(applied->optimizations.math.fast);
  EXPECT_FALSE(applied->optimizations.prefetch_data_streams);
  EXPECT_EQ(applied->optimizations.maximum_cross_replica_sum_buffer_size, 10 << 20);
  NegRun recorded = RunNeg();
  ASSERT_TRUE(recorded.status.ok()) << recorded.status;
  EXPECT_EQ(recorded.value, plain.value);
  EXPECT_EQ(recorded.profile.cycles, plain.profile.cycles);
  EXPECT_EQ(recorded.profile.max_tile_bytes, plain.profile.max_tile_bytes);
}

INSTANTIATE_TEST_SUITE_P(Backends, ConfigOptionsTest,
                         ::testing::Values("", "--use_ipu_model"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param).empty()
                                      ? std::string("SimulatedHardware")
                                      : std::string("IpuModel");
                         });

using IpuModelOptionsTest = testing::IpuTest;

// debug.allowOutOfMemory through compilation_poplar_options: a tensor too
// big for a one-tile IPU Model compiles and runs.
TEST_F(IpuModelOptionsTest, AllowOutOfMemoryFromTheConfiguration) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model", 1);
  auto run = [](bool allow) {
    IPUConfig cfg;
    cfg.auto_select_ipus = 1;
    cfg.ipu_model.tiles_per_ipu = 1;
    if (allow) cfg.compilation_poplar_options = {{"debug.allowOutOfMemory", "true"}};
    absl::Status s = cfg.configure_ipu_system();
    EXPECT_TRUE(s.ok()) << s;
    Scope root = Scope::NewRootScope();
    auto big = ops::Placeholder(root.WithDevice("cpu").WithOpName("big"), DT_FLOAT,
                                ops::Placeholder::Shape({200000}));
    auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), big);
    ClientSession session(root);
    std::vector<Tensor> out;
    Tensor ones = Tensor::Vector<float>(std::vector<float>(200000, 1.f));
    s = session.Run({{big, ones}}, {neg}, &out);
    return std::make_pair(s, s.ok() ? out[0].data<float>()[199999] : 0.f);
  };
  absl::Status refused = run(false).first;
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  auto [allowed, last] = run(true);
  ASSERT_TRUE(allowed.ok()) << allowed;
  EXPECT_EQ(last, -1.f);
}

// matmuls.poplar_options reach every multiplication's planner: on a
// 16-tile IPU Model, a budget of 0.4% of a tile's memory for temporary
// values forces a plan that splits the reduction dimension, which costs
// other cycles; the product is the same (to the float rounding of the other
// order of summation).
TEST_F(IpuModelOptionsTest, MatmulOptionsReachThePlanner) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model", 1);
  struct Product {
    absl::Status status;
    std::vector<float> values;
    IpuClusterProfile profile;
  };
  auto multiply = [](std::map<std::string, std::string> matmul_options) {
    Product p;
    IPUConfig cfg;
    cfg.auto_select_ipus = 1;
    cfg.ipu_model.tiles_per_ipu = 16;
    cfg.matmuls.poplar_options = std::move(matmul_options);
    p.status = cfg.configure_ipu_system();
    if (!p.status.ok()) return p;
    Scope root = Scope::NewRootScope();
    std::vector<float> av(24 * 64), bv(64 * 20);
    for (size_t i = 0; i < av.size(); ++i) av[i] = float((i * 7) % 13) - 6;
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = float((i * 5) % 11) * 0.25f;
    auto a = ops::Placeholder(root.WithDevice("cpu").WithOpName("a"), DT_FLOAT,
                              ops::Placeholder::Shape({24, 64}));
    auto b = ops::Placeholder(root.WithDevice("cpu").WithOpName("b"), DT_FLOAT,
                              ops::Placeholder::Shape({64, 20}));
    auto product = ops::MatMul(ipu::scopes::ipu_scope(root, "/device:IPU:0"), a, b);
    testing::ProfilingSession session(root);
    std::vector<Tensor> out;
    p.status = session.Run({{a, *Tensor::FromValues<float>(av, TensorShape({24, 64}))},
                            {b, *Tensor::FromValues<float>(bv, TensorShape({64, 20}))}},
                           {product}, &out);
    if (!p.status.ok()) return p;
    p.values.assign(out[0].data<float>(), out[0].data<float>() + out[0].NumElements());
    p.profile = session.last_profile().clusters.at(0);
    return p;
  };
  Product plain = multiply({});
  ASSERT_TRUE(plain.status.ok()) << plain.status;
  Product tight = multiply({{"availableMemoryProportion", "0.004"}, {"partialsType", "float"}});
  ASSERT_TRUE(tight.status.ok()) << tight.status;
  ASSERT_EQ(tight.values.size(), plain.values.size());
  for (size_t i = 0; i < plain.values.size(); ++i) {
    EXPECT_NEAR(tight.values[i], plain.values[i], 1e-3) << i;
  }
  EXPECT_NE(tight.profile.cycles, plain.profile.cycles);
  Product explicit_default = multiply({{"availableMemoryProportion", "0.6"}});
  ASSERT_TRUE(explicit_default.status.ok()) << explicit_default.status;
  EXPECT_EQ(explicit_default.profile.cycles, plain.profile.cycles);

  // What the planner cannot take is refused when the system is configured.
  absl::Status s = multiply({{"availableMemoryProportion", "0"}}).status;
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("matmuls.poplar_options: availableMemoryProportion must be a number in "
                        "(0, 1], not \"0\""));
  s = multiply({{"partialsType", "half"}}).status;
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("partialsType \"half\" is not simulated"));
  s = multiply({{"availableMemoryProportions", "0.5"}}).status;
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("unknown option \"availableMemoryProportions\""));
}

// convolutions.poplar_options reach the products a convolution is lowered
// to, and matmuls.poplar_options do not: a 1x5x7x16 input and 2x2x16x20
// filter (a 24 x 64 . 64 x 20 product, as in MatmulOptionsReachThePlanner)
// on a 16-tile IPU Model.
TEST_F(IpuModelOptionsTest, ConvolutionOptionsReachTheConvolutionsPlanner) {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model", 1);
  struct Run {
    absl::Status status;
    std::vector<float> values;
    uint64_t cycles = 0;
  };
  auto convolve = [](std::map<std::string, std::string> matmul_options,
                     std::map<std::string, std::string> convolution_options) {
    Run run;
    IPUConfig cfg;
    cfg.auto_select_ipus = 1;
    cfg.ipu_model.tiles_per_ipu = 16;
    cfg.matmuls.poplar_options = std::move(matmul_options);
    cfg.convolutions.poplar_options = std::move(convolution_options);
    run.status = cfg.configure_ipu_system();
    if (!run.status.ok()) return run;
    Scope root = Scope::NewRootScope();
    std::vector<float> xv(5 * 7 * 16), fv(2 * 2 * 16 * 20);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float((i * 7) % 13) - 6;
    for (size_t i = 0; i < fv.size(); ++i) fv[i] = float((i * 5) % 11) * 0.25f;
    auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                              ops::Placeholder::Shape({1, 5, 7, 16}));
    auto f = ops::Placeholder(root.WithDevice("cpu").WithOpName("f"), DT_FLOAT,
                              ops::Placeholder::Shape({2, 2, 16, 20}));
    auto y = ops::Conv2D(ipu::scopes::ipu_scope(root, "/device:IPU:0"), x, f, {1, 1, 1, 1},
                         "VALID");
    testing::ProfilingSession session(root);
    std::vector<Tensor> out;
    run.status = session.Run({{x, *Tensor::FromValues<float>(xv, TensorShape({1, 5, 7, 16}))},
                              {f, *Tensor::FromValues<float>(fv, TensorShape({2, 2, 16, 20}))}},
                             {y}, &out);
    if (!run.status.ok()) return run;
    run.values.assign(out[0].data<float>(), out[0].data<float>() + out[0].NumElements());
    run.cycles = session.last_profile().clusters.at(0).cycles;
    return run;
  };
  const std::map<std::string, std::string> tight = {{"availableMemoryProportion", "0.004"}};
  Run plain = convolve({}, {});
  ASSERT_TRUE(plain.status.ok()) << plain.status;
  Run tight_convolutions = convolve({}, tight);
  ASSERT_TRUE(tight_convolutions.status.ok()) << tight_convolutions.status;
  Run tight_matmuls = convolve(tight, {});
  ASSERT_TRUE(tight_matmuls.status.ok()) << tight_matmuls.status;
  ASSERT_EQ(tight_convolutions.values.size(), plain.values.size());
  for (size_t i = 0; i < plain.values.size(); ++i) {
    EXPECT_NEAR(tight_convolutions.values[i], plain.values[i], 1e-3) << i;
  }
  EXPECT_NE(tight_convolutions.cycles, plain.cycles);
  EXPECT_EQ(tight_matmuls.cycles, plain.cycles);
}

// ipu_model.compile_ipu_code = false: the IPU Model's memory holds no code.
// The simulated hardware always has its code.
TEST_F(IpuModelOptionsTest, CompileIpuCodeCountsCodeInTheModelsMemory) {
  auto max_tile_bytes = [](const char* flags, bool code) {
    setenv("TF_POPLAR_FLAGS", flags, 1);
    IPUConfig cfg;
    cfg.auto_select_ipus = 1;
    cfg.ipu_model.tiles_per_ipu = 4;
    cfg.ipu_model.compile_ipu_code = code;
    absl::Status s = cfg.configure_ipu_system();
    EXPECT_TRUE(s.ok()) << s;
    NegRun r = RunNeg();
    EXPECT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.value, "[-1.  2.]");
    return r.profile.max_tile_bytes;
  };
  EXPECT_LT(max_tile_bytes("--use_ipu_model", false), max_tile_bytes("--use_ipu_model", true));
  EXPECT_EQ(max_tile_bytes("", false), max_tile_bytes("", true));
}

// device_connection.version chooses the simulated system's architecture;
// ipu_model.version the IPU Model's, which device_connection.version leaves
// alone.
TEST_F(IpuModelOptionsTest, VersionsChooseTheArchitecture) {
  auto arch = [](const char* flags, const std::string& connection,
                 const std::string& model) {
    setenv("TF_POPLAR_FLAGS", flags, 1);
    IPUConfig cfg;
    cfg.auto_select_ipus = 1;
    cfg.device_connection.version = connection;
    cfg.ipu_model.version = model;
    absl::Status s = cfg.configure_ipu_system();
    EXPECT_TRUE(s.ok()) << s;
    absl::StatusOr<poplar_sim::Device> d = ipu::IpuSystem::Get().GetDevice(0);
    return d.ok() ? d->getTarget().getTargetArchString() : std::string();
  };
  EXPECT_EQ(arch("", "", "ipu1"), "ipu2");
  EXPECT_EQ(arch("", "ipu1", "ipu2"), "ipu1");
  EXPECT_EQ(arch("--use_ipu_model", "ipu2", "ipu1"), "ipu1");
  EXPECT_EQ(arch("--use_ipu_model", "", "ipu2"), "ipu2");
}

}  // namespace
}  // namespace tensorflow_ipu
