// Model::fit, evaluate and predict: the host loops around the programs of
// model_graph.h, with the vendor's checks of the data and the step counts.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/logging.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/keras/initializers.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/model_graph.h"
#include "tensorflow_ipu/keras/progbar_logger.h"

namespace tensorflow_ipu {
namespace keras {
namespace internal {

// The data of one call, before batching.
struct CallData {
  std::optional<data::Dataset> slices;  // one element per sample (x[, y])
  int64_t samples = 0;
  int64_t batch_size = 0;
  bool pre_batched = false;  // a Dataset given by the user
  std::vector<int64_t> sample_shape;  // x's, without the samples
  DataType sample_dtype = DT_FLOAT;
  std::vector<int64_t> label_shape;  // y's, without the samples
  DataType label_dtype = DT_FLOAT;
  std::optional<data::Dataset> batches;  // when pre_batched
};

}  // namespace internal

namespace {

using internal::CallData;

absl::StatusOr<CallData> FromTensors(const Tensor& x, const Tensor* y, int64_t batch_size) {
  if (batch_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("`batch_size` must be a positive integer, got ", batch_size));
  }
  if (x.dims() < 1) {
    return absl::InvalidArgumentError("x must have a first (sample) dimension");
  }
  CallData d;
  d.samples = x.dim_size(0);
  d.batch_size = batch_size;
  d.sample_shape.assign(x.shape().dim_sizes().begin() + 1, x.shape().dim_sizes().end());
  d.sample_dtype = x.dtype();
  if (y != nullptr) {
    if (y->dims() < 1 || y->dim_size(0) != d.samples) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Data cardinality is ambiguous:\n  x sizes: ", d.samples, "\n  y sizes: ",
          y->dims() < 1 ? 0 : y->dim_size(0),
          "\nMake sure all arrays contain the same number of samples."));
    }
    ASSIGN_OR_RETURN(d.slices, data::Dataset::FromTensorSlices({x, *y}));
    d.label_shape.assign(y->shape().dim_sizes().begin() + 1, y->shape().dim_sizes().end());
    d.label_dtype = y->dtype();
  } else {
    ASSIGN_OR_RETURN(d.slices, data::Dataset::FromTensorSlices({x}));
  }
  return d;
}

// Running means of the loss and metrics, per replica, weighted by the
// batch size as Keras's Mean metrics are.
class RunningMeans {
 public:
  RunningMeans(int64_t replicas, size_t values)
      : sums_(replicas, std::vector<double>(values, 0)), weights_(replicas, 0) {}
  void Add(int64_t replica, const std::vector<double>& v, double weight) {
    for (size_t i = 0; i < v.size(); ++i) sums_[replica][i] += v[i] * weight;
    weights_[replica] += weight;
  }
  std::vector<double> Of(int64_t replica) const {
    std::vector<double> out(sums_[replica].size(), 0);
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = weights_[replica] > 0 ? sums_[replica][i] / weights_[replica] : 0;
    }
    return out;
  }
  std::vector<double> Reduced(ReplicatedMetricReductionMethod m) const {
    const int64_t r = static_cast<int64_t>(sums_.size());
    if (m == ReplicatedMetricReductionMethod::NONE || r == 1) return Of(r - 1);
    std::vector<double> total(sums_[0].size(), 0);
    for (int64_t k = 0; k < r; ++k) {
      std::vector<double> v = Of(k);
      for (size_t i = 0; i < v.size(); ++i) total[i] += v[i];
    }
    if (m != ReplicatedMetricReductionMethod::SUM) {
      for (double& t : total) t /= r;  // MEAN, and LIST as the bar shows it
    }
    return total;
  }

 private:
  std::vector<std::vector<double>> sums_;
  std::vector<double> weights_;
};

class CallbackList {
 public:
  CallbackList(Model* model, const std::vector<callbacks::Callback*>& user,
               callbacks::Callback::Params params, bool add_progbar, bool in_fit,
               callbacks::History* history)
      : progbar_(in_fit) {
    if (history) list_.push_back(history);
    list_.insert(list_.end(), user.begin(), user.end());
    if (add_progbar && params.verbose != 0) list_.push_back(&progbar_);
    for (callbacks::Callback* c : list_) {
      c->set_model(model);
      c->set_params(params);
    }
  }
  callbacks::ProgbarLogger& progbar() { return progbar_; }
  template <typename F>
  void Each(F f) {
    for (callbacks::Callback* c : list_) f(c);
  }

