// The model's topology, compile() and the IPU settings. Building and
// running programs: model_graph.cc and training.cc.
#include "tensorflow_ipu/keras/model.h"

#include <atomic>
#include <iostream>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"
#include "tensorflow_ipu/keras/layers/input_layer.h"
#include "tensorflow_ipu/keras/losses.h"
#include "tensorflow_ipu/keras/model_graph.h"

namespace tensorflow_ipu {
namespace keras {
namespace {

std::string ModelName(const std::string& given, bool sequential) {
  if (!given.empty()) return given;
  // Keras numbers models from 0 without a suffix: model, model_1, ...
  return UniqueLayerName(sequential ? "Sequential" : "Model");
}

std::atomic<int> intra_op_threads{0};

}  // namespace

void set_intra_op_parallelism_threads(int num_threads) {
  intra_op_threads = num_threads < 0 ? 0 : num_threads;
}
int get_intra_op_parallelism_threads() { return intra_op_threads; }

Model::Model(std::string name) : name_(std::move(name)) {
  if (const ipu::ipu_strategy::IPUStrategy* s = ipu::ipu_strategy::get_strategy()) {
    ipu_device_ = s->ipu_device();
  }
}

Model::~Model() = default;

absl::StatusOr<std::shared_ptr<Model>> Model::Create(const KerasTensor& inputs,
                                                     const KerasTensor& outputs,
                                                     const std::string& name) {
  std::shared_ptr<Model> m(new Model(ModelName(name, false)));
  RETURN_IF_ERROR(m->InitFunctional(inputs, outputs));
  return m;
}

absl::Status Model::InitFunctional(const KerasTensor& inputs, const KerasTensor& outputs) {
  RETURN_IF_ERROR(inputs.status());
  RETURN_IF_ERROR(outputs.status());
  if (!inputs.layer() || inputs.layer()->class_name() != "InputLayer") {
    return absl::InvalidArgumentError(
        "Model inputs must come from `keras::Input` (the output of an InputLayer)");
  }
  if (!outputs.layer()) {
    return absl::InvalidArgumentError("Model outputs must be the output of a layer");
  }
  input_ = inputs;
  output_ = outputs;
  nodes_.clear();
  // Post-order from the output: every node after the nodes it reads.
  std::set<std::pair<const Layer*, int>> seen;
  bool reaches_input = false;
  std::function<void(const KerasTensor&)> visit = [&](const KerasTensor& t) {
    const std::pair<const Layer*, int> key(t.layer().get(), t.node_index());
    if (!seen.insert(key).second) return;
    const LayerNode& node = t.layer()->inbound_nodes()[t.node_index()];
    for (const KerasTensor& in : node.inputs) visit(in);
    if (node.inputs.empty()) {
      if (t.layer() == inputs.layer() && t.node_index() == inputs.node_index()) {
        reaches_input = true;
      } else {
        return;  // another model's input: reported below
      }
    }
    nodes_.push_back({t.layer(), t.node_index()});
  };
  visit(outputs);
  if (!reaches_input || nodes_.empty() || nodes_.front().layer != inputs.layer()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Graph disconnected: the output of layer \"", outputs.layer()->name(),
        "\" cannot be computed from the input \"", inputs.layer()->name(),
        "\"; every layer of a model must depend on its input"));
  }
  return absl::OkStatus();
}

std::vector<std::shared_ptr<Layer>> Model::layers() const {
  std::vector<std::shared_ptr<Layer>> out;
  std::set<const Layer*> seen;
  for (const NodeRef& n : nodes_) {
    if (seen.insert(n.layer.get()).second) out.push_back(n.layer);
  }
  return out;
}

int64_t Model::count_params() const {
  int64_t n = 0;
  for (const auto& l : layers()) n += l->count_params();
  return n;
}

absl::Status Model::compile(const optimizers::Optimizer& optimizer, const std::string& loss,
                            const std::vector<std::string>& metrics,
                            int64_t steps_per_execution) {
  RETURN_IF_ERROR(optimizer.status());
  RETURN_IF_ERROR(losses::Validate(loss));
  if (steps_per_execution < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "`steps_per_execution` must be a positive integer, got ", steps_per_execution));
  }
  std::vector<std::string> resolved;
  for (const std::string& m : metrics) {
    ASSIGN_OR_RETURN(std::string r, metrics::Resolve(m, loss));
    resolved.push_back(r);
  }
  optimizer_ = optimizer;
  loss_ = loss;
  metrics_ = metrics;
  resolved_metrics_ = resolved;
  steps_per_execution_ = steps_per_execution;
  compiled_ = true;
  if (graph_) graph_->DiscardPrograms();
  return absl::OkStatus();
}

absl::Status Model::set_gradient_accumulation_options(
    std::optional<int64_t> steps, const std::string& reduction_method) {
  if (steps && *steps < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected `gradient_accumulation_steps_per_replica` to be a positive integer, but "
        "got ", *steps, " instead."));
  }
  const std::string r = absl::AsciiStrToLower(reduction_method);
  if (r != "sum" && r != "mean" && r != "running_mean") {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot parse ", reduction_method, " as a GradientAccumulationReductionMethod. "
        "Valid values are: SUM, MEAN, RUNNING_MEAN."));
  }
  gradient_accumulation_steps_ = steps.value_or(1);
  gradient_accumulation_set_ = steps.has_value();
  gradient_accumulation_reduction_ = r;
  if (graph_) graph_->DiscardPrograms();
  return absl::OkStatus();
}

