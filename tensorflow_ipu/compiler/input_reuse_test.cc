// Which inputs a lowering may overwrite: InputReuse's rules one by one on
// small IRs, and what the in-place all-reduce that uses them saves.
#include "tensorflow_ipu/compiler/input_reuse.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "poplar_sim/device.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/compiler/float_node_def.h"
#include "tensorflow_ipu/compiler/value_liveness.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/ipu_attrs.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

const TensorShape kShape({256});

NodeDef Sum(const std::string& name) {
  NodeDef d = FloatNodeDef(name, "IpuCrossReplicaSum");
  (*d.mutable_attr())["replica_group_size"] = MakeAttrValue(int64_t{0});
  return d;
}

// a * b, its cross-replica sum, and what the test adds after it; each op's
// value a new variable of `graph` unless the test says otherwise.
struct ReuseIr {
  ClusterIr ir;
  int a, b, product, sum;
  ReuseIr() {
    ir.replication_factor = 2;
    a = ir.AddArg("a:0", DT_FLOAT, kShape);
    b = ir.AddArg("b:0", DT_FLOAT, kShape);
    product = ir.AddOp(FloatNodeDef("product", "Mul"), {{a, 0}, {b, 0}}, {DT_FLOAT}, {kShape});
  }
  int AddSum(int input) {
    sum = ir.AddOp(Sum("sum"), {{input, 0}}, {DT_FLOAT}, {kShape});
    return sum;
  }
  int Add(const std::string& name, const std::string& op, std::vector<ValueRef> inputs) {
    return ir.AddOp(FloatNodeDef(name, op), std::move(inputs), {DT_FLOAT}, {kShape});
  }

  // Whether the sum may overwrite its input. Each op's value is a new
  // variable, except that op i's is op same_as[i]'s (a view of it), and
  // that the ops in `constants` make constants.
  bool SumMayOverwrite(const std::map<int, int>& same_as = {},
                       const std::set<int>& constants = {}) {
    poplar_sim::IPUModel model("ipu2");
    model.tilesPerIPU = 4;
    poplar_sim::Device device = model.createDevice().value();
    poplar_sim::Graph graph(device.getTarget());
    EmissionState state(&graph, {});
    const std::vector<int> last = LastUses(ir);
    InputReuse reuse(ir, last, state);
    std::vector<poplar_sim::Tensor> values(ir.ops.size());
    bool may = false;
    for (int i = 0; i < static_cast<int>(ir.ops.size()); ++i) {
      if (auto it = same_as.find(i); it != same_as.end()) {
        values[i] = values[it->second];
      } else if (constants.count(i) > 0) {
        values[i] = graph.addConstant<float>(poplar_sim::FLOAT, {256}, 1.f, ir.ops[i].name());
      } else {
        values[i] = graph.addVariable(poplar_sim::FLOAT, {256}, ir.ops[i].name());
      }
      graph.setTileMapping(values[i], 0);
      if (i == sum) may = reuse.MayOverwrite(i, 0, values[ir.ops[i].inputs[0].op], graph);
      reuse.NoteValues(i, {values[i]});
    }
    return may;
  }
};

TEST(InputReuseTest, AFreshValueThatOnlyTheSumReadsMayBeOverwritten) {
  ReuseIr t;
  t.AddSum(t.product);
  const int neg = t.Add("neg", "Neg", {{t.sum, 0}});
  t.ir.results = {{neg, 0}};
  EXPECT_TRUE(t.SumMayOverwrite());
}

// The engine reads a fed argument from the host's buffer only while no
// step of the program writes it.
TEST(InputReuseTest, AnArgumentIsKept) {
  ReuseIr t;
  t.AddSum(t.a);
  t.ir.results = {{t.sum, 0}, {t.product, 0}};
  EXPECT_FALSE(t.SumMayOverwrite());
}

TEST(InputReuseTest, AValueReadAfterTheSumIsKept) {
  ReuseIr t;
  t.AddSum(t.product);
  const int after = t.Add("after", "AddV2", {{t.product, 0}, {t.sum, 0}});
  t.ir.results = {{after, 0}};
  EXPECT_FALSE(t.SumMayOverwrite());
}

