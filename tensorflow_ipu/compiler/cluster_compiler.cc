#include "tensorflow_ipu/compiler/cluster_compiler.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/program.h"
#include "tensorflow_ipu/compiler/cross_replica_combining.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/gradient_accumulation.h"
#include "tensorflow_ipu/compiler/pipeline_formation.h"
#include "tensorflow_ipu/compiler/input_reuse.h"
#include "tensorflow_ipu/compiler/inter_ipu_copy_insertion.h"
#include "tensorflow_ipu/compiler/loop_formation.h"
#include "tensorflow_ipu/compiler/matmul_accumulation.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/pass.h"
#include "tensorflow_ipu/compiler/shard_assignment.h"
#include "tensorflow_ipu/compiler/static_shape_check.h"
#include "tensorflow_ipu/compiler/value_liveness.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

namespace program = poplar_sim::program;

std::string InputHandle(int k) { return absl::StrCat("in", k); }
std::string OutputHandle(int k) { return absl::StrCat("out", k); }

std::vector<size_t> Dims(const TensorShape& s) {
  std::vector<size_t> d;
  for (int64_t x : s.dim_sizes()) d.push_back(static_cast<size_t>(x));
  return d;
}

// Emits the poplar_sim graph and program of an IR whose passes have run.
// It knows the cluster's own ops (arguments, inter-IPU copies); every other
// op is lowered through the registry, and what the emitter must know of it
// (which variables it writes) comes from its traits (OpDef).
class Emitter {
 public:
  // Reads of the variables in `snapshot_resources` (indices in order of
  // first use) copy the variable; reads of the others alias its tensor.
  Emitter(const ClusterIr& ir, const poplar_sim::Target& target,
          poplar_sim::IpuOrder order, absl::flat_hash_set<int> snapshot_resources,
          const CompileOptions& options)
      : ir_(ir),
        graph_(target, poplar_sim::replication_factor(
                           static_cast<unsigned>(ir.replication_factor))),
        state_(&graph_, std::move(snapshot_resources)),
        last_use_(LastUses(ir)),
        reuse_(ir, last_use_, state_) {
    state_.set_matmul_options(options.matmul_options);
    state_.set_convolution_options(options.convolution_options);
    // One replica's IPUs: the replicas run the same graph. Shard k runs on
    // the IPU the selection order gives it.
    const unsigned ipus = graph_.getTarget().getNumIPUs();
    for (unsigned k = 0; k < ipus; ++k) {
      shards_.push_back(
          graph_.createVirtualGraphForIPU(poplar_sim::ipuForShard(order, k, ipus)));
    }
  }

  // The variables whose aliasing reads were still in use when the variable
  // was written: this emission is wrong for them, and must be redone with
  // them in `snapshot_resources`. Empty when the emission is right.
  const absl::flat_hash_set<int>& clobbered_resources() const {
    return clobbered_resources_;
  }

  std::vector<ResourceBinding> TakeResources() { return state_.TakeResources(); }
  std::vector<FeedBinding> TakeInfeeds() { return state_.TakeInfeeds(); }
  std::vector<FeedBinding> TakeOutfeeds() { return state_.TakeOutfeeds(); }
  int num_execution_counters() const { return state_.num_execution_counters(); }