 private:
  callbacks::ProgbarLogger progbar_;
  std::vector<callbacks::Callback*> list_;
};

Logs MakeLogs(const std::vector<std::string>& names, const std::vector<double>& values,
              const std::string& prefix = "") {
  Logs logs;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    logs.Set(prefix + names[i], values[i]);
  }
  return logs;
}


// Wall-clock seconds since construction.
class HostTimer {
 public:
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

// The steps of one epoch (per replica) and of one execution, after the
// vendor's checks, for `batches` batches in the data.
struct StepPlan {
  int64_t replicas = 1;
  int64_t steps = 0;                // per epoch, per replica
  int64_t steps_per_execution = 1;
};

namespace internal {
struct PreparedCall {
  StepPlan plan;
  Program program;
  std::optional<data::Dataset> cpu_data;  // on the CPU: the batches, repeated
};
}  // namespace internal

// The host's iterator over the batches of a CPU program (none on the IPU,
// whose infeed reads them).
static absl::StatusOr<std::unique_ptr<data::Iterator>> CpuBatches(
    const internal::PreparedCall& prep) {
  if (prep.program.on_ipu) return std::unique_ptr<data::Iterator>();
  return prep.cpu_data->MakeIterator();
}

static absl::StatusOr<int64_t> ModelReplicas(const Model& model, ModelGraph& graph,
                                             const std::string& device) {
  if (!model.on_ipu()) return 1;
  if (!ipu::IpuSystem::Get().configured()) {
    return absl::FailedPreconditionError(
        "The model was created inside an IPUStrategy, but no IPU system is configured; "
        "call IPUConfig::configure_ipu_system() first");
  }
  ASSIGN_OR_RETURN(DeviceName name, ParseDeviceName(device));
  ASSIGN_OR_RETURN(const int64_t ipus, ipu::IpuSystem::Get().NumIpus(name.id));
  int64_t shards = 1;
  while (shards < graph.shards()) shards *= 2;
  if (ipus % shards != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Current device has ", ipus, " IPUs attached, however the current model requires a "
        "multiple of ", shards, " IPUs."));
  }
  return ipus / shards;
}

