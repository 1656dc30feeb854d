// Compiles small clusters for the IPU Model and runs them.
#include "tensorflow_ipu/compiler/cluster_compiler.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/program.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

NodeDef Def(const std::string& name, const std::string& op) {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  return d;
}

poplar_sim::Device ModelDevice(unsigned ipus) {
  poplar_sim::IPUModel model("ipu2");
  model.numIPUs = ipus;
  model.tilesPerIPU = 4;
  return model.createDevice().value();
}

TEST(ClusterCompilerTest, TutorialAdditions) {
  ClusterIr ir;
  ir.name = "cluster_0";
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
  int b = ir.AddArg("b:0", DT_FLOAT, TensorShape({2}));
  int c = ir.AddArg("c:0", DT_FLOAT, TensorShape({2}));
  TensorShape s({2});
  int o1 = ir.AddOp(Def("add", "AddV2"), {{a, 0}, {b, 0}}, {DT_FLOAT}, {s});
  int o2 = ir.AddOp(Def("add_1", "AddV2"), {{a, 0}, {c, 0}}, {DT_FLOAT}, {s});
  int o3 = ir.AddOp(Def("add_2", "AddV2"), {{o1, 0}, {o2, 0}}, {DT_FLOAT}, {s});
  ir.results = {{o3, 0}};
  poplar_sim::Device device = ModelDevice(1);
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Tensor> out;
  auto stats = (*compiled)->Run(
      device,
      {Tensor::Vector<float>({1, 1}), Tensor::Vector<float>({0, 1}),
       Tensor::Vector<float>({1, 5})},
      &out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].DebugString(), "[3. 8.]");
  EXPECT_TRUE(stats->engine_loaded);
  EXPECT_FALSE(stats->engine_switched);
  EXPECT_GT(stats->run.cycles, 0u);
  EXPECT_EQ(stats->run.cost.hostBytesToDevice, 24u);
  EXPECT_EQ(stats->run.cost.hostBytesFromDevice, 8u);

  // A second run reuses the loaded engine.
  stats = (*compiled)->Run(
      device,
      {Tensor::Vector<float>({2, 2}), Tensor::Vector<float>({0, 0}),
       Tensor::Vector<float>({0, 0})},
      &out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_FALSE(stats->engine_loaded);
  EXPECT_EQ(out[0].DebugString(), "[4. 4.]");
}

// Arguments are spread over the IPU's tiles, and element-wise results
// follow them, so no tile holds everything.
TEST(ClusterCompilerTest, LargeTensorsSpreadOverTiles) {
  ClusterIr ir;
  ir.name = "big";
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({4096}));
  int n = ir.AddOp(Def("neg", "Neg"), {{a, 0}}, {DT_FLOAT},
                   {TensorShape({4096})});
  ir.results = {{n, 0}};
  poplar_sim::Device device = ModelDevice(1);
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const auto& memory = (*compiled)->engine().getTileMemory();
  ASSERT_EQ(memory.size(), 4u);
  for (const poplar_sim::TileMemory& tile : memory) {
    // Two [4096] floats over 4 tiles: 2 x 4 KiB of variables per tile.
    EXPECT_EQ(tile.variables, 2u * 4096 * 4 / 4);
  }
}

TEST(ClusterCompilerTest, OpWithoutLoweringIsAnError) {
  ClusterIr ir;
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
  int x = ir.AddOp(Def("weird", "NoSuchOp"), {{a, 0}}, {DT_FLOAT},
                   {TensorShape({2})});
  ir.results = {{x, 0}};
  poplar_sim::Device device = ModelDevice(1);
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(compiled.status().message().find(
                "Op 'weird' (NoSuchOp) has no IPU lowering"),
            std::string::npos);
}