  // Builds the graph and program; see clobbered_resources().
  absl::Status Emit() {
    values_.resize(ir_.ops.size());
    std::string open_loop;
    for (int i = 0; i < static_cast<int>(ir_.ops.size()); ++i) {
      const std::string loop = LoopOf(ir_.ops[i]);
      if (loop != open_loop) {
        state_.CloseLoop();
        if (!loop.empty()) {
          state_.OpenLoop(loop, LoopCountOf(ir_.ops[i]));
          auto pipeline = ir_.pipelines.find(loop);
          if (pipeline != ir_.pipelines.end()) state_.OpenPipeline(pipeline->second);
        }
        open_loop = loop;
      }
      state_.SetPipelineUnit(ir_.ops[i].pipeline_unit);
      // The update phase follows the body (gradient_accumulation.h).
      if (ir_.ops[i].accumulation_count > 0 && !state_.in_update_phase()) {
        RETURN_IF_ERROR(state_.OpenUpdatePhase(ir_.ops[i].accumulation_count));
      }
      if (ir_.ops[i].after_update && !state_.after_update()) {
        RETURN_IF_ERROR(state_.OpenAfterUpdate());
      }
      RETURN_IF_ERROR(EmitOp(i));
      NoteVariableAliases(i);
      reuse_.NoteValues(i, values_[i]);
    }
    state_.CloseLoop();
    for (int k = 0; k < static_cast<int>(ir_.results.size()); ++k) {
      const ValueRef& r = ir_.results[k];
      const poplar_sim::Tensor& t = values_[r.op][r.index];
      if (t.numElements() == 0) continue;  // nothing to stream back
      poplar_sim::DataStream out = graph_.addDeviceToHostFIFO(
          OutputHandle(k), t.elementType(), t.numElements());
      state_.main_program().add(
          program::Copy(t, out, "stream " + ir_.ValueName(r)));
    }
    return graph_.status();
  }

  // Every op's outputs on the tiles, in op order (handles, which name a
  // variable rather than hold a value, are left out).
  std::vector<TensorTileMapping> TensorMap() const {
    std::vector<TensorTileMapping> map;
    for (size_t i = 0; i < values_.size(); ++i) {
      const ClusterOp& op = ir_.ops[i];
      for (size_t k = 0; k < values_[i].size(); ++k) {
        if (k < op.output_types.size() && op.output_types[k] == DT_RESOURCE) continue;
        map.push_back(DescribeTileMapping(graph_, values_[i][k], op.name(),
                                          static_cast<int>(k)));
      }
    }
    return map;
  }

  absl::StatusOr<poplar_sim::Engine> CreateEngine(
      const poplar_sim::OptionFlags& engine_options,
      poplar_sim::HostThreads* threads) {
    return poplar_sim::Engine::create(graph_, state_.main_program(),
                                      engine_options, threads);
  }

