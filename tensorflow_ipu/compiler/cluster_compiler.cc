#include "tensorflow_ipu/compiler/cluster_compiler.h"

#include <algorithm>

#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/program.h"
#include "tensorflow_ipu/compiler/inter_ipu_copy_insertion.h"
#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/pass.h"
#include "tensorflow_ipu/compiler/shard_assignment.h"
#include "tensorflow_ipu/compiler/static_shape_check.h"
#include "tensorflow_ipu/compiler/value_liveness.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

namespace program = poplar_sim::program;

std::string InputHandle(int k) { return absl::StrCat("in", k); }
std::string OutputHandle(int k) { return absl::StrCat("out", k); }
std::string ResourceHandleName(int k) { return absl::StrCat("var", k); }
std::string InfeedHandle(int k) { return absl::StrCat("infeed", k); }
std::string OutfeedHandle(int k) { return absl::StrCat("outfeed", k); }

bool AssignsResource(const std::string& op) {
  return op == "AssignVariableOp" || op == "AssignAddVariableOp" ||
         op == "AssignSubVariableOp" || op == "ResourceApplyGradientDescent";
}

std::vector<size_t> Dims(const TensorShape& s) {
  std::vector<size_t> d;
  for (int64_t x : s.dim_sizes()) d.push_back(static_cast<size_t>(x));
  return d;
}

// Emits the poplar_sim graph and program of an IR whose passes have run.
class Emitter {
 public:
  // Reads of the variables in `snapshot_resources` (indices in order of
  // first use) copy the variable; reads of the others alias its tensor.
  Emitter(const ClusterIr& ir, const poplar_sim::Target& target,
          absl::flat_hash_set<int> snapshot_resources)
      : ir_(ir), graph_(target), last_use_(LastUses(ir)),
        snapshot_resources_(std::move(snapshot_resources)) {
    for (unsigned i = 0; i < target.getNumIPUs(); ++i) {
      shards_.push_back(graph_.createVirtualGraphForIPU(i));
    }
  }

  // The variables whose aliasing reads were still in use when the variable
  // was written: this emission is wrong for them, and must be redone with
  // them in `snapshot_resources`. Empty when the emission is right.
  const absl::flat_hash_set<int>& clobbered_resources() const {
    return clobbered_resources_;
  }

  std::vector<ResourceBinding> TakeResources() { return std::move(resources_); }
  std::vector<FeedBinding> TakeInfeeds() { return std::move(infeeds_); }
  std::vector<FeedBinding> TakeOutfeeds() { return std::move(outfeeds_); }

  // Builds the graph and program; see clobbered_resources().
  absl::Status Emit() {
    values_.resize(ir_.ops.size());
    for (int i = 0; i < static_cast<int>(ir_.ops.size()); ++i) {
      const std::string loop = LoopOf(ir_.ops[i]);
      if (loop != open_loop_) {
        CloseLoop();
        if (!loop.empty()) OpenLoop(loop, LoopCountOf(ir_.ops[i]));
      }
      RETURN_IF_ERROR(EmitOp(i));
      NoteVariableAliases(i);
    }
    CloseLoop();
    for (int k = 0; k < static_cast<int>(ir_.results.size()); ++k) {
      const ValueRef& r = ir_.results[k];
      const poplar_sim::Tensor& t = values_[r.op][r.index];
      if (t.numElements() == 0) continue;  // nothing to stream back
      poplar_sim::DataStream out = graph_.addDeviceToHostFIFO(
          OutputHandle(k), t.elementType(), t.numElements());
      prog_.add(program::Copy(t, out, "stream " + ir_.ValueName(r)));
    }
    return graph_.status();
  }

  absl::StatusOr<poplar_sim::Engine> CreateEngine(
      const poplar_sim::OptionFlags& engine_options) {
    return poplar_sim::Engine::create(graph_, prog_, engine_options);
  }

