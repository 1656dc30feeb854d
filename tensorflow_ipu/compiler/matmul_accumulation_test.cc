// The matmul-accumulation pass: which adds of a product it fuses, and what
// it leaves alone.
#include "Eigen/Core"
#include "tensorflow_ipu/compiler/matmul_accumulation.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

NodeDef Def(const std::string& name, const std::string& op) {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  return d;
}

// x [8,4], dy [8,3] -> grad = MatMul(x, dy, transpose_a) [4,3] -> acc += grad
// (or, `scaled`, acc += grad * 0.25, the MEAN reduction's add), with a NoOp
// `before` the product waits for.
struct AccumulationIr {
  ClusterIr ir;
  int x, dy, before, handle, grad, quarter = -1, mul = -1, add;
  explicit AccumulationIr(DataType dtype = DT_FLOAT, bool scaled = false) {
    x = ir.AddArg("x:0", dtype, TensorShape({8, 4}));
    dy = ir.AddArg("dy:0", dtype, TensorShape({8, 3}));
    before = ir.AddOp(Def("before", "NoOp"), {}, {}, {});
    handle = ir.AddOp(Def("acc", "VarHandleOp"), {}, {DT_RESOURCE}, {TensorShape({})});
    NodeDef mm = Def("grad", "MatMul");
    (*mm.mutable_attr())["transpose_a"] = MakeAttrValue(true);
    (*mm.mutable_attr())["transpose_b"] = MakeAttrValue(false);
    grad = ir.AddOp(mm, {{x, 0}, {dy, 0}}, {dtype}, {TensorShape({4, 3})});
    ir.ops[grad].control_inputs = {before};
    ValueRef added{grad, 0};
    if (scaled) {
      quarter = ir.AddOp(Def("quarter", "Const"), {}, {DT_FLOAT}, {TensorShape({})});
      ir.ops[quarter].constant = Tensor::FromVector<float>({0.25f}, TensorShape({}));
      mul = ir.AddOp(Def("mean", "Mul"), {{grad, 0}, {quarter, 0}}, {dtype}, {TensorShape({4, 3})});
      added = {mul, 0};
    }
    add = ir.AddOp(Def("accumulate", "AssignAddVariableOp"), {{handle, 0}, added}, {}, {});
    for (ClusterOp& op : ir.ops) op.shard = 0;
  }
};

TEST(MatMulAccumulationTest, AnAddOfAProductReadsTheOperands) {
  AccumulationIr t;
  MatMulAccumulation pass;
  absl::StatusOr<bool> changed = pass.Run(&t.ir);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const ClusterOp& add = t.ir.ops[t.add];
  EXPECT_EQ(add.op(), "AssignAddVariableOp");
  ASSERT_EQ(add.inputs.size(), 3u);
  EXPECT_EQ(add.inputs[0], (ValueRef{t.handle, 0}));
  EXPECT_EQ(add.inputs[1], (ValueRef{t.x, 0}));
  EXPECT_EQ(add.inputs[2], (ValueRef{t.dy, 0}));
  EXPECT_TRUE(add.def.attr().at("transpose_a").b());
  EXPECT_FALSE(add.def.attr().at("transpose_b").b());
  EXPECT_EQ(add.def.attr().at(kAccumulatesMatMulAttr).s(), "grad");
  EXPECT_EQ(add.def.attr().at(kAccumulateScaleAttr).f(), 1.0f);
  EXPECT_EQ(add.control_inputs, std::vector<int>{t.before});
  const ClusterOp& product = t.ir.ops[t.grad];
  EXPECT_EQ(product.op(), "NoOp");
  EXPECT_EQ(product.name(), "grad");
  EXPECT_TRUE(product.inputs.empty());
  EXPECT_TRUE(product.output_types.empty());
  EXPECT_EQ(product.control_inputs, std::vector<int>{t.before});
}