namespace {

// The vendor's order of checks: data size, replicas, steps per replica,
// steps_per_execution truncated to the epoch, then divisibility.
absl::StatusOr<StepPlan> PlanSteps(const Model& model, int64_t batches, bool partial,
                                   int64_t batch_size, std::optional<int64_t> steps,
                                   int64_t replicas, int64_t steps_per_execution,
                                   int64_t accumulation, bool training, bool pipelined,
                                   bool accumulation_set) {
  StepPlan plan;
  plan.replicas = replicas;
  if (steps && *steps < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "`steps_per_epoch` / `steps` must be a positive integer, got ", *steps));
  }
  if (model.on_ipu() && partial) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The provided set of data has a partial batch, which could result in data being "
        "dropped. Either adjust the `batch_size` of your model (currently set to ",
        batch_size, ") or pad your dataset to ensure there are no partial batches."));
  }
  int64_t total = steps.value_or(batches);
  if (steps && *steps > batches) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Your input does not have enough data. Make sure that your dataset or generator can "
        "generate at least ", *steps, " batches (currently it can only generate ", batches,
        " batches). You may need to use the repeat() function when building your dataset."));
  }
  if (total % replicas != 0) {
    TFIPU_LOG(WARNING) << "Dataset of length " << total
                       << " is being evenly distributed between " << replicas
                       << " replicas. The remaining " << total % replicas << " batch"
                       << (total % replicas > 1 ? "es" : "") << " will be dropped.";
  }
  plan.steps = total / replicas;
  if (plan.steps == 0) {
    const int64_t per_replica = (total + replicas - 1) / replicas;
    return absl::InvalidArgumentError(absl::StrCat(
        "The provided dataset contains ", total, " items, but all ", replicas,
        " replicas are requested to run ", std::max<int64_t>(per_replica, 1),
        " steps each. Make sure the dataset contains at least ",
        std::max<int64_t>(per_replica, 1) * replicas, " items."));
  }
  plan.steps_per_execution = steps_per_execution;
  if (steps_per_execution > plan.steps) {
    TFIPU_LOG(WARNING) << "`steps_per_execution` has been set to " << steps_per_execution
                       << " but the dataset provided" << (replicas > 1 ? " to this replica" : "")
                       << " only contains " << plan.steps << " batches. Using " << plan.steps
                       << " as `steps_per_execution`.";
    plan.steps_per_execution = plan.steps;
  }
  if (plan.steps % plan.steps_per_execution != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "`steps_per_execution` (", plan.steps_per_execution, ") must be a divisor of the "
        "number of batches (", plan.steps, ") in the dataset provided",
        replicas > 1 ? " to this replica" : "", "."));
  }
  if (training && pipelined && !accumulation_set) {
    return absl::FailedPreconditionError(
        "The model which you are attempting to train is pipelined, however "
        "`gradient_accumulation_steps_per_replica` has not been set through "
        "`set_pipelining_options()`. You need to set this value as pipelined models will "
        "perform gradient accumulation when training.");
  }
  if (training && accumulation > 1 && plan.steps_per_execution % accumulation != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "The ", pipelined ? "pipelined " : "", "model has been configured to use gradient "
        "accumulation for training, however the current `steps_per_execution` value (set "
        "to ", plan.steps_per_execution, ") is not divisible by "
        "`gradient_accumulation_steps_per_replica` (", accumulation, "). You need to adjust "
        "either `steps_per_execution` or `gradient_accumulation_steps_per_replica` to make "
        "sure that `steps_per_execution` is divisible by "
        "`gradient_accumulation_steps_per_replica`."));
  }
  return plan;
}


}  // namespace

