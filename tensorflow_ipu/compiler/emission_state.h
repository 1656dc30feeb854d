// EmissionState: what the ops of one cluster share while the cluster is
// lowered, beyond the values that flow between them: the programs being
// built, the on-device loop whose body is open, the streams of the feeds and
// the cluster's resource variables and its execution counters. The emitter (cluster_compiler.cc) owns
// it; lowerings reach it through LoweringContext::cluster(), so loop, feed
// and variable ops are lowered like any other op, through the registry.
//
//   absl::Status LowerLoopEnter(LoweringContext& ctx) {
//     EmissionState& cluster = ctx.cluster();
//     poplar_sim::Tensor carried = ctx.graph().clone(ctx.input(0), name);
//     cluster.main_program().add(program::Copy(ctx.input(0), carried));
//     cluster.SetCarried(index, carried);
//     ...
#ifndef TENSORFLOW_IPU_COMPILER_EMISSION_STATE_H_
#define TENSORFLOW_IPU_COMPILER_EMISSION_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/program.h"
#include "poplar_sim/tensor.h"
#include "tensorflow_ipu/compiler/pipeline_emission.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"

namespace tensorflow_ipu {
namespace compiler {

// A resource variable the cluster keeps in device memory.
struct ResourceBinding {
  std::string name;  // the variable's shared name
  DataType dtype = DT_INVALID;
  TensorShape shape;
  bool written = false;  // the cluster assigns or updates it
  // The cluster reads the value it finds (a read or an update before any
  // whole assignment), so the runtime must provide it.
  bool reads_initial_value = false;
};

// One component of an infeed or outfeed used in a loop: the host streams
// `records_per_run` records (one per iteration) each run.
struct FeedBinding {
  std::string feed_name;
  int index = 0;  // component of the feed's elements
  DataType dtype = DT_INVALID;
  TensorShape shape;  // of one record
  int64_t records_per_run = 1;
};

// The host handle names of the engine (what CompiledCluster connects).
std::string InfeedHandle(int k);
std::string OutfeedHandle(int k);
std::string ResourceHandleName(int k);
std::string CounterHandleName(int k);

class EmissionState {
 public:
  // `graph` is the whole device's graph (streams and host handles are made
  // on it). Reads of the variables in `snapshot_resources` (indices in
  // order of first use) must copy the variable; reads of the others may
  // alias its tensor.
  EmissionState(poplar_sim::Graph* graph,
                absl::flat_hash_set<int> snapshot_resources);

  // --- Programs
  // The cluster's program: what runs before, between and after loops.
  poplar_sim::program::Sequence& main_program() { return main_; }
  // Where ops are emitted now: what follows the open loop's update, its
  // update phase, the program of the pipeline unit being emitted, or the
  // loop's body; else main_program().
  poplar_sim::program::Sequence& current_program() {
    if (loop_.empty()) return main_;
    if (after_update_) return after_;
    if (accumulation_ > 0) return update_;
    if (pipeline_ && unit_ >= 0) return pipeline_->unit_program(unit_);
    return body_;
  }

  // --- Loops (ipu::loops::repeat). The emitter opens a loop at the first
  // op of its body and closes it after the last.
  void OpenLoop(const std::string& loop, int64_t iterations);
  // Ends the body with the iteration-end copies and appends the repeated
  // body to the main program.
  void CloseLoop();
  bool in_loop() const { return !loop_.empty(); }
  int64_t loop_iterations() const { return iterations_; }
  // Gradient accumulation: the rest of the open loop's ops run once every
  // `count` iterations, after the body (gradient_accumulation.h), and the
  // loop becomes Repeat(iterations / count, {Repeat(count, body), update}).
  absl::Status OpenUpdatePhase(int64_t count);
  bool in_update_phase() const { return accumulation_ > 0; }
  // The rest of the open loop's ops wait for the update but run every
  // iteration: the loop becomes Repeat(iterations / count, {Repeat(count -
  // 1, {body, after}), body, update, after}), the next carried values
  // copied at the end of each iteration (gradient_accumulation.h).
  absl::Status OpenAfterUpdate();
  bool after_update() const { return after_update_; }
  // Pipelining: the open loop is a pipeline (pipeline_emission.h); its
  // iterations are repeat_count x the timetable's depth, and gradient
  // accumulation over the depth (the update phase) follows each run of the
  // pipeline.
  void OpenPipeline(const PipelineTimetable& timetable);
  // The unit whose program current_program() is (-1: the loop's body).
  void SetPipelineUnit(int unit) { unit_ = unit; }
  // nullptr when the open loop is not a pipeline.
  PipelineEmission* pipeline() { return pipeline_ ? &*pipeline_ : nullptr; }
  // How often the current ops run per run of the cluster: the loop's
  // iterations, or iterations / count in the update phase (an outfeed
  // there sends one record per weight update).
  int64_t phase_iterations() const {
    return accumulation_ > 0 && !after_update_ ? iterations_ / accumulation_ : iterations_;
  }
  // Loop-carried value `index` of the open loop: its own tensor, which the
  // body reads and which holds the value after the loop.
  void SetCarried(int64_t index, poplar_sim::Tensor t) { carried_[index] = std::move(t); }
  // nullptr when the open loop carries no value `index`.
  const poplar_sim::Tensor* FindCarried(int64_t index) const;
  // A copy done at the end of every iteration, after every op of the body
  // (the next iteration's carried value); in the update phase, at the end
  // of the update; after the update, at the end of every iteration.
  void CopyAtIterationEnd(poplar_sim::Tensor from, poplar_sim::Tensor to);

