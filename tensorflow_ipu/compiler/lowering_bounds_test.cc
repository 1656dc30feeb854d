// The bounds every IPU lowering keeps (lowering_registry.h, lowerings/
// array.cc): an op that makes an output larger than the IPU's memory is
// refused before anything is built, and a Tile of a large multiple costs
// host memory in runs, never per copy.
#include <chrono>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using ::testing::HasSubstr;

NodeDef Def(const std::string& name, const std::string& op) {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  return d;
}

// A 4-tile IPU Model: 4 x 638976 bytes.
poplar_sim::Device ModelDevice() {
  poplar_sim::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  return model.createDevice().value();
}

int AddConst(ClusterIr& ir, const std::string& name, Tensor value) {
  const DataType dtype = value.dtype();
  const TensorShape shape = value.shape();
  int k = ir.AddOp(Def(name, "Const"), {}, {dtype}, {shape});
  ir.ops[k].constant = std::move(value);
  return k;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(LoweringBoundsTest, FillLargerThanTheIpuIsRefusedBeforeBuilding) {
  ClusterIr ir;
  ir.name = "cluster_0";
  int dims = AddConst(ir, "dims", Tensor::Vector<int32_t>({32768, 32768}));
  int one = AddConst(ir, "one", Tensor::Scalar<float>(1.0f));
  int fill = ir.AddOp(Def("big", "Fill"), {{dims, 0}, {one, 0}}, {DT_FLOAT},
                      {TensorShape({32768, 32768})});
  ir.results = {{fill, 0}};
  poplar_sim::Device device = ModelDevice();
  const auto start = std::chrono::steady_clock::now();
  auto compiled = CompileCluster(ir, device.getTarget());
  EXPECT_LT(SecondsSince(start), 2.0);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(compiled.status().message()),
              HasSubstr("op 'big' (Fill) makes output 0, float[32768,32768] of "
                        "1073741824 elements (1073741824 x 4 bytes), larger "
                        "than the whole memory of the IPU it runs on (4 tiles "
                        "x 638976 = 2555904 bytes)"));
}

TEST(LoweringBoundsTest, TileOfALargeMultipleIsMadeInIpuMemory) {
  // 100,000 copies of x: beyond the 65,536 runs a view may hold, so the
  // lowering copies by doubling into an IPU tensor (800,000 bytes).
  ClusterIr ir;
  ir.name = "cluster_0";
  int x = ir.AddArg("x:0", DT_FLOAT, TensorShape({2}));
  int mult = AddConst(ir, "multiples", Tensor::Vector<int32_t>({100000}));
  int tile = ir.AddOp(Def("tile", "Tile"), {{x, 0}, {mult, 0}}, {DT_FLOAT},
                      {TensorShape({200000})});
  int axis = AddConst(ir, "axis", Tensor::Vector<int32_t>({0}));
  int sum = ir.AddOp(Def("sum", "Sum"), {{tile, 0}, {axis, 0}}, {DT_FLOAT},
                     {TensorShape({})});
  ir.results = {{sum, 0}};
  poplar_sim::Device device = ModelDevice();
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Tensor> out;
  auto stats = (*compiled)->Run(device, {Tensor::Vector<float>({1, 2})}, &out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data<float>()[0], 300000.0f);
}

TEST(LoweringBoundsTest, TileOfAHugeMultipleIsRefused) {
  ClusterIr ir;
  ir.name = "cluster_0";
  int x = ir.AddArg("x:0", DT_FLOAT, TensorShape({2}));
  int mult = AddConst(ir, "multiples", Tensor::Vector<int32_t>({1 << 30}));
  int tile = ir.AddOp(Def("tile", "Tile"), {{x, 0}, {mult, 0}}, {DT_FLOAT},
                      {TensorShape({int64_t{1} << 31})});
  ir.results = {{tile, 0}};
  poplar_sim::Device device = ModelDevice();
  const auto start = std::chrono::steady_clock::now();
  auto compiled = CompileCluster(ir, device.getTarget());
  EXPECT_LT(SecondsSince(start), 2.0);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(compiled.status().message()),
              HasSubstr("op 'tile' (Tile) makes output 0, float[2147483648]"));
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