// Ops of this test only that write a variable: the emitter knows what they
// do to it from their traits alone (OpDef::variable_writes), not by name.
REGISTER_OP(OpDefBuilder("CompilerTestOverwrite")
                .Input("var", DT_RESOURCE)
                .Input("value", DT_FLOAT)
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kOverwrite));
REGISTER_OP(OpDefBuilder("CompilerTestUpdate")
                .Input("var", DT_RESOURCE)
                .Input("value", DT_FLOAT)
                .SetIsStateful()
                .SetWritesVariable(0, VariableWrite::kReadModifyWrite));

absl::Status LowerTestOverwrite(LoweringContext& ctx) {
  ctx.prog().add(poplar_sim::program::Copy(ctx.input(1), ctx.input(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("CompilerTestOverwrite", LowerTestOverwrite);
REGISTER_IPU_LOWERING("CompilerTestUpdate", LowerTestOverwrite);

// A lowering with a bug: it reads an input its op does not have.
REGISTER_OP(OpDefBuilder("CompilerTestReadsTooFar").Input("x", DT_FLOAT).Output("y", DT_FLOAT));
absl::Status LowerReadsTooFar(LoweringContext& ctx) {
  ctx.SetOutput(0, poplar_sim::popops::map(ctx.graph(), poplar_sim::popops::BinaryOpType::ADD,
                                           ctx.input(0), ctx.input(3), ctx.prog()));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("CompilerTestReadsTooFar", LowerReadsTooFar);

TEST(ClusterCompilerTest, ALoweringReadingAMissingInputFailsTheCompile) {
  ClusterIr ir;
  ir.name = "too_far";
  const TensorShape s({2});
  int a = ir.AddArg("a:0", DT_FLOAT, s);
  int o = ir.AddOp(Def("reader", "CompilerTestReadsTooFar"), {{a, 0}}, {DT_FLOAT}, {s});
  ir.results = {{o, 0}};
  poplar_sim::Device device = ModelDevice(1);
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_EQ(compiled.status().code(), absl::StatusCode::kInternal) << compiled.status();
  EXPECT_NE(compiled.status().message().find(
                "the lowering of CompilerTestReadsTooFar 'reader' asked for input 3 of 1"),
            std::string::npos)
      << compiled.status();
}

NodeDef VarHandle(const std::string& name) {
  NodeDef d = Def(name, "VarHandleOp");
  (*d.mutable_attr())["shared_name"] = MakeAttrValue(name);
  (*d.mutable_attr())["dtype"] = MakeAttrValue(DT_FLOAT);
  (*d.mutable_attr())["shape"] = MakeAttrValue(TensorShape({2}));
  return d;
}

TEST(ClusterCompilerTest, VariableWritesAreKnownByTheOpsTraits) {
  for (const char* op : {"CompilerTestOverwrite", "CompilerTestUpdate"}) {
    SCOPED_TRACE(op);
    ClusterIr ir;
    ir.name = "writes";
    int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
    int v = ir.AddOp(VarHandle("v"), {}, {DT_RESOURCE}, {TensorShape()});
    ir.AddOp(Def("write", op), {{v, 0}, {a, 0}}, {}, {});
    poplar_sim::Device device = ModelDevice(1);
    auto compiled = CompileCluster(ir, device.getTarget());
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    ASSERT_EQ((*compiled)->resources().size(), 1u);
    const ResourceBinding& b = (*compiled)->resources()[0];
    EXPECT_EQ(b.name, "v");
    EXPECT_TRUE(b.written);
    // An overwrite does not need the value the variable had.
    EXPECT_EQ(b.reads_initial_value, std::string(op) == "CompilerTestUpdate");

    std::vector<Tensor> out;
    auto stats = (*compiled)->Run(device, {Tensor::Vector<float>({1, 2})}, &out);
    ASSERT_TRUE(stats.ok()) << stats.status();
    auto value = (*compiled)->ReadResource(0);
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(value->DebugString(), "[1. 2.]");
  }
}

NodeDef InLoop(NodeDef d, int64_t iterations) {
  (*d.mutable_attr())[kLoopAttr] = MakeAttrValue(std::string("loop_0"));
  (*d.mutable_attr())[kLoopCountAttr] = MakeAttrValue(iterations);
  return d;
}

NodeDef LoopBoundaryOp(const std::string& name, const std::string& op) {
  NodeDef d = Def(name, op);
  (*d.mutable_attr())["index"] = MakeAttrValue(int64_t{0});
  (*d.mutable_attr())["T"] = MakeAttrValue(DT_FLOAT);
  return d;
}

// The loop ops are lowered through the registry like any other op: the
// carried value is doubled in each of 3 iterations.
TEST(ClusterCompilerTest, LoopCarriedValuesThroughTheLoopLowerings) {
  ClusterIr ir;
  ir.name = "loop";
  TensorShape s({2});
  int a = ir.AddArg("a:0", DT_FLOAT, s);
  int enter = ir.AddOp(InLoop(LoopBoundaryOp("enter", "IpuLoopEnter"), 3),
                       {{a, 0}}, {DT_FLOAT}, {s});
  int twice = ir.AddOp(InLoop(Def("twice", "AddV2"), 3),
                       {{enter, 0}, {enter, 0}}, {DT_FLOAT}, {s});
  int exit = ir.AddOp(InLoop(LoopBoundaryOp("exit", "IpuLoopExit"), 3),
                      {{twice, 0}}, {DT_FLOAT}, {s});
  ir.results = {{exit, 0}};
  poplar_sim::Device device = ModelDevice(1);
  auto compiled = CompileCluster(ir, device.getTarget());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Tensor> out;
  auto stats = (*compiled)->Run(device, {Tensor::Vector<float>({1, -3})}, &out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(out[0].DebugString(), "[  8. -24.]");
}

TEST(ClusterCompilerTest, ALoopOpOutsideALoopIsAnError) {
  ClusterIr ir;
  ir.name = "no_loop";
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
  int enter = ir.AddOp(LoopBoundaryOp("enter", "IpuLoopEnter"), {{a, 0}},
                       {DT_FLOAT}, {TensorShape({2})});
  ir.results = {{enter, 0}};
  poplar_sim::Device device = ModelDevice(1);
  auto compiled = CompileCluster(ir, device.getTarget());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(compiled.status().message().find(
                "Op 'enter' (IpuLoopEnter): is not in a loop body; build it "
                "with ipu::loops::repeat"),
            std::string::npos)
      << compiled.status();
}

// acc += x^T dy (and acc += 0.25 x^T dy, the MEAN reduction's add), and
// the SGD steps var -= 0.5 x^T dy and var -= 0.5 x 0.25 x^T dy: the
// matmul-accumulation pass folds the product into the add or the step,
// which adds it into the variable; the values are exact (small integers
// and powers of two).
TEST(ClusterCompilerTest, AnAddOfAProductAccumulatesIntoTheVariable) {
  for (const bool sgd : {false, true}) for (const bool scaled : {false, true}) {
    SCOPED_TRACE(absl::StrCat(sgd ? "SGD step" : "add", scaled ? ", scaled by 0.25" : ""));
    ClusterIr ir;
    ir.name = "accumulate";
    const int x = ir.AddArg("x:0", DT_FLOAT, TensorShape({2, 2}));
    const int dy = ir.AddArg("dy:0", DT_FLOAT, TensorShape({2, 3}));
    NodeDef handle = Def("acc", "VarHandleOp");
    (*handle.mutable_attr())["shared_name"] = MakeAttrValue("acc");
    (*handle.mutable_attr())["dtype"] = MakeAttrValue(DT_FLOAT);
    (*handle.mutable_attr())["shape"] = MakeAttrValue(TensorShape({2, 3}));
    const int v = ir.AddOp(handle, {}, {DT_RESOURCE}, {TensorShape()});
    NodeDef mm = Def("grad", "MatMul");
    (*mm.mutable_attr())["T"] = MakeAttrValue(DT_FLOAT);
    (*mm.mutable_attr())["transpose_a"] = MakeAttrValue(true);
    (*mm.mutable_attr())["transpose_b"] = MakeAttrValue(false);
    const int grad = ir.AddOp(mm, {{x, 0}, {dy, 0}}, {DT_FLOAT}, {TensorShape({2, 3})});
    ValueRef added{grad, 0};
    int mul = -1;
    if (scaled) {
      NodeDef c = Def("quarter", "Const");
      (*c.mutable_attr())["dtype"] = MakeAttrValue(DT_FLOAT);
      const int quarter = ir.AddOp(c, {}, {DT_FLOAT}, {TensorShape({})});
      ir.ops[quarter].constant = Tensor::FromVector<float>({0.25f}, TensorShape({}));
      NodeDef m = Def("mean", "Mul");
      (*m.mutable_attr())["T"] = MakeAttrValue(DT_FLOAT);
      mul = ir.AddOp(m, {{grad, 0}, {quarter, 0}}, {DT_FLOAT}, {TensorShape({2, 3})});
      added = {mul, 0};
    }
    if (sgd) {
      // var -= 0.5 [0.25] x^T dy.
      NodeDef r = Def("rate", "Const");
      (*r.mutable_attr())["dtype"] = MakeAttrValue(DT_FLOAT);
      const int rate = ir.AddOp(r, {}, {DT_FLOAT}, {TensorShape({})});
      ir.ops[rate].constant = Tensor::FromVector<float>({0.5f}, TensorShape({}));
      NodeDef step = Def("step", "ResourceApplyGradientDescent");
      (*step.mutable_attr())["T"] = MakeAttrValue(DT_FLOAT);
      ir.AddOp(step, {{v, 0}, {rate, 0}, added}, {}, {});
    } else {
      NodeDef add = Def("accumulate", "AssignAddVariableOp");
      (*add.mutable_attr())["dtype"] = MakeAttrValue(DT_FLOAT);
      ir.AddOp(add, {{v, 0}, added}, {}, {});
    }
    poplar_sim::Device device = ModelDevice(1);
    auto compiled = CompileCluster(ir, device.getTarget());
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_EQ((*compiled)->ir().ops[grad].op(), "NoOp") << (*compiled)->ir().ToString();
    if (mul >= 0) {
      EXPECT_EQ((*compiled)->ir().ops[mul].op(), "NoOp");
    }
    ASSERT_EQ((*compiled)->resources().size(), 1u);
    EXPECT_TRUE((*compiled)->resources()[0].written);
    EXPECT_TRUE((*compiled)->resources()[0].reads_initial_value);
    absl::Status s = (*compiled)->WriteResource(
        0, Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})));
    ASSERT_TRUE(s.ok()) << s;
    std::vector<Tensor> out;
    // x = [[1, 2], [3, 4]], dy = [[1, 0, 2], [0, 1, 4]]:
    // x^T dy = [[1, 3, 14], [2, 4, 20]].
    for (int run = 0; run < 2; ++run) {
      auto stats = (*compiled)->Run(
          device,
          {Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})),
           Tensor::FromVector<float>({1, 0, 2, 0, 1, 4}, TensorShape({2, 3}))},
          &out);
      ASSERT_TRUE(stats.ok()) << stats.status();
    }
    auto value = (*compiled)->ReadResource(0);
    ASSERT_TRUE(value.ok()) << value.status();
    // Two runs: acc + 2 k x^T dy, k = 1, 0.25, -0.5 or -0.125.
    const char* expected = !sgd  ? (scaled ? "[[ 1.5  3.5 10. ]\n [ 5.   7.  16. ]]"
                                           : "[[ 3.  8. 31.]\n [ 8. 13. 46.]]")
                           : scaled ? "[[ 0.75  1.25 -0.5 ]\n [ 3.5   4.    1.  ]]"
                                    : "[[  0.  -1. -11.]\n [  2.   1. -14.]]";
    EXPECT_EQ(value->DebugString(), expected);
  }
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
