#include "tensorflow_ipu/compiler/emission_state.h"

#include "absl/strings/str_cat.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {

namespace program = poplar_sim::program;

std::string InfeedHandle(int k) { return absl::StrCat("infeed", k); }
std::string OutfeedHandle(int k) { return absl::StrCat("outfeed", k); }
std::string ResourceHandleName(int k) { return absl::StrCat("var", k); }
std::string CounterHandleName(int k) { return absl::StrCat("counter", k); }

EmissionState::EmissionState(poplar_sim::Graph* graph,
                             absl::flat_hash_set<int> snapshot_resources)
    : graph_(graph), snapshot_resources_(std::move(snapshot_resources)) {}

void EmissionState::OpenLoop(const std::string& loop, int64_t iterations) {
  loop_ = loop;
  iterations_ = iterations;
  body_ = program::Sequence();
  accumulation_ = 0;
  update_ = program::Sequence();
  after_update_ = false;
  after_ = program::Sequence();
  carried_.clear();
  iteration_end_.clear();
  update_end_.clear();
  pipeline_.reset();
  unit_ = -1;
}

void EmissionState::OpenPipeline(const PipelineTimetable& timetable) {
  pipeline_.emplace(timetable, loop_);
}

void EmissionState::CloseLoop() {
  if (loop_.empty()) return;
  if (after_update_) {
    CloseLoopWithOpsAfterUpdate();
    return;
  }
  for (const auto& [from, to] : iteration_end_) {
    body_.add(program::Copy(from, to, loop_ + "/next"));
  }
  for (const auto& [from, to] : update_end_) {
    update_.add(program::Copy(from, to, loop_ + "/next"));
  }
  if (pipeline_) {
    // Each repeat: one run of the pipeline (depth micro-batches), then the
    // weight update if it trains.
    const int64_t depth = pipeline_->timetable().depth();
    body_.add(pipeline_->Build());
    main_.add(program::Repeat(static_cast<unsigned>(iterations_ / depth),
                              program::Sequence({body_, update_}, loop_ + "/update"),
                              loop_));
  } else if (accumulation_ > 0) {
    main_.add(program::Repeat(
        static_cast<unsigned>(iterations_ / accumulation_),
        program::Sequence({program::Repeat(static_cast<unsigned>(accumulation_), body_,
                                           loop_ + "/accumulate"),
                           update_},
                          loop_ + "/update"),
        loop_));
  } else {
    main_.add(program::Repeat(static_cast<unsigned>(iterations_), body_, loop_));
  }
  loop_.clear();
  iterations_ = 1;
  accumulation_ = 0;
  pipeline_.reset();
  unit_ = -1;
}

// The ops after the update run in every iteration: in the count - 1
// iterations without the update right after the body, in the last after the
// update. The next carried values are copied after them, since they may
// read this iteration's.
void EmissionState::CloseLoopWithOpsAfterUpdate() {
  program::Sequence next;
  for (const auto& [from, to] : iteration_end_) {
    next.add(program::Copy(from, to, loop_ + "/next"));
  }
  program::Sequence last({body_, update_, after_, next}, loop_ + "/update");
  for (const auto& [from, to] : update_end_) {
    last.add(program::Copy(from, to, loop_ + "/next"));
  }
  program::Sequence group;
  if (accumulation_ > 1) {
    group.add(program::Repeat(static_cast<unsigned>(accumulation_ - 1),
                              program::Sequence({body_, after_, next}, loop_ + "/mini_batch"),
                              loop_ + "/accumulate"));
  }
  group.add(last);
  main_.add(program::Repeat(static_cast<unsigned>(iterations_ / accumulation_), group, loop_));
  loop_.clear();
  iterations_ = 1;
  accumulation_ = 0;
  after_update_ = false;
  pipeline_.reset();
  unit_ = -1;
}

absl::Status EmissionState::OpenAfterUpdate() {
  if (accumulation_ < 1 || pipeline_) {
    return absl::InternalError(absl::StrCat(
        "ops after the gradient accumulation update in loop '", loop_,
        accumulation_ < 1 ? "', which has no update" : "', a pipeline",
        ": the pass should have refused them"));
  }
  after_update_ = true;
  return absl::OkStatus();
}