 private:
  absl::Status EmitOp(int i) {
    const ClusterOp& op = ir_.ops[i];
    poplar_sim::Graph& graph = shards_.at(op.shard);
    std::vector<poplar_sim::Tensor> inputs;
    for (const ValueRef& v : op.inputs) inputs.push_back(values_[v.op][v.index]);

    if (op.op() == kArgOp) {
      absl::StatusOr<poplar_sim::Type> arg_type = ToPoplarType(op.output_types[0]);
      if (!arg_type.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Tensor '", op.name(), "', streamed to the IPU: ",
                         arg_type.status().message()));
      }
      const poplar_sim::Type type = *arg_type;
      poplar_sim::Tensor t =
          graph.addVariable(type, Dims(op.output_shapes[0]), op.name());
      poplar_sim::poputil::mapTensorLinearly(
          graph, t, poplar_sim::poputil::defaultMinElementsPerTile(graph, type));
      const int k = ArgIndex(i);
      if (t.numElements() > 0) {
        poplar_sim::DataStream in =
            graph_.addHostToDeviceFIFO(InputHandle(k), type, t.numElements());
        current_->add(program::Copy(in, t, "stream " + op.name()));
      }
      values_[i] = {t};
      return absl::OkStatus();
    }
    if (op.op() == kInterIpuCopyOp) {
      const poplar_sim::Tensor& src = inputs[0];
      poplar_sim::Tensor dst = graph.addVariable(
          src.elementType(), Dims(op.output_shapes[0]), op.name());
      poplar_sim::poputil::mapTensorLinearly(
          graph, dst,
          poplar_sim::poputil::defaultMinElementsPerTile(graph, src.elementType()));
      current_->add(program::Copy(src, dst, op.name()));
      values_[i] = {dst};
      return absl::OkStatus();
    }
    if (op.op() == "VarHandleOp") return EmitVarHandle(i, graph);
    if (op.op() == "IpuLoopEnter" || op.op() == "IpuLoopExit" ||
        op.op() == "IpuInfeedDequeue" || op.op() == "IpuOutfeedEnqueue") {
      return EmitLoopOp(i, graph, inputs);
    }
    for (const ValueRef& in : op.inputs) {
      if (ir_.type(in) != DT_RESOURCE) continue;
      const int k = resource_of_.at(in.op);
      ResourceBinding& b = resources_[k];
      if (op.op() != "AssignVariableOp" && !b.written) {
        b.reads_initial_value = true;
      }
      if (AssignsResource(op.op())) {
        b.written = true;
        CheckAliasesBeforeWrite(k, i);
      }
    }
    if (op.op() == "ReadVariableOp" &&
        !snapshot_resources_.contains(resource_of_.at(op.inputs[0].op))) {
      // The variable's own tensor: no copy, as nothing writes the variable
      // while this value is in use (else the emission is redone).
      values_[i] = {inputs[0]};
      return absl::OkStatus();
    }
    const LoweringFn* fn = LoweringRegistry::Global()->Find(op.op());
    if (fn == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Op '", op.name(), "' (", op.op(),
          ") has no IPU lowering; place it on the host with "
          "WithDevice(\"cpu\")"));
    }
    LoweringContext ctx(ir_, i, &graph, current_, std::move(inputs));
    RETURN_IF_ERROR((*fn)(ctx));
    values_[i] = ctx.TakeOutputs();
    // Check what the lowering made against what the graph inferred, so a
    // lowering bug is a clear error and never a silently wrong result.
    for (size_t k = 0; k < values_[i].size(); ++k) {
      const poplar_sim::Tensor& t = values_[i][k];
      RETURN_IF_ERROR(t.status());
      RETURN_IF_ERROR(graph_.status());
      ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(op.output_types[k]));
      if (t.shape() != Dims(op.output_shapes[k]) || t.elementType() != type) {
        return absl::InternalError(absl::StrCat(
            "The IPU lowering of op '", op.name(), "' (", op.op(),
            ") made output ", k, " of type ", poplar_sim::typeName(t.elementType()),
            " and shape ", t.shapeToString(), "; the graph expects ",
            DataTypeString(op.output_types[k]),
            op.output_shapes[k].DebugString()));
      }
    }
    return absl::OkStatus();
  }

  void OpenLoop(const std::string& loop, int64_t count) {
    open_loop_ = loop;
    loop_count_ = count;
    body_ = program::Sequence();
    current_ = &body_;
    carried_.clear();
    exit_copies_.clear();
  }

  // Ends the body with the carried values' updates and repeats it.
  void CloseLoop() {
    if (open_loop_.empty()) return;
    for (const auto& [next, carried] : exit_copies_) {
      body_.add(program::Copy(next, carried, open_loop_ + "/next"));
    }
    prog_.add(program::Repeat(static_cast<unsigned>(loop_count_), body_,
                              open_loop_));
    open_loop_.clear();
    current_ = &prog_;
  }

  absl::Status EmitLoopOp(int i, poplar_sim::Graph& graph,
                          const std::vector<poplar_sim::Tensor>& inputs) {
    const ClusterOp& op = ir_.ops[i];
    if (open_loop_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Op '", op.name(), "' (", op.op(),
          ") is not in a loop body; build it with ipu::loops::repeat"));
    }
    ASSIGN_OR_RETURN(int64_t index, GetNodeAttr<int64_t>(op.def, "index"));
    if (op.op() == "IpuLoopEnter") {
      // The carried value lives in its own tensor, set before the loop.
      poplar_sim::Tensor carried = graph.clone(inputs[0], op.name());
      prog_.add(program::Copy(inputs[0], carried, op.name()));
      carried_[index] = carried;
      values_[i] = {carried};
      return absl::OkStatus();
    }
    if (op.op() == "IpuLoopExit") {
      auto it = carried_.find(index);
      if (it == carried_.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Loop exit '", op.name(), "' has no matching loop entry ", index));
      }
      // Copied at the end of the body, after every op read this iteration's
      // value; after the loop the carried tensor is the result.
      exit_copies_.emplace_back(inputs[0], it->second);
      values_[i] = {it->second};
      return absl::OkStatus();
    }
    FeedBinding b;
    ASSIGN_OR_RETURN(b.feed_name, GetNodeAttr<std::string>(op.def, "feed_name"));
    b.index = static_cast<int>(index);
    b.records_per_run = loop_count_;
    if (op.op() == "IpuInfeedDequeue") {
      b.dtype = op.output_types[0];
      b.shape = op.output_shapes[0];
      ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(b.dtype));
      poplar_sim::Tensor t = graph.addVariable(type, Dims(b.shape), op.name());
      poplar_sim::poputil::mapTensorLinearly(
          graph, t, poplar_sim::poputil::defaultMinElementsPerTile(graph, type));
      const int k = static_cast<int>(infeeds_.size());
      poplar_sim::DataStream s =
          graph_.addHostToDeviceFIFO(InfeedHandle(k), type, t.numElements());
      current_->add(program::Copy(s, t, op.name()));
      infeeds_.push_back(std::move(b));
      values_[i] = {t};
      return absl::OkStatus();
    }
    // IpuOutfeedEnqueue
    b.dtype = ir_.type(op.inputs[0]);
    b.shape = ir_.shape(op.inputs[0]);
    const int k = static_cast<int>(outfeeds_.size());
    poplar_sim::DataStream s = graph_.addDeviceToHostFIFO(
        OutfeedHandle(k), inputs[0].elementType(), inputs[0].numElements());
    current_->add(program::Copy(inputs[0], s, op.name()));
    outfeeds_.push_back(std::move(b));
    values_[i] = {};
    return absl::OkStatus();
  }

  // One device tensor per variable, however many handle ops name it.
  absl::Status EmitVarHandle(int i, poplar_sim::Graph& graph) {
    const ClusterOp& op = ir_.ops[i];
    ResourceBinding b;
    ASSIGN_OR_RETURN(b.name, GetNodeAttr<std::string>(op.def, "shared_name"));
    if (b.name.empty()) b.name = op.name();
    ASSIGN_OR_RETURN(b.dtype, GetNodeAttr<DataType>(op.def, "dtype"));
    ASSIGN_OR_RETURN(b.shape, GetNodeAttr<TensorShape>(op.def, "shape"));
    for (int k = 0; k < static_cast<int>(resources_.size()); ++k) {
      if (resources_[k].name != b.name) continue;
      if (resources_[k].dtype != b.dtype || resources_[k].shape != b.shape) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Variable ", b.name, " is used with two different types or shapes "
            "in cluster ", ir_.name));
      }
      resource_of_[i] = k;
      values_[i] = {resource_tensors_[k]};
      return absl::OkStatus();
    }
    if (!b.shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Variable ", b.name, " has shape ", b.shape.DebugString(),
          "; variables on the IPU need a fully defined shape"));
    }
    ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(b.dtype));
    poplar_sim::Tensor t = graph.addVariable(type, Dims(b.shape), b.name);
    poplar_sim::poputil::mapTensorLinearly(
        graph, t, poplar_sim::poputil::defaultMinElementsPerTile(graph, type));
    const int k = static_cast<int>(resources_.size());
    if (t.numElements() > 0) {
      graph_.createHostWrite(ResourceHandleName(k), t);
      graph_.createHostRead(ResourceHandleName(k), t);
    }
    if (t.numElements() > 0) var_resource_[t.runs()[0].var] = k;
    resources_.push_back(std::move(b));
    resource_tensors_.push_back(t);
    resource_of_[i] = k;
    values_[i] = {t};
    return absl::OkStatus();
  }

  // Records which variables the values of op i are views of.
  void NoteVariableAliases(int i) {
    if (var_resource_.empty()) return;
    const ClusterOp& op = ir_.ops[i];
    for (size_t k = 0; k < values_[i].size(); ++k) {
      // A handle (VarHandleOp, or an Identity of one) names the variable;
      // it is not a view of its contents.
      if (k < op.output_types.size() && op.output_types[k] == DT_RESOURCE) continue;
      const poplar_sim::Tensor& t = values_[i][k];
      if (!t.valid()) continue;
      for (const poplar_sim::ElementRun& r : t.runs()) {
        auto it = var_resource_.find(r.var);
        if (it == var_resource_.end()) continue;
        std::vector<int>& aliases = aliases_[it->second];
        if (aliases.empty() || aliases.back() != i) aliases.push_back(i);
      }
    }
  }

  // Op `position` writes variable k: a value aliasing k that is read after
  // this point would see the new contents instead of the value it had.
  void CheckAliasesBeforeWrite(int k, int position) {
    for (int i : aliases_[k]) {
      if (last_use_[i] > position) clobbered_resources_.insert(k);
    }
  }

  int ArgIndex(int op_index) const {
    for (int k = 0; k < static_cast<int>(ir_.args.size()); ++k) {
      if (ir_.args[k] == op_index) return k;
    }
    return -1;
  }

  const ClusterIr& ir_;
  poplar_sim::Graph graph_;
  std::vector<poplar_sim::Graph> shards_;
  program::Sequence prog_;
  std::vector<std::vector<poplar_sim::Tensor>> values_;
  std::vector<ResourceBinding> resources_;
  std::vector<poplar_sim::Tensor> resource_tensors_;
  std::vector<FeedBinding> infeeds_;
  std::vector<FeedBinding> outfeeds_;
  // Where ops are emitted: the main program, or the body of the open loop.
  program::Sequence* current_ = &prog_;
  std::string open_loop_;
  int64_t loop_count_ = 1;
  program::Sequence body_;
  std::map<int64_t, poplar_sim::Tensor> carried_;
  std::vector<std::pair<poplar_sim::Tensor, poplar_sim::Tensor>> exit_copies_;
  absl::flat_hash_map<int, int> resource_of_;  // handle op -> resources_ index
  // Position of each op's last reader (value_liveness.h).
  std::vector<int> last_use_;
  absl::flat_hash_set<int> snapshot_resources_;
  absl::flat_hash_map<uint32_t, int> var_resource_;  // poplar variable -> resource
  absl::flat_hash_map<int, std::vector<int>> aliases_;  // resource -> ops viewing it
  absl::flat_hash_set<int> clobbered_resources_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledCluster>> CompileCluster(
    ClusterIr ir, const poplar_sim::Target& target,
    const poplar_sim::OptionFlags& engine_options) {
  PassPipeline pipeline("ipu-cluster");
  pipeline.AddPass<StaticShapeCheck>();
  pipeline.AddPass<ShardAssignment>(static_cast<int>(target.getNumIPUs()));
  pipeline.AddPass<InterIpuCopyInsertion>();
  pipeline.AddPass<LoopFormation>();
  RETURN_IF_ERROR(pipeline.Run(&ir).status());

  std::unique_ptr<CompiledCluster> compiled(new CompiledCluster);
  // Variable reads alias the variable unless a write would clobber a read
  // still in use: then those variables' reads are snapshots, and the
  // cluster is emitted again (the second emission aliases nothing written).
  auto emitter = std::make_unique<Emitter>(ir, target, absl::flat_hash_set<int>());
  RETURN_IF_ERROR(emitter->Emit());
  if (!emitter->clobbered_resources().empty()) {
    absl::flat_hash_set<int> snapshots = emitter->clobbered_resources();
    emitter = std::make_unique<Emitter>(ir, target, std::move(snapshots));
    RETURN_IF_ERROR(emitter->Emit());
    if (!emitter->clobbered_resources().empty()) {
      return absl::InternalError(absl::StrCat(
          "cluster ", ir.name, ": a variable is still read after it is written "
          "although its reads are snapshots"));
    }
  }
  ASSIGN_OR_RETURN(poplar_sim::Engine engine, emitter->CreateEngine(engine_options));
  compiled->engine_ = std::make_unique<poplar_sim::Engine>(std::move(engine));
  for (const poplar_sim::TileMemory& tile : compiled->engine_->getTileMemory()) {
    compiled->max_tile_bytes_ = std::max<uint64_t>(compiled->max_tile_bytes_, tile.total());
  }
  compiled->tiles_used_ = poplar_sim::countTilesUsed(compiled->engine_->getTileMemory());
  compiled->resources_ = emitter->TakeResources();
  compiled->infeeds_ = emitter->TakeInfeeds();
  compiled->outfeeds_ = emitter->TakeOutfeeds();
  compiled->ir_ = std::move(ir);
  return compiled;
}