 private:
  absl::Status EmitOp(int i) {
    const ClusterOp& op = ir_.ops[i];
    poplar_sim::Graph& graph = shards_.at(op.shard);
    std::vector<poplar_sim::Tensor> inputs;
    bool delayed = false;
    for (const ValueRef& v : op.inputs) {
      inputs.push_back(values_[v.op][v.index]);
      // In a pipeline, a value of an earlier unit comes through a FIFO.
      const int producer = ir_.ops[v.op].pipeline_unit;
      if (PipelineEmission* p = state_.pipeline();
          p != nullptr && op.pipeline_unit >= 0 && producer >= 0 &&
          producer != op.pipeline_unit && !ir_.ops[v.op].pipeline_invariant) {
        inputs.back() = p->Delayed(inputs.back(), v.op, v.index, producer, op.pipeline_unit,
                                   graph, ir_.ValueName(v));
        delayed = true;
      }
    }

    if (const int k = ArgIndex(i); k >= 0) return EmitArg(i, k, graph);
    if (op.op() == kInterIpuCopyOp && delayed) {
      // The FIFO's transfer already brought the value to this IPU.
      values_[i] = {inputs[0]};
      return absl::OkStatus();
    }
    if (op.op() == kInterIpuCopyOp) {
      const poplar_sim::Tensor& src = inputs[0];
      poplar_sim::Tensor dst = graph.addVariable(
          src.elementType(), Dims(op.output_shapes[0]), op.name());
      poplar_sim::poputil::mapTensorLinearly(
          graph, dst,
          poplar_sim::poputil::defaultMinElementsPerTile(graph, src.elementType()));
      state_.current_program().add(program::Copy(src, dst, op.name()));
      values_[i] = {dst};
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(NoteVariableAccesses(i));
    const LoweringFn* fn = LoweringRegistry::Global()->Find(op.op());
    if (fn == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Op '", op.name(), "' (", op.op(),
          ") has no IPU lowering; place it on the host with "
          "WithDevice(\"cpu\")"));
    }
    LoweringContext ctx(ir_, i, &graph, &state_.current_program(),
                        std::move(inputs), &state_);
    ctx.set_may_overwrite_input([this, i, &ctx, &graph](int j) {
      return j >= 0 && j < ctx.num_inputs() && reuse_.MayOverwrite(i, j, ctx.input(j), graph);
    });
    RETURN_IF_ERROR((*fn)(ctx));
    values_[i] = ctx.TakeOutputs();
    // Check what the lowering made against what the graph inferred, so a
    // lowering bug is a clear error and never a silently wrong result.
    for (size_t k = 0; k < values_[i].size(); ++k) {
      const poplar_sim::Tensor& t = values_[i][k];
      RETURN_IF_ERROR(t.status());
      RETURN_IF_ERROR(graph_.status());
      if (op.output_types[k] == DT_RESOURCE) {
        // A handle's value is its variable's tensor, of the variable's
        // dtype; an op forwarding a handle names the same variable.
        NoteForwardedHandle(i);
        continue;
      }
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

  // Argument k: a variable on the op's IPU, filled from the host each run.
  absl::Status EmitArg(int i, int k, poplar_sim::Graph& graph) {
    const ClusterOp& op = ir_.ops[i];
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
    if (t.numElements() > 0) {
      poplar_sim::DataStream in =
          graph_.addHostToDeviceFIFO(InputHandle(k), type, t.numElements());
      state_.current_program().add(program::Copy(in, t, "stream " + op.name()));
    }
    values_[i] = {t};
    return absl::OkStatus();
  }

  // What op i does to the variables its resource inputs name, by its
  // traits: whether the cluster needs a variable's value from the runtime
  // (it reads or updates it before any whole assignment), and which
  // variables it writes.
  absl::Status NoteVariableAccesses(int i) {
    const ClusterOp& op = ir_.ops[i];
    const OpDef* def = op.op_def();
    for (int j = 0; j < static_cast<int>(op.inputs.size()); ++j) {
      const ValueRef& in = op.inputs[j];
      if (ir_.type(in) != DT_RESOURCE) continue;
      const int k = state_.ResourceOf(in.op);
      if (k < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Op '", op.name(), "' (", op.op(), "): input ", j, " ('",
            ir_.ValueName(in), "') is a resource that names no variable of "
            "cluster ", ir_.name, "; take resources from a variable handle "
            "(VarHandleOp) in the graph"));
      }
      ResourceBinding& b = state_.resource(k);
      const bool overwrites = def != nullptr && def->OverwritesVariable(j);
      if (!overwrites && !b.written) b.reads_initial_value = true;
      if (def != nullptr && def->WritesVariable(j)) {
        b.written = true;
        CheckAliasesBeforeWrite(k, i);
      }
    }
    return absl::OkStatus();
  }

  // An op with a resource output forwards the handle of its one resource
  // input (Identity of a handle): it names the same variable.
  void NoteForwardedHandle(int i) {
    if (state_.ResourceOf(i) >= 0) return;  // a handle op itself
    int source = -1;
    for (const ValueRef& in : ir_.ops[i].inputs) {
      if (ir_.type(in) != DT_RESOURCE) continue;
      if (source >= 0) return;  // ambiguous: names no one variable
      source = in.op;
    }
    if (source >= 0) state_.AliasHandle(i, source);
  }

  // Records which variables the values of op i are views of.
  void NoteVariableAliases(int i) {
    if (!state_.has_resources()) return;
    const ClusterOp& op = ir_.ops[i];
    for (size_t k = 0; k < values_[i].size(); ++k) {
      // A handle (VarHandleOp, or an Identity of one) names the variable;
      // it is not a view of its contents.
      if (k < op.output_types.size() && op.output_types[k] == DT_RESOURCE) continue;
      const poplar_sim::Tensor& t = values_[i][k];
      if (!t.valid()) continue;
      for (const poplar_sim::ElementRun& r : t.runs()) {
        const int resource = state_.ResourceOfPoplarVariable(r.var);
        if (resource < 0) continue;
        std::vector<int>& aliases = aliases_[resource];
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
  EmissionState state_;
  std::vector<poplar_sim::Graph> shards_;
  std::vector<std::vector<poplar_sim::Tensor>> values_;
  // Position of each op's last reader (value_liveness.h).
  std::vector<int> last_use_;
  InputReuse reuse_;
  absl::flat_hash_map<int, std::vector<int>> aliases_;  // resource -> ops viewing it
  absl::flat_hash_set<int> clobbered_resources_;
};

}  // namespace

poplar_sim::IpuOrder ResolveIpuOrder(const ClusterIr& ir,
                                     const CompileOptions& options) {
  if (options.ipu_order.has_value()) return *options.ipu_order;
  return ir.pipelines.empty() ? poplar_sim::IpuOrder::kZigZag
                              : poplar_sim::IpuOrder::kSnake;
}

absl::StatusOr<std::unique_ptr<CompiledCluster>> CompileCluster(
    ClusterIr ir, const poplar_sim::Target& target,
    const CompileOptions& options) {
  PassPipeline pipeline("ipu-cluster");
  pipeline.AddPass<StaticShapeCheck>();
  pipeline.AddPass<ShardAssignment>(static_cast<int>(target.getNumIPUs()));
  pipeline.AddPass<InterIpuCopyInsertion>();
  pipeline.AddPass<LoopFormation>();
  pipeline.AddPass<GradientAccumulation>();
  pipeline.AddPass<PipelineFormation>();
  pipeline.AddPass<MatMulAccumulation>();
  pipeline.AddPass<CrossReplicaCombining>(options.cross_replica_sum_buffer_bytes);
  RETURN_IF_ERROR(pipeline.Run(&ir).status());

  std::unique_ptr<CompiledCluster> compiled(new CompiledCluster);
  // Variable reads alias the variable unless a write would clobber a read
  // still in use: then those variables' reads are snapshots, and the
  // cluster is emitted again (the second emission aliases nothing written).
  // After the passes: pipeline formation decides whether there is one.
  const poplar_sim::IpuOrder order = ResolveIpuOrder(ir, options);
  auto emitter =
      std::make_unique<Emitter>(ir, target, order, absl::flat_hash_set<int>(), options);
  RETURN_IF_ERROR(emitter->Emit());
  if (!emitter->clobbered_resources().empty()) {
    absl::flat_hash_set<int> snapshots = emitter->clobbered_resources();
    emitter = std::make_unique<Emitter>(ir, target, order, std::move(snapshots), options);
    RETURN_IF_ERROR(emitter->Emit());
    if (!emitter->clobbered_resources().empty()) {
      return absl::InternalError(absl::StrCat(
          "cluster ", ir.name, ": a variable is still read after it is written "
          "although its reads are snapshots"));
    }
  }
  ASSIGN_OR_RETURN(poplar_sim::Engine engine, emitter->CreateEngine(options.engine_options,
                                                                        options.host_threads));
  compiled->engine_ = std::make_unique<poplar_sim::Engine>(std::move(engine));
  // Execution counters start at 0 in a new engine (so a seeded random op
  // gives the same numbers in every fresh session) and are never reset:
  // runs continue the count.
  const uint32_t zero = 0;
  for (int k = 0; k < emitter->num_execution_counters(); ++k) {
    RETURN_IF_ERROR(compiled->engine_->writeTensor(CounterHandleName(k), &zero, &zero + 1));
  }
  for (const poplar_sim::TileMemory& tile : compiled->engine_->getTileMemory()) {
    compiled->max_tile_bytes_ = std::max<uint64_t>(compiled->max_tile_bytes_, tile.total());
  }
  compiled->tiles_used_ = poplar_sim::countTilesUsed(compiled->engine_->getTileMemory());
  if (options.collect_tensor_map) compiled->tensor_map_ = emitter->TensorMap();
  compiled->resources_ = emitter->TakeResources();
  compiled->infeeds_ = emitter->TakeInfeeds();
  compiled->outfeeds_ = emitter->TakeOutfeeds();
  compiled->ir_ = std::move(ir);
  return compiled;
}

absl::Status CompiledCluster::DistributeReplicas(
    int process_count, int process_index,
    std::shared_ptr<poplar_sim::CrossInstanceExchange> exchange, poplar_sim::HostNetwork network) {
  if (process_count <= 1) return engine_->setRuntimeReplicaSubset({});
  const unsigned local = static_cast<unsigned>(replication_factor());
  return engine_->setRuntimeReplicaSubset(
      {local * static_cast<unsigned>(process_count),
       local * static_cast<unsigned>(process_index), std::move(exchange), network});
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
  const int64_t replicas = replication_factor();
  auto mismatch = [&](const std::string& got) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Infeed '", b.feed_name, "' component ", b.index, " of cluster ",
        ir_.name, " takes ", b.records_per_run * replicas, " records of ",
        DataTypeString(b.dtype), b.shape.DebugString(),
        replicas > 1 ? absl::StrCat(" (", b.records_per_run, " for each of ", replicas,
                                    " replicas)")
                     : "",
        ", got ", got));
  };
  if (static_cast<int64_t>(records.size()) != b.records_per_run * replicas) {
    return mismatch(absl::StrCat(records.size(), " records"));
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const Tensor& r = records[i];
    if (r.dtype() != b.dtype || r.shape() != b.shape) {
      return mismatch(absl::StrCat("record ", i, " ", r.SummaryString()));
    }
  }
  if (records.empty() || records[0].TotalBytes() == 0) return absl::OkStatus();
  // The engine reads each record where the dataset left it: no stacking.
  for (int64_t replica = 0; replica < replicas; ++replica) {
    std::vector<absl::Span<const char>> spans;
    spans.reserve(b.records_per_run);
    for (size_t i = replica; i < records.size(); i += replicas) {
      spans.emplace_back(static_cast<const char*>(records[i].raw_data()),
                         records[i].TotalBytes());
    }
    RETURN_IF_ERROR(engine_->connectStreamToRecords(
        InfeedHandle(k), static_cast<unsigned>(replica), std::move(spans)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> CompiledCluster::ConnectOutfeed(int k) {
  const FeedBinding& b = outfeeds_.at(k);
  std::vector<int64_t> dims = {b.records_per_run};
  for (int64_t d : b.shape.dim_sizes()) dims.push_back(d);
  std::vector<Tensor> per_replica;
  for (int replica = 0; replica < replication_factor(); ++replica) {
    ASSIGN_OR_RETURN(Tensor records, Tensor::Create(b.dtype, TensorShape(dims)));
    if (records.TotalBytes() > 0) {
      char* begin = static_cast<char*>(records.raw_data());
      RETURN_IF_ERROR(engine_->connectStream(OutfeedHandle(k), static_cast<unsigned>(replica),
                                             begin, begin + records.TotalBytes()));
    }
    per_replica.push_back(std::move(records));
  }
  return per_replica;
}

absl::StatusOr<Tensor> CompiledCluster::StackReplicas(const std::vector<Tensor>& per_replica) {
  if (per_replica.size() == 1) return per_replica[0];
  if (per_replica.empty()) return absl::InvalidArgumentError("StackReplicas: no replicas");
  const Tensor& first = per_replica[0];
  const int64_t n = first.dims() > 0 ? first.shape().dim_size(0) : 1;
  const int64_t replicas = static_cast<int64_t>(per_replica.size());
  std::vector<int64_t> dims = {n, replicas};
  for (int d = 1; d < first.dims(); ++d) dims.push_back(first.shape().dim_size(d));
  ASSIGN_OR_RETURN(Tensor out, Tensor::Create(first.dtype(), TensorShape(dims)));
  const size_t record = n > 0 ? first.TotalBytes() / n : 0;
  char* dst = static_cast<char*>(out.raw_data());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t r = 0; r < replicas; ++r) {
      std::memcpy(dst + (i * replicas + r) * record,
                  static_cast<const char*>(per_replica[r].raw_data()) + i * record, record);
    }
  }
  return out;
}

absl::StatusOr<ClusterRunStats> CompiledCluster::Run(
    poplar_sim::Device& device, const std::vector<Tensor>& inputs,
    std::vector<Tensor>* outputs, poplar_sim::HostThreads* host_threads,
    absl::Time deadline) {
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
  engine_->setRunDeadline(deadline);
  absl::Status ran = engine_->run(0, ir_.name);
  engine_->setHostThreads(nullptr);
  engine_->setRunDeadline(absl::InfiniteFuture());
  RETURN_IF_ERROR(ran);
  stats.run = engine_->getLastRunStats();
  return stats;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