TEST(MatMulAccumulationTest, AnAddOfAScaledProductCarriesTheScale) {
  AccumulationIr t(DT_FLOAT, /*scaled=*/true);
  MatMulAccumulation pass;
  absl::StatusOr<bool> changed = pass.Run(&t.ir);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const ClusterOp& add = t.ir.ops[t.add];
  ASSERT_EQ(add.inputs.size(), 3u);
  EXPECT_EQ(add.inputs[1], (ValueRef{t.x, 0}));
  EXPECT_EQ(add.inputs[2], (ValueRef{t.dy, 0}));
  EXPECT_EQ(add.def.attr().at(kAccumulateScaleAttr).f(), 0.25f);
  EXPECT_EQ(t.ir.ops[t.grad].op(), "NoOp");
  EXPECT_EQ(t.ir.ops[t.mul].op(), "NoOp");
  EXPECT_EQ(t.ir.ops[t.quarter].op(), "Const");
  // The scalar on the left of the Mul too.
  AccumulationIr left(DT_FLOAT, /*scaled=*/true);
  std::swap(left.ir.ops[left.mul].inputs[0], left.ir.ops[left.mul].inputs[1]);
  changed = pass.Run(&left.ir);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(left.ir.ops[left.add].def.attr().at(kAccumulateScaleAttr).f(), 0.25f);
}

// var -= alpha x^T dy (plain SGD) and var -= alpha 0.25 x^T dy: the
// learning rate, a constant, stays an input; the scale is -alpha [c].
TEST(MatMulAccumulationTest, AGradientDescentStepOnAProductCarriesMinusTheRate) {
  for (const bool scaled : {false, true}) {
    AccumulationIr t(DT_FLOAT, scaled);
    const int rate = t.ir.AddOp(Def("rate", "Const"), {}, {DT_FLOAT}, {TensorShape({})});
    t.ir.ops[rate].constant = Tensor::FromVector<float>({0.5f}, TensorShape({}));
    const ValueRef value = t.ir.ops[t.add].inputs[1];
    // The step replaces the add (ops after their inputs: the rate is last,
    // so the step goes after it).
    t.ir.ops[t.add].def.set_op("NoOp");
    t.ir.ops[t.add].inputs.clear();
    const int step = t.ir.AddOp(Def("step", "ResourceApplyGradientDescent"),
                                {{t.handle, 0}, {rate, 0}, value}, {}, {});
    t.ir.ops[rate].shard = t.ir.ops[step].shard = 0;
    MatMulAccumulation pass;
    absl::StatusOr<bool> changed = pass.Run(&t.ir);
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_TRUE(*changed);
    const ClusterOp& op = t.ir.ops[step];
    ASSERT_EQ(op.inputs.size(), 4u);
    EXPECT_EQ(op.inputs[0], (ValueRef{t.handle, 0}));
    EXPECT_EQ(op.inputs[1], (ValueRef{rate, 0}));
    EXPECT_EQ(op.inputs[2], (ValueRef{t.x, 0}));
    EXPECT_EQ(op.inputs[3], (ValueRef{t.dy, 0}));
    EXPECT_EQ(op.def.attr().at(kAccumulateScaleAttr).f(), scaled ? -0.125f : -0.5f);
    EXPECT_EQ(t.ir.ops[t.grad].op(), "NoOp");

    // A learning rate that is not a constant (a placeholder, a variable's
    // value) is left to the generic step.
    AccumulationIr fed(DT_FLOAT, scaled);
    const int lr = fed.ir.AddArg("lr:0", DT_FLOAT, TensorShape({}));
    const ValueRef fed_value = fed.ir.ops[fed.add].inputs[1];
    fed.ir.ops[fed.add].def.set_op("NoOp");
    fed.ir.ops[fed.add].inputs.clear();
    const int fed_step = fed.ir.AddOp(Def("step", "ResourceApplyGradientDescent"),
                                      {{fed.handle, 0}, {lr, 0}, fed_value}, {}, {});
    fed.ir.ops[lr].shard = fed.ir.ops[fed_step].shard = 0;
    changed = pass.Run(&fed.ir);
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed);
    EXPECT_EQ(fed.ir.ops[fed_step].inputs.size(), 3u);
  }
}