absl::Status EmissionState::OpenUpdatePhase(int64_t count) {
  if (loop_.empty() || count < 1 || iterations_ % count != 0) {
    return absl::InternalError(absl::StrCat(
        "gradient accumulation over ", count, " mini batches in loop '", loop_, "' of ",
        iterations_, " iterations: the pass should have refused it"));
  }
  accumulation_ = count;
  return absl::OkStatus();
}

const poplar_sim::Tensor* EmissionState::FindCarried(int64_t index) const {
  auto it = carried_.find(index);
  return it == carried_.end() ? nullptr : &it->second;
}

void EmissionState::CopyAtIterationEnd(poplar_sim::Tensor from,
                                       poplar_sim::Tensor to) {
  (accumulation_ > 0 && !after_update_ ? update_end_ : iteration_end_)
      .emplace_back(std::move(from), std::move(to));
}

poplar_sim::DataStream EmissionState::AddInfeed(FeedBinding b,
                                                poplar_sim::Type type,
                                                size_t elements) {
  const int k = static_cast<int>(infeeds_.size());
  infeeds_.push_back(std::move(b));
  return graph_->addHostToDeviceFIFO(InfeedHandle(k), type, elements);
}

poplar_sim::DataStream EmissionState::AddOutfeed(FeedBinding b,
                                                 poplar_sim::Type type,
                                                 size_t elements) {
  const int k = static_cast<int>(outfeeds_.size());
  outfeeds_.push_back(std::move(b));
  return graph_->addDeviceToHostFIFO(OutfeedHandle(k), type, elements);
}

absl::StatusOr<poplar_sim::Tensor> EmissionState::BindVariable(
    int handle_op, ResourceBinding b, poplar_sim::Graph& shard) {
  for (int k = 0; k < static_cast<int>(resources_.size()); ++k) {
    if (resources_[k].name != b.name) continue;
    if (resources_[k].dtype != b.dtype || resources_[k].shape != b.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Variable ", b.name, " is used with two different types or shapes "
          "in one cluster (", DataTypeString(resources_[k].dtype),
          resources_[k].shape.DebugString(), " and ", DataTypeString(b.dtype),
          b.shape.DebugString(), "); give each variable one dtype and shape"));
    }
    resource_of_op_[handle_op] = k;
    return resource_tensors_[k];
  }
  if (!b.shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Variable ", b.name, " has shape ", b.shape.DebugString(),
        "; variables on the IPU need a fully defined shape"));
  }
  ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(b.dtype));
  std::vector<size_t> dims;
  for (int64_t d : b.shape.dim_sizes()) dims.push_back(static_cast<size_t>(d));
  poplar_sim::Tensor t = shard.addVariable(type, dims, b.name);
  poplar_sim::poputil::mapTensorLinearly(
      shard, t, poplar_sim::poputil::defaultMinElementsPerTile(shard, type));
  const int k = static_cast<int>(resources_.size());
  if (t.numElements() > 0) {
    graph_->createHostWrite(ResourceHandleName(k), t);
    graph_->createHostRead(ResourceHandleName(k), t);
    resource_of_var_[t.runs()[0].var] = k;
  }
  resources_.push_back(std::move(b));
  resource_tensors_.push_back(t);
  resource_of_op_[handle_op] = k;
  return t;
}

poplar_sim::Tensor EmissionState::AddExecutionCounter(poplar_sim::Graph& shard,
                                                     const std::string& name) {
  poplar_sim::Tensor t = shard.addVariable(poplar_sim::UNSIGNED_INT, {1}, name);
  // One element: the linear mapping puts successive counters on
  // successive tiles rather than all on tile 0.
  poplar_sim::poputil::mapTensorLinearly(shard, t);
  graph_->createHostWrite(CounterHandleName(num_counters_++), t);
  return t;
}

void EmissionState::AliasHandle(int op, int handle_op) {
  const int k = ResourceOf(handle_op);
  if (k >= 0) resource_of_op_[op] = k;
}

int EmissionState::ResourceOf(int op) const {
  auto it = resource_of_op_.find(op);
  return it == resource_of_op_.end() ? -1 : it->second;
}

int EmissionState::ResourceOfPoplarVariable(uint32_t var) const {
  auto it = resource_of_var_.find(var);
  return it == resource_of_var_.end() ? -1 : it->second;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