TEST(InputReuseTest, AValueTheHostFetchesIsKept) {
  ReuseIr t;
  t.AddSum(t.product);
  t.ir.results = {{t.sum, 0}, {t.product, 0}};
  EXPECT_FALSE(t.SumMayOverwrite());
}

// A reshape's value views the product's variable: the product may be
// overwritten only if the view is not read after the sum.
TEST(InputReuseTest, AViewReadAfterTheSumKeepsTheValueItViews) {
  for (const bool view_read_later : {false, true}) {
    SCOPED_TRACE(view_read_later ? "view read after the sum" : "view read before it only");
    ReuseIr t;
    const int view = t.Add("view", "Reshape", {{t.product, 0}});
    const int before = t.Add("before", "Neg", {{view, 0}});
    t.AddSum(t.product);
    const int later = t.Add("later", "Neg", {{view_read_later ? view : t.sum, 0}});
    t.ir.results = {{before, 0}, {later, 0}};
    EXPECT_EQ(t.SumMayOverwrite({{view, t.product}}), !view_read_later);
  }
}

// Identity forwards its input's tensor: overwriting it would overwrite the
// product, whoever else reads that.
TEST(InputReuseTest, APassThroughProducerIsKept) {
  ReuseIr t;
  const int identity = t.Add("identity", "Identity", {{t.product, 0}});
  t.AddSum(identity);
  t.ir.results = {{t.sum, 0}};
  EXPECT_FALSE(t.SumMayOverwrite({{identity, t.product}}));
}

// A stateful op's value may be state it keeps (a random generator's, an
// accumulator's): never overwritten.
TEST(InputReuseTest, AStatefulProducerIsKept) {
  ReuseIr t;
  NodeDef random = FloatNodeDef("random", "RandomUniform");
  (*random.mutable_attr())["dtype"] = MakeAttrValue(DT_FLOAT);
  (*random.mutable_attr())["T"] = MakeAttrValue(DT_INT32);
  const int r = t.ir.AddOp(random, {{t.a, 0}}, {DT_FLOAT}, {kShape});
  t.AddSum(r);
  t.ir.results = {{t.sum, 0}};
  EXPECT_FALSE(t.SumMayOverwrite());
}

// Constants are written once, when the engine loads: a lowering that
// folds a product of constants into a constant must keep it.
TEST(InputReuseTest, ConstantElementsAreKept) {
  ReuseIr t;
  t.AddSum(t.product);
  t.ir.results = {{t.sum, 0}};
  EXPECT_FALSE(t.SumMayOverwrite({}, {t.product}));
}

