#include "tensorflow_ipu/compiler/value_liveness.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using ::testing::ElementsAre;

NodeDef Def(const std::string& name, const std::string& op, const std::string& loop = "") {
  NodeDef d;
  d.set_name(name);
  d.set_op(op);
  if (!loop.empty()) {
    (*d.mutable_attr())[kLoopAttr] = MakeAttrValue(loop);
    (*d.mutable_attr())[kLoopCountAttr] = MakeAttrValue(int64_t{3});
  }
  return d;
}

int Op(ClusterIr& ir, const std::string& name, const std::string& op,
       std::vector<ValueRef> inputs, const std::string& loop = "") {
  return ir.AddOp(Def(name, op, loop), std::move(inputs), {DT_FLOAT}, {TensorShape({2})});
}

TEST(ValueLivenessTest, LastReaderInStraightLineCode) {
  ClusterIr ir;
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));       // 0
  int neg = Op(ir, "neg", "Neg", {{a, 0}});                    // 1
  int sq = Op(ir, "sq", "Square", {{a, 0}});                   // 2
  Op(ir, "dead", "Neg", {{neg, 0}});                           // 3
  ir.results = {{sq, 0}};
  // a is last read by sq; neg by dead; sq is a result; dead is unread.
  EXPECT_THAT(LastUses(ir), ElementsAre(2, 3, 4, 3));
}

TEST(ValueLivenessTest, LoopBodiesReadOutsideValuesInEveryIteration) {
  ClusterIr ir;
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));             // 0
  int enter = Op(ir, "enter", "IpuLoopEnter", {{a, 0}}, "loop");    // 1
  int add = Op(ir, "add", "AddV2", {{enter, 0}, {a, 0}}, "loop");   // 2
  int twice = Op(ir, "twice", "AddV2", {{add, 0}, {add, 0}}, "loop");  // 3
  Op(ir, "exit", "IpuLoopExit", {{add, 0}}, "loop");                 // 4
  Op(ir, "last", "Neg", {{twice, 0}}, "loop");                       // 5
  Op(ir, "after", "Neg", {{twice, 0}});                              // 6
  std::vector<int> last = LastUses(ir);
  // a is read inside the body (add, enter): live to the body's end, 5.
  EXPECT_EQ(last[a], 5);
  // The body's own value read by the exit copy: to the body's end too.
  EXPECT_EQ(last[add], 5);
  // The enter value is read in the same body: its reader's position.
  EXPECT_EQ(last[enter], 2);
  // Read after the loop by a host-side op of the cluster.
  EXPECT_EQ(last[twice], 6);
}

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
