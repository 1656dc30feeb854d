#include "tensorflow_ipu/keras/model_graph.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/keras/activations.h"
#include "tensorflow_ipu/keras/losses.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"
#include "tensorflow_ipu/train/cross_replica_optimizer.h"
#include "tensorflow_ipu/train/gradient_accumulation_optimizer.h"

namespace tensorflow_ipu {
namespace keras {
namespace {

// Feed names are process-wide.
std::string UniqueFeedName(const std::string& model, const std::string& what) {
  static std::atomic<int> next{0};
  return absl::StrCat("keras_", model, "_", what, "_", next++);
}

template <typename T>
bool Record(const Scope& scope, const absl::StatusOr<T>& r) {
  if (!r.ok()) scope.UpdateStatus(r.status());
  return r.ok();
}

train::GradientAccumulationReductionMethod ReductionMethod(const std::string& r) {
  if (r == "mean") return train::GradientAccumulationReductionMethod::MEAN;
  if (r == "running_mean") return train::GradientAccumulationReductionMethod::RUNNING_MEAN;
  return train::GradientAccumulationReductionMethod::SUM;
}

}  // namespace

ModelGraph::ModelGraph(Model* model)
    : model_(model), root_(Scope::NewRootScope()),
      session_(std::make_unique<ClientSession>(
          root_, SessionOptions{.num_threads = get_intra_op_parallelism_threads()})) {}

int ModelGraph::shards() const {
  int n = 1;
  for (int d : stage_device_) n = std::max(n, d + 1);
  return n;
}

absl::Status ModelGraph::ResolveStages() {
  const auto& nodes = model_->nodes_;
  node_stage_.assign(nodes.size(), 0);
  stage_device_ = {0};
  if (!model_->pipelined_) return absl::OkStatus();
  int max_stage = -1;
  for (size_t i = 1; i < nodes.size(); ++i) {
    std::optional<int> s = nodes[i].layer->inbound_nodes()[nodes[i].node_index].pipeline_stage;
    if (!s) {
      return absl::FailedPreconditionError(absl::StrCat(
          "All layers of a pipelined model must have an associated pipeline stage. "
          "However, layer ", nodes[i].layer->name(), " has not been assigned one. Assign "
          "the stages with `PipelineStage` scopes or set_pipeline_stage_assignment()."));
    }
    node_stage_[i] = *s;
    max_stage = std::max(max_stage, *s);
  }
  // Every stage needs a layer: more stages than layers leave one empty.
  if (max_stage >= static_cast<int>(nodes.size()) - 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "All stages in a pipeline must have at least one layer assigned to them; stage ",
        max_stage, " was given, but the model has only ", nodes.size() - 1, " layers."));
  }
  std::vector<bool> used(max_stage + 1, false);
  for (size_t i = 1; i < nodes.size(); ++i) used[node_stage_[i]] = true;
  for (int s = 0; s <= max_stage; ++s) {
    if (!used[s]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "All stages in a pipeline must have at least one layer assigned to them; "
          "stage ", s, " has none."));
    }
  }
  // A layer may only read values of its own or earlier stages.
  for (size_t i = 1; i < nodes.size(); ++i) {
    const LayerNode& node = nodes[i].layer->inbound_nodes()[nodes[i].node_index];
    for (const KerasTensor& in : node.inputs) {
      for (size_t j = 0; j < i; ++j) {
        if (nodes[j].layer == in.layer() && nodes[j].node_index == in.node_index() &&
            node_stage_[j] > node_stage_[i]) {
          return absl::FailedPreconditionError(absl::StrCat(
              "Layer ", nodes[i].layer->name(), " in pipeline stage ", node_stage_[i],
              " has a dependency from a pipeline stage which has not yet been executed. "
              "Layers can only use outputs from current or previous pipeline stages."));
        }
      }
    }
  }
  if (max_stage < 1) {
    return absl::FailedPreconditionError(
        "Pipeline requires at least two computational stages; the model's layers are "
        "all in stage 0");
  }
  const int stages = max_stage + 1;
  if (model_->device_mapping_) {
    if (static_cast<int>(model_->device_mapping_->size()) != stages) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Each stage must be mapped to an IPU: ", model_->device_mapping_->size(),
          " mappings != ", stages, " stages"));
    }
    stage_device_ = *model_->device_mapping_;
  } else {
    stage_device_.clear();
    for (int s = 0; s < stages; ++s) stage_device_.push_back(s);
  }
  return absl::OkStatus();
}