// One pass of `program` over `steps` steps, calling the batch callbacks.
// Returns the running values at the end (loss, then metrics).
class Model::Loop {
 public:
  static absl::StatusOr<std::vector<double>> Run(
      Model& m, const Program& p, const StepPlan& plan, Mode mode, CallbackList& cbs,
      const std::vector<std::string>& names, data::Iterator* cpu_batches,
      std::vector<Tensor>* predictions, double* simulated_seconds, double* run_seconds) {
    RunningMeans means(plan.replicas, names.size());
    std::vector<double> last;
    for (int64_t step = 0; step < plan.steps; step += plan.steps_per_execution) {
      const int64_t end_batch = step + plan.steps_per_execution - 1;
      cbs.Each([&](callbacks::Callback* c) {
        if (mode == Mode::kTrain) c->on_train_batch_begin(step, Logs());
        else if (mode == Mode::kTest) c->on_test_batch_begin(step, Logs());
        else c->on_predict_batch_begin(step, Logs());
      });
      // values[s][r]: the loss and metrics of step s on replica r.
      std::vector<std::vector<std::vector<double>>> values;
      std::vector<double> weights;
      if (p.on_ipu) {
        RunMetadata md;
        const HostTimer timer;
        RETURN_IF_ERROR(m.graph().session().Run(RunOptions(), {}, {}, {p.run}, nullptr, &md));
        *run_seconds += timer.Seconds();
        *simulated_seconds += md.ipu_profile.total_seconds;
        m.last_execution_profile_ = md.ipu_profile;
        std::vector<Tensor> out;
        RETURN_IF_ERROR(m.graph().session().Run(p.dequeue, &out));
        // One record per step and replica, or the program and the host
        // disagree on the step counts: never read past what came back.
        const int64_t records = plan.steps_per_execution * plan.replicas;
        for (size_t k = 0; k < out.size(); ++k) {
          const int64_t per_record = mode == Mode::kPredict ? -1 : 1;
          if (out[k].dims() < 1 || out[k].dim_size(0) != plan.steps_per_execution ||
              (per_record == 1 && out[k].NumElements() != records)) {
            return absl::InternalError(absl::StrCat(
                "the outfeed of model \"", m.name_, "\" returned ",
                out[k].shape().DebugString(), " for an execution of ", plan.steps_per_execution,
                " steps on ", plan.replicas, " replica(s)"));
          }
        }
        if (mode == Mode::kPredict) {
          predictions->push_back(out[0]);
        } else {
          for (int64_t s = 0; s < plan.steps_per_execution; ++s) {
            values.emplace_back(plan.replicas, std::vector<double>(names.size()));
            for (size_t k = 0; k < names.size(); ++k) {
              for (int64_t r = 0; r < plan.replicas; ++r) {
                values.back()[r][k] = out[k].data<float>()[s * plan.replicas + r];
              }
            }
          }
          weights.assign(values.size(), 1.0);
        }
      } else {
        for (int64_t s = 0; s < plan.steps_per_execution; ++s) {
          std::vector<Tensor> batch;
          bool end = false;
          RETURN_IF_ERROR(cpu_batches->GetNext(&batch, &end));
          if (end) return absl::OutOfRangeError("the data ran out before the epoch ended");
          ClientSession::FeedType feeds;
          feeds.emplace(p.x, batch[0]);
          if (mode != Mode::kPredict) feeds.emplace(p.y, batch[1]);
          std::vector<Tensor> out;
          std::vector<Operation> targets;
          if (mode == Mode::kTrain) targets.push_back(p.train_op);
          const HostTimer timer;
          RETURN_IF_ERROR(m.graph().session().Run(feeds, p.fetches, targets, &out));
          *run_seconds += timer.Seconds();
          if (mode == Mode::kPredict) {
            predictions->push_back(out[0]);
            continue;
          }
          values.push_back({std::vector<double>(names.size())});
          for (size_t k = 0; k < names.size(); ++k) values.back()[0][k] = out[k].data<float>()[0];
          weights.push_back(static_cast<double>(batch[0].dim_size(0)));
        }
      }
      for (size_t s = 0; s < values.size(); ++s) {
        for (int64_t r = 0; r < plan.replicas; ++r) means.Add(r, values[s][r], weights[s]);
        if (m.asynchronous_callbacks_ && s + 1 < values.size()) {
          // Per-step callbacks: every step but the last of the execution
          // (which the loop reports below) with its running values.
          Logs logs = MakeLogs(names, means.Reduced(m.replicated_metric_reduction_));
          const int64_t b = step + static_cast<int64_t>(s);
          cbs.Each([&](callbacks::Callback* c) {
            if (mode == Mode::kTrain) {
              c->on_train_batch_end(b, logs);
              c->on_train_batch_begin(b + 1, Logs());
            } else if (mode == Mode::kTest) {
              c->on_test_batch_end(b, logs);
              c->on_test_batch_begin(b + 1, Logs());
            }
          });
        }
      }
      last = mode == Mode::kPredict ? std::vector<double>{}
                                    : means.Reduced(m.replicated_metric_reduction_);
      Logs logs = MakeLogs(names, last);
      cbs.Each([&](callbacks::Callback* c) {
        if (mode == Mode::kTrain) c->on_train_batch_end(end_batch, logs);
        else if (mode == Mode::kTest) c->on_test_batch_end(end_batch, logs);
        else c->on_predict_batch_end(end_batch, logs);
      });
    }
    return last;
  }
};

namespace {

std::vector<std::string> LogNames(const std::vector<std::string>& metrics) {
  std::vector<std::string> names = {"loss"};
  names.insert(names.end(), metrics.begin(), metrics.end());
  return names;
}

}  // namespace

absl::StatusOr<callbacks::History> Model::fit(const Tensor& x, const Tensor& y,
                                              const FitOptions& options) {
  ASSIGN_OR_RETURN(CallData d, FromTensors(x, &y, options.batch_size));
  return Fit(d, options);
}

absl::StatusOr<callbacks::History> Model::fit(const data::Dataset& dataset,
                                              const FitOptions& options) {
  RETURN_IF_ERROR(dataset.status());
  CallData d;
  d.pre_batched = true;
  d.batches = dataset;
  return Fit(d, options);
}