absl::Status Model::set_pipelining_options(
    std::optional<int64_t> steps, std::optional<std::vector<int>> device_mapping,
    ipu::pipelining_ops::PipelineSchedule schedule, const std::string& reduction_method) {
  if (device_mapping) {
    for (int d : *device_mapping) {
      if (d < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected `device_mapping` to be a list of non-negative integers, got ", d));
      }
    }
  }
  RETURN_IF_ERROR(set_gradient_accumulation_options(steps, reduction_method));
  pipelined_ = true;
  device_mapping_ = std::move(device_mapping);
  pipeline_schedule_ = schedule;
  return absl::OkStatus();
}

absl::Status Model::set_replication_options(const std::string& method) {
  const std::string m = absl::AsciiStrToUpper(method);
  if (m == "NONE") replicated_metric_reduction_ = ReplicatedMetricReductionMethod::NONE;
  else if (m == "LIST") replicated_metric_reduction_ = ReplicatedMetricReductionMethod::LIST;
  else if (m == "SUM") replicated_metric_reduction_ = ReplicatedMetricReductionMethod::SUM;
  else if (m == "MEAN") replicated_metric_reduction_ = ReplicatedMetricReductionMethod::MEAN;
  else {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot parse ", method, " as a ReplicatedMetricReductionMethod. Valid values are: "
        "NONE, LIST, SUM, MEAN."));
  }
  if (graph_) graph_->DiscardPrograms();
  return absl::OkStatus();
}

absl::Status Model::set_infeed_queue_options(const InfeedQueueOptions& options) {
  if (options.prefetch_depth < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "prefetch_depth must be greater than zero, got ", options.prefetch_depth));
  }
  infeed_options_ = options;
  if (graph_) graph_->DiscardPrograms();
  return absl::OkStatus();
}

absl::Status Model::set_outfeed_queue_options(const OutfeedQueueOptions& options) {
  if (options.buffer_depth < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "buffer_depth must be greater than zero, got ", options.buffer_depth));
  }
  outfeed_options_ = options;
  if (graph_) graph_->DiscardPrograms();
  return absl::OkStatus();
}

absl::Status Model::set_pipeline_stage_assignment(const std::vector<int>& stages) {
  const int n = static_cast<int>(nodes_.size()) - 1;  // the input excluded
  if (static_cast<int>(stages.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The length of the provided `pipeline_stage_assignment` (", stages.size(),
        ") does not match the number of layers in the graph (", n,
        "). Each layer needs to be assigned a pipeline stage (excluding input layers)."));
  }
  if (is_sequential()) {
    int prev = 0;
    for (int i = 0; i < n; ++i) {
      const std::string& layer = nodes_[i + 1].layer->name();
      if (i == 0 && stages[0] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The first layer in a pipelined sequential model needs to be assigned to the "
            "0th pipeline stage, however it was assigned to ", stages[0], "."));
      }
      if (i > 0 && stages[i] != prev && stages[i] != prev + 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Layer ", layer, " has been assigned to pipeline stage ", stages[i],
            ", however the previous layer in the Sequential model was assigned to "
            "pipeline stage ", prev, ". A layer in a Sequential model can only be assigned "
            "to the same pipeline stage as the previous layer or to the next pipeline "
            "stage."));
      }
      prev = stages[i];
    }
  }
  for (int i = 0; i < n; ++i) {
    // Every stage needs a layer, so there are at most n of them.
    if (stages[i] < 0 || stages[i] >= n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Layer ", nodes_[i + 1].layer->name(), " was assigned to pipeline stage ",
          stages[i], "; stages are numbered from 0, and ", n,
          " layers make at most ", n, " stages"));
    }
  }
  for (int i = 0; i < n; ++i) {
    nodes_[i + 1].layer->set_pipeline_stage(nodes_[i + 1].node_index, stages[i]);
  }
  if (graph_) graph_->DiscardPrograms();
  return absl::OkStatus();
}

std::vector<std::optional<int>> Model::get_pipeline_stage_assignment() const {
  std::vector<std::optional<int>> out;
  for (size_t i = 1; i < nodes_.size(); ++i) {
    out.push_back(nodes_[i].layer->inbound_nodes()[nodes_[i].node_index].pipeline_stage);
  }
  return out;
}

void Model::reset_pipeline_stage_assignment() {
  for (size_t i = 1; i < nodes_.size(); ++i) {
    nodes_[i].layer->set_pipeline_stage(nodes_[i].node_index, std::nullopt);
  }
  if (graph_) graph_->DiscardPrograms();
}

ModelGraph& Model::graph() {
  if (!graph_) graph_ = std::make_unique<ModelGraph>(this);
  return *graph_;
}

absl::StatusOr<std::shared_ptr<Sequential>> Sequential::Create(
    const std::vector<std::shared_ptr<Layer>>& layers, const std::string& name) {
  std::shared_ptr<Sequential> m(new Sequential(ModelName(name, true)));
  for (const auto& l : layers) RETURN_IF_ERROR(m->add(l));
  return m;
}

absl::Status Sequential::add(const std::shared_ptr<Layer>& layer) {
  if (!layer) return absl::InvalidArgumentError("Sequential::add was given no layer");
  if (!last_.layer()) {
    if (layer->class_name() != "InputLayer" || layer->inbound_nodes().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The first layer of Sequential model \"", name(), "\" must be a "
          "keras::layers::InputLayer giving the input shape; got layer \"", layer->name(),
          "\""));
    }
    last_ = layer->OutputOf(0);
    return InitFunctional(last_, last_);
  }
  KerasTensor next = (*layer)(last_);
  RETURN_IF_ERROR(next.status());
  RETURN_IF_ERROR(InitFunctional(input_, next));
  last_ = next;
  if (graph_) graph_.reset();  // a different model now
  return absl::OkStatus();
}

}  // namespace keras
}  // namespace tensorflow_ipu