TEST(MatMulAccumulationTest, LeavesScaledProductsItCannotFuse) {
  struct Case {
    const char* what;
    void (*change)(AccumulationIr&);
  };
  const Case cases[] = {
      {"a scale that is not a constant",
       [](AccumulationIr& t) { t.ir.ops[t.quarter].def.set_op("Placeholder"); }},
      {"a scale of several elements",
       [](AccumulationIr& t) {
         t.ir.ops[t.quarter].constant = Tensor(DT_FLOAT, TensorShape({2}));
       }},
      {"the Mul has another reader",
       [](AccumulationIr& t) {
         t.ir.results = {{t.mul, 0}};
       }},
      {"the product has another reader",
       [](AccumulationIr& t) {
         t.ir.results = {{t.grad, 0}};
       }},
      {"the Mul on another IPU", [](AccumulationIr& t) { t.ir.ops[t.mul].shard = 1; }},
  };
  for (const Case& c : cases) {
    AccumulationIr t(DT_FLOAT, /*scaled=*/true);
    c.change(t);
    MatMulAccumulation pass;
    absl::StatusOr<bool> changed = pass.Run(&t.ir);
    ASSERT_TRUE(changed.ok()) << c.what << ": " << changed.status();
    EXPECT_FALSE(*changed) << c.what;
    EXPECT_EQ(t.ir.ops[t.grad].op(), "MatMul") << c.what;
    EXPECT_EQ(t.ir.ops[t.mul].op(), "Mul") << c.what;
  }
}

TEST(MatMulAccumulationTest, LeavesProductsItCannotFuse) {
  struct Case {
    const char* what;
    void (*change)(AccumulationIr&);
  };
  const Case cases[] = {
      {"the product is a result",
       [](AccumulationIr& t) {
         t.ir.results = {{t.grad, 0}};
       }},
      {"the product has another reader",
       [](AccumulationIr& t) {
         t.ir.AddOp(Def("neg", "Neg"), {{t.grad, 0}}, {DT_FLOAT}, {TensorShape({4, 3})});
       }},
      {"on another IPU", [](AccumulationIr& t) { t.ir.ops[t.grad].shard = 1; }},
      {"in another pipeline unit", [](AccumulationIr& t) { t.ir.ops[t.add].pipeline_unit = 2; }},
      {"in the weight update", [](AccumulationIr& t) { t.ir.ops[t.add].accumulation_count = 4; }},
      {"after the update", [](AccumulationIr& t) { t.ir.ops[t.grad].after_update = true; }},
      {"in another loop",
       [](AccumulationIr& t) {
         (*t.ir.ops[t.add].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop_1");
       }},
      {"a pipeline-invariant product",
       [](AccumulationIr& t) { t.ir.ops[t.grad].pipeline_invariant = true; }},
  };
  for (const Case& c : cases) {
    AccumulationIr t;
    c.change(t);
    MatMulAccumulation pass;
    absl::StatusOr<bool> changed = pass.Run(&t.ir);
    ASSERT_TRUE(changed.ok()) << c.what << ": " << changed.status();
    EXPECT_FALSE(*changed) << c.what;
    EXPECT_EQ(t.ir.ops[t.grad].op(), "MatMul") << c.what;
    EXPECT_EQ(t.ir.ops[t.add].inputs.size(), 2u) << c.what;
  }
  // Half products are added by the generic path (matMulAcc is float).
  AccumulationIr half(DT_HALF);
  MatMulAccumulation pass;
  absl::StatusOr<bool> changed = pass.Run(&half.ir);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