// The samples must have the model input's shape (beyond the batch) and
// type, as Keras's input spec checks them.
absl::Status Model::CheckInputs(const CallData& d) const {
  std::vector<int64_t> sample;
  DataType dtype;
  if (d.pre_batched) {
    std::vector<TensorShape> shapes = d.batches->output_shapes();
    if (shapes.empty() || shapes[0].dims() < 1) {
      return absl::InvalidArgumentError(
          "the dataset's elements must be batches: (x, y) with a batch dimension");
    }
    sample.assign(shapes[0].dim_sizes().begin() + 1, shapes[0].dim_sizes().end());
    dtype = d.batches->output_types()[0];
  } else {
    sample = d.sample_shape;
    dtype = d.sample_dtype;
  }
  const Shape& expected = input_.shape();
  Shape found = {kUnknownDim};
  found.insert(found.end(), sample.begin(), sample.end());
  bool same = found.size() == expected.size();
  for (size_t i = 1; same && i < found.size(); ++i) {
    same = found[i] == expected[i] || found[i] < 0;
  }
  if (!same) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input 0 of layer \"", name_, "\" is incompatible with the layer: expected shape=",
        ShapeString(expected), ", found shape=", ShapeString(found)));
  }
  if (dtype != input_.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input 0 of layer \"", name_, "\" expects ", DataTypeString(input_.dtype()),
        " samples, got ", DataTypeString(dtype), "; convert the data first"));
  }
  return absl::OkStatus();
}

absl::StatusOr<internal::PreparedCall> Model::Prepare(const CallData& d, Mode mode,
                                               std::optional<int64_t> steps, bool shuffle) {
  if (!compiled_ && mode != Mode::kPredict) {
    return absl::FailedPreconditionError(
        "You must compile your model before training/testing. Use "
        "`model.compile(optimizer, loss)`.");
  }
  RETURN_IF_ERROR(graph().Prepare());
  RETURN_IF_ERROR(CheckInputs(d));
  ASSIGN_OR_RETURN(int64_t replicas, ModelReplicas(*this, graph(), ipu_device_));
  int64_t batches = 0;
  bool partial = false;
  int64_t batch_size = d.batch_size;
  if (d.pre_batched) {
    const int64_t card = d.batches->Cardinality();
    if (card < 0 && !steps) {
      return absl::InvalidArgumentError(
          "When providing an infinite dataset, you must specify the number of steps to run "
          "(steps_per_epoch or steps).");
    }
    batches = card < 0 ? *steps : card;
    std::vector<TensorShape> shapes = d.batches->output_shapes();
    for (const TensorShape& s : shapes) {
      if (on_ipu() && !s.IsFullyDefined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The provided set of data contains a shape ", s.DebugString(), " which is not "
            "fully defined. Executing on IPU requires all dataset elements to have fully "
            "defined shapes. If using batch() make sure to set `drop_remainder=True`."));
      }
    }
    batch_size = shapes.empty() || shapes[0].dims() < 1 ? 0 : shapes[0].dim_size(0);
  } else {
    // Rounded up without a sum that could overflow (batch sizes up to 2^63).
    batches = d.samples / d.batch_size + (d.samples % d.batch_size != 0 ? 1 : 0);
    partial = d.samples % d.batch_size != 0;
  }
  const bool training = mode == Mode::kTrain;
  const int64_t spe = mode == Mode::kTrain || on_ipu() ? steps_per_execution_ : 1;
  ASSIGN_OR_RETURN(StepPlan plan,
                   PlanSteps(*this, batches, partial, batch_size, steps, replicas, spe,
                             pipelined_ || gradient_accumulation_set_ ? gradient_accumulation_steps_ : 1,
                             training, pipelined_, gradient_accumulation_set_));
  if (on_ipu() && steps_per_execution_ == 1 && mode == Mode::kTrain) {
    TFIPU_LOG(INFO) << "The model `" << name_ << "` has been configured with only 1 steps "
                       "per execution. Consider increasing the value for the "
                       "`steps_per_execution` argument passed to the `compile()` method to "
                       "improve performance.";
  }
  if (training && (gradient_accumulation_steps_ > 1 || replicas > 1)) {
    const bool distributed = replicas > 1;
    std::string line =
        absl::StrCat("Training is", distributed ? " distributed" : " not distributed");
    if (gradient_accumulation_steps_ > 1) {
      absl::StrAppend(&line, " and accumulating ", gradient_accumulation_steps_,
                      " batches per optimizer step");
    }
    if (distributed) absl::StrAppend(&line, " across ", replicas, " replicas");
    absl::StrAppend(&line, ", your effective batch size is ",
                    batch_size * gradient_accumulation_steps_ * replicas, ".");
    TFIPU_LOG(INFO) << line;
  }
  internal::PreparedCall prep;
  prep.plan = plan;
  ProgramConfig config;
  config.mode = mode;
  config.steps_per_execution = plan.steps_per_execution;
  config.replicas = replicas;
  if (d.pre_batched) {
    std::vector<TensorShape> shapes = d.batches->output_shapes();
    if (shapes.size() > 1 && shapes[1].dims() >= 1) {
      config.label_shape.assign(shapes[1].dim_sizes().begin() + 1, shapes[1].dim_sizes().end());
      config.label_dtype = d.batches->output_types()[1];
    }
  } else {
    config.label_shape = d.label_shape;
    config.label_dtype = d.label_dtype;
  }
  std::optional<data::Dataset> batched;
  if (d.pre_batched) {
    batched = d.batches;
  } else {
    data::Dataset slices = *d.slices;
    if (shuffle) slices = slices.Shuffle(d.samples, utils::NextSequenceSeed());
    batched = slices.Batch(d.batch_size, /*drop_remainder=*/on_ipu());
  }
  if (on_ipu()) {
    config.dataset = batched->Repeat().Prefetch(infeed_options_.prefetch_depth);
  } else {
    prep.cpu_data = batched->Repeat();
  }
  ASSIGN_OR_RETURN(prep.program, graph().Build(config));
  return prep;
}

