// The element-wise lowerings write their result over an input nothing reads
// afterwards (lowerings/elementwise.cc, lowerings/math.cc): a dense layer's
// BiasAdd and Relu then live in its product's tensor, and an input that is
// read later keeps its values.
#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/compiler/float_node_def.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

constexpr int kRows = 4, kDepth = 8, kCols = 16;

// relu(x w + b), and x w itself when `fetch_product` (then read after the
// BiasAdd, by the host).
struct Layer {
  ClusterIr ir;
  int product = -1, biased = -1, relu = -1;
  explicit Layer(bool fetch_product) {
    ir.name = "layer";
    const TensorShape out({kRows, kCols});
    const int x = ir.AddArg("x:0", DT_FLOAT, TensorShape({kRows, kDepth}));
    const int w = ir.AddArg("w:0", DT_FLOAT, TensorShape({kDepth, kCols}));
    const int b = ir.AddArg("b:0", DT_FLOAT, TensorShape({kCols}));
    NodeDef mm = FloatNodeDef("dense/MatMul", "MatMul");
    (*mm.mutable_attr())["transpose_a"] = MakeAttrValue(false);
    (*mm.mutable_attr())["transpose_b"] = MakeAttrValue(false);
    product = ir.AddOp(mm, {{x, 0}, {w, 0}}, {DT_FLOAT}, {out});
    NodeDef bias = FloatNodeDef("dense/BiasAdd", "BiasAdd");
    (*bias.mutable_attr())["data_format"] = MakeAttrValue(std::string("NHWC"));
    biased = ir.AddOp(bias, {{product, 0}, {b, 0}}, {DT_FLOAT}, {out});
    relu = ir.AddOp(FloatNodeDef("dense/Relu", "Relu"), {{biased, 0}}, {DT_FLOAT}, {out});
    ir.results = {{relu, 0}};
    if (fetch_product) ir.results.push_back({product, 0});
  }
};

struct LayerRun {
  std::vector<Tensor> out;
  uint64_t variable_bytes = 0;  // on all tiles
};

LayerRun RunLayer(bool fetch_product) {
  Layer layer(fetch_product);
  poplar_sim::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar_sim::Device device = model.createDevice().value();
  auto compiled = CompileCluster(layer.ir, device.getTarget());
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  LayerRun run;
  if (!compiled.ok()) return run;
  // Small integers: every sum is exact.
  std::vector<float> x(kRows * kDepth), w(kDepth * kCols), b(kCols);
  for (int i = 0; i < kRows * kDepth; ++i) x[i] = static_cast<float>(i % 5 - 2);
  for (int i = 0; i < kDepth * kCols; ++i) w[i] = static_cast<float>(i % 3 - 1);
  for (int j = 0; j < kCols; ++j) b[j] = static_cast<float>(j % 4 - 2);
  auto stats = (*compiled)->Run(
      device,
      {Tensor::FromVector<float>(x, TensorShape({kRows, kDepth})),
       Tensor::FromVector<float>(w, TensorShape({kDepth, kCols})), Tensor::Vector<float>(b)},
      &run.out);
  EXPECT_TRUE(stats.ok()) << stats.status();
  for (const poplar_sim::TileMemory& tile : (*compiled)->engine().getTileMemory()) {
    run.variable_bytes += tile.variables;
  }
  // The values the host computes.
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      float sum = 0;
      for (int k = 0; k < kDepth; ++k) sum += x[r * kDepth + k] * w[k * kCols + c];
      if (run.out.size() > 0) {
        EXPECT_EQ(run.out[0].data<float>()[r * kCols + c], std::max(0.f, sum + b[c]))
            << "relu at [" << r << "," << c << "]";
      }
      if (fetch_product && run.out.size() > 1) {
        EXPECT_EQ(run.out[1].data<float>()[r * kCols + c], sum)
            << "product at [" << r << "," << c << "]";
      }
    }
  }
  return run;
}

TEST(InPlaceLoweringTest, ALayersBiasAndReluLiveInItsProduct) {
  const LayerRun in_place = RunLayer(/*fetch_product=*/false);
  ASSERT_EQ(in_place.out.size(), 1u);
  // The product read later keeps its own tensor: the BiasAdd writes a new
  // one (which the Relu overwrites), one [4,16] float more at once.
  const LayerRun kept = RunLayer(/*fetch_product=*/true);
  ASSERT_EQ(kept.out.size(), 2u);
  EXPECT_EQ(kept.variable_bytes - in_place.variable_bytes, uint64_t{kRows * kCols * 4})
      << "in place " << in_place.variable_bytes << " bytes, product kept " << kept.variable_bytes;
}

// y - transpose(y) over y: the transpose views y's tensor, which the
// in-place subtraction overwrites while it reads it (popops snapshots it).
TEST(InPlaceLoweringTest, AnInputViewingTheOverwrittenTensorReadsItsOldValues) {
  constexpr int n = 4;
  ClusterIr ir;
  ir.name = "antisymmetric";
  const TensorShape square({n, n});
  const int x = ir.AddArg("x:0", DT_FLOAT, square);
  const int y = ir.AddOp(FloatNodeDef("y", "Neg"), {{x, 0}}, {DT_FLOAT}, {square});
  NodeDef perm_def = FloatNodeDef("perm", "Const");
  (*perm_def.mutable_attr())["dtype"] = MakeAttrValue(DT_INT32);
  const int perm = ir.AddOp(perm_def, {}, {DT_INT32}, {TensorShape({2})});
  ir.ops[perm].constant = Tensor::FromVector<int32_t>({1, 0}, TensorShape({2}));
  NodeDef transpose = FloatNodeDef("yt", "Transpose");
  (*transpose.mutable_attr())["Tperm"] = MakeAttrValue(DT_INT32);
  const int yt = ir.AddOp(transpose, {{y, 0}, {perm, 0}}, {DT_FLOAT}, {square});
  const int z = ir.AddOp(FloatNodeDef("z", "Sub"), {{y, 0}, {yt, 0}}, {DT_FLOAT}, {square});
  ir.results = {{z, 0}};
  poplar_sim::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar_sim::Device device = model.createDevice().value();
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<float> xv(n * n);
  for (int i = 0; i < n * n; ++i) xv[i] = static_cast<float>(i * i);
  std::vector<Tensor> out;
  auto stats = (*compiled)->Run(device, {Tensor::FromVector<float>(xv, square)}, &out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(out.size(), 1u);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      EXPECT_EQ(out[0].data<float>()[r * n + c], xv[c * n + r] - xv[r * n + c])
          << "at [" << r << "," << c << "]";
    }
  }
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
