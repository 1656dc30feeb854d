// ClusterIr: the self-contained IR of one IPU cluster, what the compiler's
// passes read and rewrite and what op lowering turns into a poplar_sim graph.
//
// A cluster is a topologically ordered list of ops. Its arguments are ops of
// kind "_Arg" (one per value streamed in from the host, in argument order);
// its results are values streamed back to the host, in result order. Every
// op records its output dtypes and shapes (copied from the placed graph), so
// the IR does not point into the session's graph and can be compiled or
// dumped on its own.
//
//   ClusterIr ir;
//   int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
//   int add = ir.AddOp(node_def, {{a, 0}, {a, 0}}, {DT_FLOAT}, {TensorShape({2})});
//   ir.results.push_back({add, 0});
//   ir.ToString();  // one line per op, for dumps and tests
#ifndef TENSORFLOW_IPU_COMPILER_CLUSTER_IR_H_
#define TENSORFLOW_IPU_COMPILER_CLUSTER_IR_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow_ipu/compiler/pipeline_timetable.h"
#include "tensorflow_ipu/core/function_library.h"
#include "tensorflow_ipu/core/ipu_attrs.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/proto/node_def.pb.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

namespace tensorflow_ipu {
namespace compiler {

// The op kind of a cluster argument and of an inter-IPU copy.
inline constexpr char kArgOp[] = "_Arg";
inline constexpr char kInterIpuCopyOp[] = "_InterIpuCopy";
// The op kind of cross-replica reductions made one by the
// cross-replica-combining pass (cross_replica_combining.h).
inline constexpr char kCombinedCrossReplicaOp[] = "_CombinedCrossReplica";

// Output `index` of op `op` of the cluster.
struct ValueRef {
  int op = 0;
  int index = 0;
  friend bool operator==(const ValueRef& a, const ValueRef& b) {
    return a.op == b.op && a.index == b.index;
  }
};

struct ClusterOp {
  // The NodeDef of the placed graph (name, op, attrs); for an argument, its
  // name is the host tensor it carries ("a:0").
  NodeDef def;
  std::vector<ValueRef> inputs;
  // Ops of the cluster that must run before this one without feeding it a
  // value (the graph's control edges inside the cluster).
  std::vector<int> control_inputs;
  std::vector<DataType> output_types;
  std::vector<TensorShape> output_shapes;
  // The value of a Const op (its "value" attr, parsed once); uninitialized
  // for every other op.
  Tensor constant;
  // The IPU of the device this op runs on; -1 until shard assignment.
  int shard = -1;
  // N > 0: the op runs once every N iterations of its loop, after the N-th
  // (the weight update of gradient accumulation; set by the
  // gradient-accumulation pass). 0: every iteration.
  int64_t accumulation_count = 0;
  // The op waits for its loop's weight update (a control dependency on it,
  // e.g. an outfeed of the step's loss after minimize) but reads none of
  // its values: it runs every iteration, after the update in the
  // iterations that end with one (set by the gradient-accumulation pass;
  // accumulation_count stays 0).
  bool after_update = false;
  // In a pipelined loop: the unit (a stage's forward or backward pass,
  // pipeline_timetable.h) the op belongs to; -1 elsewhere (set by the
  // pipeline-formation pass).
  int pipeline_unit = -1;
  // In a pipelined loop: the op's value is the same for every micro-batch
  // (a constant, a read of a variable that only the weight update writes,
  // or a stateless op of such values), so later units read it directly
  // instead of through a FIFO.
  bool pipeline_invariant = false;

  const std::string& name() const { return def.name(); }
  const std::string& op() const { return def.op(); }
  // The op's registration, with its traits; nullptr for the cluster's own
  // ops (arguments, inter-IPU copies), which are not registered.
  const OpDef* op_def() const;
};

struct ClusterIr {
  std::string name;
  std::vector<ClusterOp> ops;
  std::vector<int> args;  // op index of each argument, in argument order
  std::vector<ValueRef> results;
  // How many replicas run the cluster: the device's IPUs divided by the
  // shard count (set by shard assignment; 1 until then).
  int replication_factor = 1;
  // How many processes run replication_factor replicas each (a
  // multi-replica distribution, docs/distributed.md): the cross-replica
  // ops' groups are over replication_factor x process_count replicas.
  int process_count = 1;
  // The functions the cluster's control-flow ops (While, If) call: the
  // library of the graph the cluster was cut from.
  std::shared_ptr<const FunctionLibrary> functions;
  // The timetable of each pipelined loop, by loop id (set by the
  // pipeline-formation pass).
  std::map<std::string, PipelineTimetable> pipelines;

  // Appends an argument carrying the host tensor `tensor_name`.
  int AddArg(const std::string& tensor_name, DataType dtype,
             const TensorShape& shape);
  // Appends an op; its inputs must already be in the cluster.
  int AddOp(NodeDef def, std::vector<ValueRef> inputs,
            std::vector<DataType> output_types,
            std::vector<TensorShape> output_shapes);

  const ClusterOp& producer(const ValueRef& v) const { return ops[v.op]; }
  DataType type(const ValueRef& v) const {
    return ops[v.op].output_types[v.index];
  }
  const TensorShape& shape(const ValueRef& v) const {
    return ops[v.op].output_shapes[v.index];
  }
  // "name:index", as TensorFlow names tensors (arguments keep their host
  // tensor's name).
  std::string ValueName(const ValueRef& v) const;

  // One line per op: "%3 add = AddV2(%1:0, %2:0) -> float[2] shard=0",
  // then the results.
  std::string ToString() const;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_CLUSTER_IR_H_