Scope ModelGraph::IpuScopeForStage(int stage) const {
  Scope ipu = ipu::scopes::ipu_scope(root_, model_->ipu_device_);
  return model_->pipelined_ ? ipu::scopes::ipu_shard(ipu, stage_device_[stage]) : ipu;
}

absl::Status ModelGraph::EnsureVariables() {
  const auto& nodes = model_->nodes_;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Layer* layer = nodes[i].layer.get();
    if (layer->weights().empty()) continue;
    const int stage = node_stage_[i];
    auto it = variables_.find(layer);
    if (it != variables_.end()) continue;
    Scope place = model_->on_ipu() ? IpuScopeForStage(stage) : root_.WithDevice("/device:CPU:0");
    VariableScope vs(place, layer->name());
    std::vector<Variable> vars;
    for (const WeightSpec& w : layer->weights()) {
      ASSIGN_OR_RETURN(Variable v, vs.get_variable(w.name, TensorShape(w.shape), DT_FLOAT,
                                                   w.initializer));
      vars.push_back(v);
    }
    variables_[layer] = vars;
  }
  return root_.status();
}

absl::Status ModelGraph::InitializeNewVariables() {
  ASSIGN_OR_RETURN(std::vector<Variable> vars,
                   VariablesInCollection(root_, kGlobalVariablesCollection));
  std::vector<Operation> inits;
  std::vector<std::string> names;
  for (const Variable& v : vars) {
    if (initialized_.count(v.name()) || !v.initializer().valid()) continue;
    inits.push_back(v.initializer());
    names.push_back(v.name());
  }
  if (inits.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(root_.status());
  RETURN_IF_ERROR(session_->Run({}, {}, inits, nullptr));
  initialized_.insert(names.begin(), names.end());
  return absl::OkStatus();
}

absl::Status ModelGraph::Replay(const Scope& s, size_t begin, size_t end, bool training,
                                std::map<size_t, Output>* values, Output* logits) const {
  const auto& nodes = model_->nodes_;
  for (size_t i = std::max<size_t>(begin, 1); i < end; ++i) {
    const Layer& layer = *nodes[i].layer;
    const LayerNode& node = layer.inbound_nodes()[nodes[i].node_index];
    size_t input_index = nodes.size();
    for (size_t j = 0; j < i; ++j) {
      if (nodes[j].layer == node.inputs[0].layer() &&
          nodes[j].node_index == node.inputs[0].node_index()) {
        input_index = j;
      }
    }
    auto in = values->find(input_index);
    if (in == values->end()) {
      return absl::InternalError(absl::StrCat("the input of layer ", layer.name(),
                                              " was not computed before it"));
    }
    std::vector<Output> weights;
    auto vars = variables_.find(&layer);
    if (vars != variables_.end()) {
      for (const Variable& v : vars->second) weights.push_back(v.value(s));
    }
    Scope ls = s.NewSubScope(layer.name());
    if (logits != nullptr && i + 1 == nodes.size()) {
      ASSIGN_OR_RETURN(*logits, layer.CallWithoutActivation(ls, in->second, weights, training));
      ASSIGN_OR_RETURN((*values)[i], activations::Apply(ls, layer.activation(), *logits));
    } else {
      ASSIGN_OR_RETURN((*values)[i], layer.Call(ls, in->second, weights, training));
    }
    RETURN_IF_ERROR(s.status());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Output>> ModelGraph::LossAndMetrics(const Scope& s, Output y_true,
                                                               Output y_pred,
                                                               Output logits) const {
  const Layer& last = *model_->nodes_.back().layer;
  std::optional<Output> from_logits;
  if (last.activation() == "softmax" && losses::TakesLogits(model_->loss_)) {
    from_logits = logits;
  }
  std::vector<Output> out;
  ASSIGN_OR_RETURN(Output loss, losses::Compute(s, model_->loss_, y_true, y_pred, from_logits));
  out.push_back(loss);
  for (const std::string& m : model_->resolved_metrics_) {
    ASSIGN_OR_RETURN(Output v, metrics::Compute(s, m, y_true, y_pred));
    out.push_back(v);
  }
  RETURN_IF_ERROR(s.status());
  return out;
}

absl::StatusOr<train::Optimizer*> ModelGraph::TrainingOptimizer(int64_t replicas) {
  ASSIGN_OR_RETURN(std::unique_ptr<train::Optimizer> opt, model_->optimizer_.Make());
  train::Optimizer* top = opt.get();
  optimizers_.push_back(std::move(opt));
  if (replicas > 1) {
    // Gradients averaged over the replicas, so R replicas of batch B train
    // as one batch of R x B would on the CPU (docs/keras.md: the vendor's
    // Keras sums them instead).
    optimizers_.push_back(std::make_unique<train::CrossReplicaOptimizer>(*top));
    top = optimizers_.back().get();
  }
  if (model_->gradient_accumulation_steps_ > 1 && !model_->pipelined_) {
    optimizers_.push_back(std::make_unique<train::GradientAccumulationOptimizerV2>(
        *top, static_cast<int>(model_->gradient_accumulation_steps_),
        ReductionMethod(model_->gradient_accumulation_reduction_)));
    top = optimizers_.back().get();
  }
  return top;
}

absl::Status ModelGraph::Prepare() {
  RETURN_IF_ERROR(ResolveStages());
  return EnsureVariables();
}

namespace {

// What makes two calls able to share a program: the mode, the step and
// replica counts, and the types and shapes of the batches.
std::string ProgramKey(const ProgramConfig& c) {
  std::string key = absl::StrCat(static_cast<int>(c.mode), "/", c.steps_per_execution, "/",
                                 c.replicas, "/", DataTypeString(c.label_dtype), "[",
                                 absl::StrJoin(c.label_shape, ","), "]");
  if (c.dataset) {
    const std::vector<DataType> types = c.dataset->output_types();
    const std::vector<TensorShape> shapes = c.dataset->output_shapes();
    for (size_t i = 0; i < types.size(); ++i) {
      absl::StrAppend(&key, "/", DataTypeString(types[i]), shapes[i].DebugString());
    }
  }
  return key;
}

}  // namespace

absl::StatusOr<Program> ModelGraph::Build(const ProgramConfig& config) {
  RETURN_IF_ERROR(Prepare());
  // Keras keeps its compiled functions until compile() or a setting
  // changes them; so does this cache, so a second fit neither grows the
  // graph nor recompiles. On the IPU the new data is registered under the
  // program's infeed name, and the infeed restarts on it.
  const std::string key = ProgramKey(config);
  auto cached = programs_.find(key);
  if (cached != programs_.end()) {
    Program p = cached->second;
    p.config = config;
    if (p.on_ipu) {
      RETURN_IF_ERROR(ipu::IPUInfeedQueue::Create(*config.dataset, p.feed_name).status());
      RETURN_IF_ERROR(session_->Run({}, {}, {p.infeed_initializer}, nullptr));
    }
    return p;
  }
  // A program that fails to build (bad data for the model) must not leave
  // its error on the graph, or the model could never run again: build it
  // in a scope with its own status, and keep the graph's own scope.
  const Scope graph_scope = root_;
  root_ = root_.WithFreshStatus();
  absl::StatusOr<Program> p = BuildProgram(config);
  root_ = graph_scope;
  if (p.ok()) programs_.emplace(key, *p);
  return p;
}

absl::StatusOr<Program> ModelGraph::BuildProgram(const ProgramConfig& config) {
  absl::StatusOr<Program> p;
  if (!model_->on_ipu()) {
    p = BuildCpu(config);
  } else {
    p = BuildIpu(config);
  }
  RETURN_IF_ERROR(p.status());
  RETURN_IF_ERROR(root_.status());
  RETURN_IF_ERROR(InitializeNewVariables());
  if (p->on_ipu) RETURN_IF_ERROR(session_->Run({}, {}, {p->infeed_initializer}, nullptr));
  return p;
}

absl::StatusOr<Program> ModelGraph::BuildCpu(const ProgramConfig& config) {
  Program p;
  p.config = config;
  Scope cpu = root_.WithDevice("/device:CPU:0");
  const Shape& in_shape = model_->input_.shape();
  std::vector<int64_t> xdims(in_shape.begin(), in_shape.end());
  p.x = ops::Placeholder(cpu.WithOpName("x"), model_->input_.dtype(),
                         ops::Placeholder::Shape(TensorShape(xdims)));
  std::map<size_t, Output> values{{0, p.x}};
  Output logits;
  const bool training = config.mode == Mode::kTrain;
  RETURN_IF_ERROR(Replay(cpu, 0, model_->nodes_.size(), training, &values, &logits));
  Output pred = values[model_->nodes_.size() - 1];
  if (config.mode == Mode::kPredict) {
    p.fetches = {pred};
    return p;
  }
  std::vector<int64_t> ydims = {-1};
  ydims.insert(ydims.end(), config.label_shape.begin(), config.label_shape.end());
  p.y = ops::Placeholder(cpu.WithOpName("y"), config.label_dtype,
                         ops::Placeholder::Shape(TensorShape(ydims)));
  ASSIGN_OR_RETURN(p.fetches, LossAndMetrics(cpu, p.y, pred, logits));
  if (training) {
    ASSIGN_OR_RETURN(train::Optimizer * opt, TrainingOptimizer(1));
    ASSIGN_OR_RETURN(p.train_op, opt->minimize(cpu, p.fetches[0]));
  }
  return p;
}

absl::StatusOr<Program> ModelGraph::BuildIpu(const ProgramConfig& config) {
  Program p;
  p.config = config;
  p.on_ipu = true;
  const std::string tag = model_->name();
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed,
                   ipu::IPUInfeedQueue::Create(*config.dataset, UniqueFeedName(tag, "infeed")));
  ipu::IPUOutfeedQueue outfeed(UniqueFeedName(tag, "outfeed"));
  ASSIGN_OR_RETURN(p.run, model_->pipelined_ ? PipelineProgram(config, infeed, outfeed)
                                             : LoopProgram(config, infeed, outfeed));
  p.feed_name = infeed.feed_name();
  p.infeed_initializer = infeed.initializer(root_);
  p.dequeue = outfeed.dequeue(root_);
  return p;
}

absl::StatusOr<Operation> ModelGraph::LoopProgram(const ProgramConfig& config,
                                                  const ipu::IPUInfeedQueue& infeed,
                                                  ipu::IPUOutfeedQueue& outfeed) {
  const bool training = config.mode == Mode::kTrain;
  train::Optimizer* opt = nullptr;
  if (training) {
    ASSIGN_OR_RETURN(opt, TrainingOptimizer(config.replicas));
  }
  Scope ipu = ipu::scopes::ipu_scope(root_, model_->ipu_device_);
  ASSIGN_OR_RETURN(
      std::vector<Output> loop,
      ipu::ipu_compiler::compile(
          ipu,
          [&](const Scope& s, const std::vector<Output>&) {
            auto body = [&](const Scope& b, const std::vector<Output>&,
                            const std::vector<Output>& batch) -> ipu::ComputationOutputs {
              std::map<size_t, Output> values{{0, batch[0]}};
              Output logits;
              absl::Status st = Replay(b, 0, model_->nodes_.size(), training, &values, &logits);
              if (!st.ok()) {
                b.UpdateStatus(st);
                return std::vector<Output>{};
              }
              Output pred = values[model_->nodes_.size() - 1];
              if (config.mode == Mode::kPredict) {
                return ipu::ComputationOutputs({outfeed.enqueue(b, {pred})});
              }
              absl::StatusOr<std::vector<Output>> lm = LossAndMetrics(b, batch[1], pred, logits);
              if (!Record(b, lm)) return std::vector<Output>{};
              std::vector<ipu::TensorOrOp> ops;
              if (training) {
                absl::StatusOr<Operation> step = opt->minimize(b, (*lm)[0]);
                if (!Record(b, step)) return std::vector<Output>{};
                // The enqueue does not wait for the update: the values are
                // the step's either way, and with gradient accumulation an
                // op waiting for the update runs after it in the program.
                ops.push_back(*step);
                ops.push_back(outfeed.enqueue(b, *lm));
              } else {
                ops.push_back(outfeed.enqueue(b, *lm));
              }
              return ipu::ComputationOutputs(ops);
            };
            absl::StatusOr<std::vector<Output>> out = ipu::loops::repeat(
                s, static_cast<int>(config.steps_per_execution), body, {}, &infeed);
            return Record(s, out) ? *out : std::vector<Output>{};
          },
          {}));
  RETURN_IF_ERROR(root_.status());
  return loop[0].op();
}

absl::StatusOr<Operation> ModelGraph::PipelineProgram(const ProgramConfig& config,
                                                      const ipu::IPUInfeedQueue& infeed,
                                                      ipu::IPUOutfeedQueue& outfeed) {
  const bool training = config.mode == Mode::kTrain;
  const bool predict = config.mode == Mode::kPredict;
  const auto& nodes = model_->nodes_;
  const int stages = static_cast<int>(stage_device_.size());
  // Which node values each stage hands on: those read by a later stage.
  std::vector<std::vector<size_t>> handed(stages);
  for (int k = 0; k + 1 < stages; ++k) {
    for (size_t j = 0; j < nodes.size(); ++j) {
      if (node_stage_[j] > k) continue;
      bool later = false;
      for (size_t i = j + 1; i < nodes.size(); ++i) {
        const LayerNode& n = nodes[i].layer->inbound_nodes()[nodes[i].node_index];
        if (node_stage_[i] > k && n.inputs[0].layer() == nodes[j].layer &&
            n.inputs[0].node_index() == nodes[j].node_index) {
          later = true;
        }
      }
      if (later) handed[k].push_back(j);
    }
  }
  std::vector<ipu::pipelining_ops::ComputationalStage> fns;
  for (int k = 0; k < stages; ++k) {
    fns.push_back([&, k](const Scope& s, const std::vector<Output>& in) {
      std::map<size_t, Output> values;
      Output labels;
      if (k == 0) {
        values[0] = in[0];
        if (!predict) labels = in[1];
      } else {
        for (size_t i = 0; i < handed[k - 1].size(); ++i) values[handed[k - 1][i]] = in[i];
        if (!predict) labels = in[handed[k - 1].size()];
      }
      // This stage's nodes, in order.
      Output logits;
      for (size_t i = 1; i < nodes.size(); ++i) {
        if (node_stage_[i] != k) continue;
        absl::Status st = Replay(s, i, i + 1, training, &values, k + 1 == stages ? &logits : nullptr);
        if (!st.ok()) {
          s.UpdateStatus(st);
          return std::vector<Output>{};
        }
      }
      if (k + 1 < stages) {
        std::vector<Output> out;
        for (size_t j : handed[k]) out.push_back(values[j]);
        if (!predict) out.push_back(labels);
        return out;
      }
      Output pred = values[nodes.size() - 1];
      if (predict) return std::vector<Output>{pred};
      absl::StatusOr<std::vector<Output>> lm = LossAndMetrics(s, labels, pred, logits);
      return Record(s, lm) ? *lm : std::vector<Output>{};
    });
  }
  ipu::pipelining_ops::OptimizerFunction optimizer_function = nullptr;
  train::Optimizer* opt = nullptr;
  if (training) {
    ASSIGN_OR_RETURN(opt, TrainingOptimizer(config.replicas));
    optimizer_function = [opt](const Scope&, const std::vector<Output>& out) {
      return ipu::pipelining_ops::OptimizerFunctionOutput(*opt, out[0]);
    };
  }
  // Training: one weight update per gradient_accumulation_steps
  // micro-batches, steps_per_execution / that many updates per execution.
  // Evaluation and prediction: the whole execution is one pipeline.
  const int64_t depth = training ? model_->gradient_accumulation_steps_
                                 : config.steps_per_execution;
  const int64_t repeat = training ? config.steps_per_execution / depth : 1;
  ipu::pipelining_ops::PipelineOptions options;
  options.reduction_method = ReductionMethod(model_->gradient_accumulation_reduction_);
  Scope ipu = ipu::scopes::ipu_scope(root_, model_->ipu_device_);
  ASSIGN_OR_RETURN(
      std::vector<Output> program,
      ipu::ipu_compiler::compile(
          ipu,
          [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
            absl::StatusOr<Operation> op = ipu::pipelining_ops::pipeline(
                s, fns, static_cast<int>(depth), static_cast<int>(repeat), {}, &infeed,
                &outfeed, optimizer_function, stage_device_, model_->pipeline_schedule_,
                options);
            if (!op.ok()) s.UpdateStatus(op.status());
            return op.ok() ? std::vector<Output>{Output(*op, 0)} : std::vector<Output>{};
          },
          {}));
  RETURN_IF_ERROR(root_.status());
  return program[0].op();
}

absl::StatusOr<std::vector<std::string>> ModelGraph::WeightKeys() {
  RETURN_IF_ERROR(ResolveStages());
  RETURN_IF_ERROR(EnsureVariables());
  std::vector<std::string> keys;
  int index = 0;
  for (const auto& layer : model_->layers()) {
    if (layer->weights().empty()) continue;
    for (const WeightSpec& w : layer->weights()) {
      // The key TensorFlow 2 gives a Keras layer's weight in a checkpoint.
      keys.push_back(absl::StrCat("layer_with_weights-", index, "/", w.name,
                                  "/.ATTRIBUTES/VARIABLE_VALUE"));
    }
    ++index;
  }
  return keys;
}

absl::StatusOr<std::vector<Tensor>> ModelGraph::ReadWeights() {
  RETURN_IF_ERROR(ResolveStages());
  RETURN_IF_ERROR(EnsureVariables());
  RETURN_IF_ERROR(InitializeNewVariables());
  std::vector<Output> fetches;
  Scope cpu = root_.WithDevice("/device:CPU:0");
  for (const auto& layer : model_->layers()) {
    auto it = variables_.find(layer.get());
    if (it == variables_.end()) continue;
    for (const Variable& v : it->second) fetches.push_back(ops::Identity(cpu, v.value(root_)));
  }
  RETURN_IF_ERROR(root_.status());
  std::vector<Tensor> out;
  if (!fetches.empty()) RETURN_IF_ERROR(session_->Run(fetches, &out));
  return out;
}

absl::Status ModelGraph::WriteWeights(const std::vector<Tensor>& weights) {
  RETURN_IF_ERROR(ResolveStages());
  RETURN_IF_ERROR(EnsureVariables());
  RETURN_IF_ERROR(InitializeNewVariables());
  std::vector<Variable> vars;
  for (const auto& layer : model_->layers()) {
    auto it = variables_.find(layer.get());
    if (it != variables_.end()) vars.insert(vars.end(), it->second.begin(), it->second.end());
  }
  if (weights.size() != vars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "You called `set_weights(weights)` on model \"", model_->name(), "\" with a weight "
        "list of length ", weights.size(), ", but the model was expecting ", vars.size(),
        " weights."));
  }
  ClientSession::FeedType feeds;
  std::vector<Operation> assigns;
  Scope cpu = root_.WithDevice("/device:CPU:0");
  for (size_t i = 0; i < vars.size(); ++i) {
    if (weights[i].dtype() != vars[i].dtype() || weights[i].shape() != vars[i].shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Layer weight shape ", vars[i].shape().DebugString(), " of ", vars[i].name(),
          " not compatible with provided weight shape ", weights[i].shape().DebugString()));
    }
    Output value = ops::Placeholder(cpu, vars[i].dtype(), ops::Placeholder::Shape(vars[i].shape()));
    feeds.emplace(value, weights[i]);
    assigns.push_back(vars[i].assign(root_, value));
  }
  RETURN_IF_ERROR(root_.status());
  return session_->Run(feeds, {}, assigns, nullptr);
}

}  // namespace keras
}  // namespace tensorflow_ipu