absl::Status CompiledCluster::WriteResource(int k, const Tensor& value) {
  const ResourceBinding& b = resources_.at(k);
  if (value.dtype() != b.dtype || value.shape() != b.shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Variable ", b.name, " of cluster ", ir_.name, " is ",
        DataTypeString(b.dtype), b.shape.DebugString(), ", not ",
        value.SummaryString()));
  }
  if (value.TotalBytes() == 0) return absl::OkStatus();
  const char* begin = static_cast<const char*>(value.raw_data());
  return engine_->writeTensor(ResourceHandleName(k), begin,
                              begin + value.TotalBytes());
}

absl::StatusOr<Tensor> CompiledCluster::ReadResource(int k) {
  const ResourceBinding& b = resources_.at(k);
  ASSIGN_OR_RETURN(Tensor value, Tensor::Create(b.dtype, b.shape));
  if (value.TotalBytes() == 0) return value;
  char* begin = static_cast<char*>(value.raw_data());
  RETURN_IF_ERROR(engine_->readTensor(ResourceHandleName(k), begin,
                                      begin + value.TotalBytes()));
  return value;
}

absl::Status CompiledCluster::ConnectInfeed(int k, const std::vector<Tensor>& records) {
  const FeedBinding& b = infeeds_.at(k);
  auto mismatch = [&](const std::string& got) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Infeed '", b.feed_name, "' component ", b.index, " of cluster ",
        ir_.name, " takes ", b.records_per_run, " records of ",
        DataTypeString(b.dtype), b.shape.DebugString(), ", got ", got));
  };
  if (static_cast<int64_t>(records.size()) != b.records_per_run) {
    return mismatch(absl::StrCat(records.size(), " records"));
  }
  std::vector<absl::Span<const char>> spans;
  spans.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const Tensor& r = records[i];
    if (r.dtype() != b.dtype || r.shape() != b.shape) {
      return mismatch(absl::StrCat("record ", i, " ", r.SummaryString()));
    }
    spans.emplace_back(static_cast<const char*>(r.raw_data()), r.TotalBytes());
  }
  if (records.empty() || records[0].TotalBytes() == 0) return absl::OkStatus();
  // The engine reads each record where the dataset left it: no stacking.
  return engine_->connectStreamToRecords(InfeedHandle(k), std::move(spans));
}