  // --- Feeds: a host stream of `elements` elements per record, registered
  // as the cluster's next infeed (outfeed) with binding `b`.
  poplar_sim::DataStream AddInfeed(FeedBinding b, poplar_sim::Type type,
                                   size_t elements);
  poplar_sim::DataStream AddOutfeed(FeedBinding b, poplar_sim::Type type,
                                    size_t elements);

  // --- Variables
  // The device tensor of variable `b.name`, made on `shard` (with host
  // write and read handles) the first time a handle op names it; later
  // handles of the same name get the same tensor. Op `handle_op` then
  // names that variable. InvalidArgument when the name is used with two
  // dtypes or shapes, or the shape is not fully defined.
  absl::StatusOr<poplar_sim::Tensor> BindVariable(int handle_op,
                                                  ResourceBinding b,
                                                  poplar_sim::Graph& shard);
  // Op `op` yields the same handle as op `handle_op` (an Identity of it).
  void AliasHandle(int op, int handle_op);
  // The index of the variable op `op` names, or -1.
  int ResourceOf(int op) const;
  ResourceBinding& resource(int k) { return resources_[k]; }
  // The variable whose device tensor holds poplar_sim variable `var`, or -1.
  int ResourceOfPoplarVariable(uint32_t var) const;
  bool has_resources() const { return !resources_.empty(); }
  // Reads of variable k may return its own tensor (see the constructor).
  bool MayAliasReads(int k) const { return !snapshot_resources_.contains(k); }

  // --- Execution counters: device state that is not a TensorFlow variable
  // (the random ops count their executions, random.cc). A new UNSIGNED_INT
  // [1] tensor on `shard`, on one tile, that lives as long as the engine:
  // CompileCluster sets it to 0 when it makes the engine (through a host
  // write handle, CounterHandleName(k)), and runs keep its value from one
  // to the next. The program updates it; nothing reads it back.
  poplar_sim::Tensor AddExecutionCounter(poplar_sim::Graph& shard, const std::string& name);
  int num_execution_counters() const { return num_counters_; }

  // --- Planner options of the cluster's matrix multiplications, and of the
  // products its convolutions are lowered to.
  void set_matmul_options(poplar_sim::OptionFlags options) { matmul_options_ = std::move(options); }
  const poplar_sim::OptionFlags& matmul_options() const { return matmul_options_; }
  void set_convolution_options(poplar_sim::OptionFlags options) {
    convolution_options_ = std::move(options);
  }
  const poplar_sim::OptionFlags& convolution_options() const { return convolution_options_; }

  std::vector<ResourceBinding> TakeResources() { return std::move(resources_); }
  std::vector<FeedBinding> TakeInfeeds() { return std::move(infeeds_); }
  std::vector<FeedBinding> TakeOutfeeds() { return std::move(outfeeds_); }

 private:
  poplar_sim::Graph* graph_;
  poplar_sim::OptionFlags matmul_options_;
  poplar_sim::OptionFlags convolution_options_;
  poplar_sim::program::Sequence main_;
  std::string loop_;
  int64_t iterations_ = 1;
  poplar_sim::program::Sequence body_;
  int64_t accumulation_ = 0;
  poplar_sim::program::Sequence update_;
  bool after_update_ = false;
  poplar_sim::program::Sequence after_;
  std::optional<PipelineEmission> pipeline_;
  int unit_ = -1;
  std::map<int64_t, poplar_sim::Tensor> carried_;
  std::vector<std::pair<poplar_sim::Tensor, poplar_sim::Tensor>> iteration_end_;
  // The same for values that depend on the update phase: once per update.
  std::vector<std::pair<poplar_sim::Tensor, poplar_sim::Tensor>> update_end_;
  std::vector<FeedBinding> infeeds_;
  std::vector<FeedBinding> outfeeds_;
  std::vector<ResourceBinding> resources_;
  std::vector<poplar_sim::Tensor> resource_tensors_;
  absl::flat_hash_map<int, int> resource_of_op_;
  absl::flat_hash_map<uint32_t, int> resource_of_var_;
  absl::flat_hash_set<int> snapshot_resources_;
  int num_counters_ = 0;

  void CloseLoopWithOpsAfterUpdate();
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_EMISSION_STATE_H_