absl::StatusOr<callbacks::History> Model::Fit(const CallData& d, const FitOptions& options) {
  if (options.epochs < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("`epochs` must be a positive integer, got ", options.epochs));
  }
  ASSIGN_OR_RETURN(internal::PreparedCall prep, Prepare(d, Mode::kTrain, options.steps_per_epoch,
                                          options.shuffle));
  ASSIGN_OR_RETURN(std::unique_ptr<data::Iterator> cpu_batches, CpuBatches(prep));
  callbacks::History history;
  callbacks::Callback::Params params;
  params.verbose = options.verbose;
  params.epochs = options.epochs;
  params.steps = prep.plan.steps;
  CallbackList cbs(this, options.callbacks, params, true, false, &history);
  const std::vector<std::string> names = LogNames(metrics_);
  // Summed here and stored at the end: validation's evaluate sets them too.
  double fit_simulated = 0, fit_run_seconds = 0;
  cbs.Each([](callbacks::Callback* c) { c->on_train_begin(Logs()); });
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    cbs.Each([&](callbacks::Callback* c) { c->on_epoch_begin(epoch, Logs()); });
    double simulated = 0, run_seconds = 0;
    ASSIGN_OR_RETURN(std::vector<double> values,
                     Loop::Run(*this, prep.program, prep.plan, Mode::kTrain, cbs, names,
                               cpu_batches.get(), nullptr, &simulated, &run_seconds));
    fit_simulated += simulated;
    fit_run_seconds += run_seconds;
    Logs logs = MakeLogs(names, values);
    if (options.validation_data) {
      EvaluateOptions eval;
      eval.batch_size = options.batch_size;
      eval.verbose = 0;
      ASSIGN_OR_RETURN(std::vector<double> val,
                       evaluate(options.validation_data->first, options.validation_data->second,
                                eval));
      for (size_t i = 0; i < names.size(); ++i) logs.Set("val_" + names[i], val[i]);
    }
    if (show_ipu_time_ && prep.program.on_ipu) {
      cbs.progbar().set_ipu_seconds_per_step(simulated / prep.plan.steps);
    }
    cbs.Each([&](callbacks::Callback* c) { c->on_epoch_end(epoch, logs); });
  }
  last_simulated_seconds_ = fit_simulated;
  last_session_run_seconds_ = fit_run_seconds;
  cbs.Each([](callbacks::Callback* c) { c->on_train_end(Logs()); });
  return history;
}

