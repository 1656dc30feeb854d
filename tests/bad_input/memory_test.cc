// Graphs that do not fit in IPU memory: one tensor too big for the tile it
// lives on, and a graph whose tensors together are too big for the device
// (and the same graph fitting once its temporaries may share memory).
// Each is a ResourceExhausted naming the tile and its largest users, as the
// vendor's tools report it, and the session and the device keep working.
#include <chrono>
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

// Bytes of memory per tile of an Mk2 (GC200) IPU.
constexpr int64_t kBytesPerTile = 638976;

class BadMemoryTest : public testing::IpuTest {
 protected:
  // Runs a small graph on /device:IPU:0 in `session`: it still works.
  static void ExpectStillWorks(const Scope& root, const ClientSession& session) {
    auto small = ops::Placeholder(root.WithDevice("cpu").WithOpName("small"),
                                  DT_FLOAT, ops::Placeholder::Shape({2}));
    auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), small);
    std::vector<Tensor> out;
    absl::Status s = session.Run({{small, {1.f, 2.f}}}, {neg}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].DebugString(), "[-1. -2.]");
  }
};

TEST_F(BadMemoryTest, TensorTooBigForItsTile) {
  // One tile: the whole of a 200,000-float tensor (800,000 bytes) lands on it.
  Configure(1, "--use_ipu_model --ipu_model_tiles=1");
  Scope root = Scope::NewRootScope();
  auto big = ops::Placeholder(root.WithDevice("cpu").WithOpName("big"),
                              DT_FLOAT, ops::Placeholder::Shape({200000}));
  auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), big);
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run(
      {{big, Tensor(DT_FLOAT, TensorShape({200000}))}}, {neg}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(absl::StrCat("Out of memory on tile 0: ")));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(absl::StrCat(kBytesPerTile, " available (IPU 0, tile 0 "
                                                    "of that IPU; 1 tile(s) over "
                                                    "in total)")));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Largest users on that tile: variable 'big:0': 800000 "
                        "bytes"));
  ExpectStillWorks(root, session);
}

// x: a fed float[100000]; returns the eleven tensors of
// neg_k = Neg(neg_(k-1)), neg_0 = Neg(x), each placed on the IPU.
std::vector<Output> NegChainOnTheIpu(const Scope& root, Output* x) {
  *x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                        ops::Placeholder::Shape({100000}));
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  std::vector<Output> chain;
  Output y = *x;
  for (int k = 0; k < 11; ++k) {
    y = ops::Neg(ipu.WithOpName(absl::StrCat("neg", k)), y);
    chain.push_back(y);
  }
  return chain;
}

TEST_F(BadMemoryTest, GraphTooBigForTheDevice) {
  // Four tiles; each [100000] float tensor puts 100,000 bytes on every tile,
  // which fits, but the chain's twelve tensors together do not: every one
  // is fetched, so all are live at the end of the run.
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  Output x;
  std::vector<Output> all = NegChainOnTheIpu(root, &x);
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run(
      {{x, Tensor(DT_FLOAT, TensorShape({100000}))}}, all, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("Out of memory on tile "));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("4 tile(s) over in total). Largest users on that tile: "
                        "variable '"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("neg"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("or use more IPUs"));
  // Nothing was left loaded or half-compiled: a graph that fits still runs.
  ExpectStillWorks(root, session);
}

// The same chain with only its end fetched fits: each intermediate is
// written whole before it is read and is dead after its one reader, so
// they share memory (poplar_sim/variable_liveness.h), as Poplar's
// temporaries do.
TEST_F(BadMemoryTest, ChainOfTemporariesSharesMemory) {
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  Output x;
  const Output y = NegChainOnTheIpu(root, &x).back();
  ClientSession session(root);
  Tensor feed(DT_FLOAT, TensorShape({100000}));
  for (int i = 0; i < 100000; ++i) feed.data<float>()[i] = static_cast<float>(i % 7);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, feed}}, {y}, &out);
  ASSERT_TRUE(s.ok()) << s;
  for (int i = 0; i < 100000; i += 9973) {
    EXPECT_EQ(out[0].data<float>()[i], -static_cast<float>(i % 7)) << "element " << i;
  }
}

// Wall time of `f`, in seconds: these cases must be refused at once, not
// after building or running gigabytes.
template <typename F>
double SecondsOf(F f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST_F(BadMemoryTest, FillLargerThanTheDeviceIsRefusedAtOnce) {
  // A 4 GiB Fill on a 4-tile IPU Model (2.4 MiB) used to run for 20 s and
  // return a wrong sum.
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto big = ops::Fill(ipu.WithOpName("big"), {32768, 32768}, 1.0f);
  auto sum = ops::Sum(ipu, big, {0, 1});
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s;
  const double seconds = SecondsOf([&] { s = session.Run({}, {sum}, &out); });
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Out of memory: op 'big' (Fill) makes output 0, "
                        "float[32768,32768] of 1073741824 elements"));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(absl::StrCat("larger than the whole memory of the IPU "
                                     "it runs on (4 tiles x ", kBytesPerTile)));
  EXPECT_LT(seconds, 5.0);
  ExpectStillWorks(root, session);
}

TEST_F(BadMemoryTest, TileWithAHugeMultipleIsRefusedAtOnce) {
  // A Tile whose multiple asks for 2^31 floats: refused before the lowering
  // builds a view of 2^30 copies (which took 4 GiB of host memory).
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto tiled = ops::Tile(ipu.WithOpName("tiled"), x, {1 << 30});
  auto sum = ops::Sum(ipu, tiled, {0});
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s;
  const double seconds =
      SecondsOf([&] { s = session.Run({{x, {1.f, 2.f}}}, {sum}, &out); });
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("op 'tiled' (Tile) makes output 0, float[2147483648]"));
  EXPECT_LT(seconds, 5.0);
  ExpectStillWorks(root, session);
}

TEST_F(BadMemoryTest, TileWithALargeMultipleThatFitsIsExact) {
  // 100,000 copies of a [2] vector (800,000 bytes) fit the 4 tiles: the
  // repetition is made in IPU memory by doubling copies, not as a view of
  // 100,000 runs, and the sum is exact.
  Configure(1, "--use_ipu_model --ipu_model_tiles=4");
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({2}));
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  auto tiled = ops::Tile(ipu, x, {100000});
  auto sum = ops::Sum(ipu, tiled, {0});
  auto last = ops::Slice(ipu, tiled, {199998}, {2});
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s;
  const double seconds =
      SecondsOf([&] { s = session.Run({{x, {1.f, 2.f}}}, {sum, last}, &out); });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].data<float>()[0], 300000.0f);
  EXPECT_EQ(out[1].DebugString(), "[1. 2.]");
  EXPECT_LT(seconds, 5.0);
}

}  // namespace
}  // namespace tensorflow_ipu