absl::StatusOr<Tensor> CompiledCluster::ConnectOutfeed(int k) {
  const FeedBinding& b = outfeeds_.at(k);
  std::vector<int64_t> dims = {b.records_per_run};
  for (int64_t d : b.shape.dim_sizes()) dims.push_back(d);
  ASSIGN_OR_RETURN(Tensor records, Tensor::Create(b.dtype, TensorShape(dims)));
  if (records.TotalBytes() > 0) {
    char* begin = static_cast<char*>(records.raw_data());
    RETURN_IF_ERROR(engine_->connectStream(OutfeedHandle(k), begin,
                                           begin + records.TotalBytes()));
  }
  return records;
}

absl::StatusOr<ClusterRunStats> CompiledCluster::Run(
    poplar_sim::Device& device, const std::vector<Tensor>& inputs,
    std::vector<Tensor>* outputs, poplar_sim::HostThreads* host_threads) {
  if (inputs.size() != ir_.args.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster ", ir_.name, " takes ", ir_.args.size(), " input(s), got ",
        inputs.size()));
  }
  for (int k = 0; k < static_cast<int>(inputs.size()); ++k) {
    const ClusterOp& arg = ir_.ops[ir_.args[k]];
    if (inputs[k].dtype() != arg.output_types[0] ||
        inputs[k].shape() != arg.output_shapes[0]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input ", k, " ('", arg.name(), "') of IPU cluster ", ir_.name,
          " is ", inputs[k].SummaryString(), "; the cluster was compiled for ",
          DataTypeString(arg.output_types[0]), arg.output_shapes[0].DebugString()));
    }
    if (inputs[k].NumElements() == 0) continue;
    // The engine only reads host-to-device buffers.
    RETURN_IF_ERROR(engine_->connectStream(
        InputHandle(k), const_cast<void*>(inputs[k].raw_data())));
  }
  outputs->clear();
  for (int k = 0; k < static_cast<int>(ir_.results.size()); ++k) {
    const ValueRef& r = ir_.results[k];
    ASSIGN_OR_RETURN(Tensor t, Tensor::Create(ir_.type(r), ir_.shape(r)));
    if (t.NumElements() > 0) {
      RETURN_IF_ERROR(engine_->connectStream(OutputHandle(k), t.raw_data()));
    }
    outputs->push_back(std::move(t));
  }
  ClusterRunStats stats;
  const uint64_t loaded = device.loadedEngineId();
  if (loaded != engine_->getId()) {
    RETURN_IF_ERROR(engine_->load(device));
    stats.engine_loaded = true;
    stats.engine_switched = loaded != 0;
    stats.load = engine_->getLoadCost();
  }
  // The threads are the caller's for this run only.
  engine_->setHostThreads(host_threads);
  absl::Status ran = engine_->run(0, ir_.name);
  engine_->setHostThreads(nullptr);
  RETURN_IF_ERROR(ran);
  stats.run = engine_->getLastRunStats();
  return stats;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