absl::StatusOr<std::vector<double>> Model::evaluate(const Tensor& x, const Tensor& y,
                                                    const EvaluateOptions& options) {
  ASSIGN_OR_RETURN(CallData d, FromTensors(x, &y, options.batch_size));
  return Evaluate(d, options);
}

absl::StatusOr<std::vector<double>> Model::evaluate(const data::Dataset& dataset,
                                                    const EvaluateOptions& options) {
  RETURN_IF_ERROR(dataset.status());
  CallData d;
  d.pre_batched = true;
  d.batches = dataset;
  return Evaluate(d, options);
}

absl::StatusOr<std::vector<double>> Model::Evaluate(const CallData& d,
                                                    const EvaluateOptions& options) {
  ASSIGN_OR_RETURN(internal::PreparedCall prep, Prepare(d, Mode::kTest, options.steps, false));
  ASSIGN_OR_RETURN(std::unique_ptr<data::Iterator> cpu_batches, CpuBatches(prep));
  callbacks::Callback::Params params;
  params.verbose = options.verbose;
  params.steps = prep.plan.steps;
  CallbackList cbs(this, options.callbacks, params, true, false, nullptr);
  const std::vector<std::string> names = LogNames(metrics_);
  cbs.Each([](callbacks::Callback* c) { c->on_test_begin(Logs()); });
  double simulated = 0, run_seconds = 0;
  ASSIGN_OR_RETURN(std::vector<double> values,
                   Loop::Run(*this, prep.program, prep.plan, Mode::kTest, cbs, names,
                             cpu_batches.get(), nullptr, &simulated, &run_seconds));
  last_simulated_seconds_ = simulated;
  last_session_run_seconds_ = run_seconds;
  Logs logs = MakeLogs(names, values);
  cbs.Each([&](callbacks::Callback* c) { c->on_test_end(logs); });
  return values;
}

absl::StatusOr<Tensor> Model::predict(const Tensor& x, const PredictOptions& options) {
  ASSIGN_OR_RETURN(CallData d, FromTensors(x, nullptr, options.batch_size));
  ASSIGN_OR_RETURN(internal::PreparedCall prep, Prepare(d, Mode::kPredict, options.steps, false));
  ASSIGN_OR_RETURN(std::unique_ptr<data::Iterator> cpu_batches, CpuBatches(prep));
  callbacks::Callback::Params params;
  params.verbose = options.verbose;
  params.steps = prep.plan.steps;
  CallbackList cbs(this, options.callbacks, params, true, false, nullptr);
  cbs.Each([](callbacks::Callback* c) { c->on_predict_begin(Logs()); });
  std::vector<Tensor> parts;
  double simulated = 0, run_seconds = 0;
  RETURN_IF_ERROR(Loop::Run(*this, prep.program, prep.plan, Mode::kPredict, cbs, {},
                            cpu_batches.get(), &parts, &simulated, &run_seconds)
                      .status());
  last_simulated_seconds_ = simulated;
  last_session_run_seconds_ = run_seconds;
  cbs.Each([](callbacks::Callback* c) { c->on_predict_end(Logs()); });
  // Concatenate along the batch: IPU parts are [steps, (replicas,) batch,
  // ...], whose order is the batches' order (replica r of step s had batch
  // s * R + r).
  int64_t rows = 0;
  std::vector<int64_t> row_shape;
  const int leading = prep.program.on_ipu ? (prep.plan.replicas > 1 ? 3 : 2) : 1;
  for (const Tensor& t : parts) {
    int64_t r = 1;
    for (int i = 0; i < leading; ++i) r *= t.dim_size(i);
    rows += r;
    row_shape.assign(t.shape().dim_sizes().begin() + leading, t.shape().dim_sizes().end());
  }
  std::vector<int64_t> dims = {rows};
  dims.insert(dims.end(), row_shape.begin(), row_shape.end());
  std::vector<float> values;
  for (const Tensor& t : parts) {
    values.insert(values.end(), t.data<float>(), t.data<float>() + t.NumElements());
  }
  return Tensor::FromValues<float>(values, TensorShape(dims));
}

}  // namespace keras
}  // namespace tensorflow_ipu