// In a loop body, a value made before the loop is read in every
// iteration; one made in the body is made again in each.
TEST(InputReuseTest, AValueMadeBeforeTheLoopIsKeptInTheBody) {
  for (const bool product_in_body : {false, true}) {
    SCOPED_TRACE(product_in_body ? "product in the body" : "product before the loop");
    ReuseIr t;
    if (product_in_body)
      (*t.ir.ops[t.product].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
    t.AddSum(t.product);
    (*t.ir.ops[t.sum].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
    EXPECT_EQ(t.SumMayOverwrite(), product_in_body);
  }
}

// A view made in the body of a value from before the loop shares the
// outer value's memory, which every iteration reads again: even when the
// sum is the body's last op (where value liveness ends the outer value's
// use), it must not be overwritten.
TEST(InputReuseTest, AViewOfAValueFromBeforeTheLoopIsKept) {
  ReuseIr t;
  const int view = t.Add("view", "Reshape", {{t.product, 0}});
  (*t.ir.ops[view].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
  t.AddSum(view);
  (*t.ir.ops[t.sum].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
  EXPECT_FALSE(t.SumMayOverwrite({{view, t.product}}));
}

// A loop exit reads its input at the end of the body, after every op of
// the body, the sum included.
TEST(InputReuseTest, AValueALoopExitReadsIsKept) {
  ReuseIr t;
  (*t.ir.ops[t.product].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
  NodeDef exit = FloatNodeDef("exit", "IpuLoopExit");
  (*exit.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
  t.ir.AddOp(exit, {{t.product, 0}}, {DT_FLOAT}, {kShape});
  t.AddSum(t.product);
  (*t.ir.ops[t.sum].def.mutable_attr())[kLoopAttr] = MakeAttrValue("loop");
  EXPECT_FALSE(t.SumMayOverwrite());
}

// A lowering that asks about an input the op does not have gets false,
// not an out-of-range read.
TEST(InputReuseTest, IndicesOutOfRangeMayNotBeOverwritten) {
  ReuseIr t;
  t.AddSum(t.product);
  t.ir.results = {{t.sum, 0}};
  poplar_sim::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar_sim::Device device = model.createDevice().value();
  poplar_sim::Graph graph(device.getTarget());
  EmissionState state(&graph, {});
  const std::vector<int> last = LastUses(t.ir);
  InputReuse reuse(t.ir, last, state);
  poplar_sim::Tensor v = graph.addVariable(poplar_sim::FLOAT, {256}, "v");
  graph.setTileMapping(v, 0);
  for (int j : {-1, 1, 1 << 30}) EXPECT_FALSE(reuse.MayOverwrite(t.sum, j, v, graph)) << j;
  for (int i : {-1, static_cast<int>(t.ir.ops.size()), 1 << 30}) {
    EXPECT_FALSE(reuse.MayOverwrite(i, 0, v, graph)) << i;
  }
}

// Compiled and run on 2 replicas: the sum of a value nothing else reads
// is written over it, so the reduction needs no second buffer; a value
// read after its sum keeps its own. Both compute the right numbers.
TEST(InputReuseTest, TheInPlaceSumNeedsNoSecondBufferAndKeepsWhatIsReadLater) {
  uint64_t live_at_sum[2] = {0, 0};
  for (const bool read_later : {false, true}) {
    SCOPED_TRACE(read_later ? "product read after the sum" : "product read by the sum only");
    ReuseIr t;
    t.AddSum(t.product);
    // after = sum + product (reads the product after its sum), or sum + sum.
    const int after = t.Add("after", "AddV2", {{t.sum, 0}, {read_later ? t.product : t.sum, 0}});
    t.ir.results = {{after, 0}};
    for (ClusterOp& op : t.ir.ops) op.shard = 0;
    poplar_sim::IPUModel model("ipu2");
    model.numIPUs = 2;
    model.tilesPerIPU = 4;
    poplar_sim::Device device = model.createDevice().value();
    auto compiled = CompileCluster(t.ir, device.getTarget());
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    std::vector<float> a(256), b(256);
    for (int i = 0; i < 256; ++i) {
      a[i] = static_cast<float>(i);
      b[i] = 2.f;
    }
    std::vector<Tensor> out;
    auto stats =
        (*compiled)->Run(device, {Tensor::Vector<float>(a), Tensor::Vector<float>(b)}, &out);
    ASSERT_TRUE(stats.ok()) << stats.status();
    ASSERT_EQ(out.size(), 1u);
    // Each replica's product is 2i; their sum 4i; after is 8i or 6i.
    const float* v = out[0].data<float>();
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(v[i], (read_later ? 6.f : 8.f) * i) << "element " << i;
    }
    const poplar_sim::Profile& p = (*compiled)->engine().getProfile();
    for (const poplar_sim::LivenessPoint& point : p.liveness) {
      if (p.steps[point.step].kind == "CrossReplicaReduce") {
        live_at_sum[read_later] = point.notAlwaysLiveBytes;
      }
    }
  }
  // The out-of-place sum holds the product and the sum, 1 KB each.
  EXPECT_EQ(live_at_sum[1] - live_at_sum[0], 1024u)
      << "in place " << live_at_sum[0] << " bytes, out of place " << live_at_sum[1];
}
}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
