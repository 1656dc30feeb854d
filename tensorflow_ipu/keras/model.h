// keras::Model (the Functional API) and keras::Sequential: a graph of layer
// calls that compiles, trains, evaluates and predicts, on the simulated IPU
// when created inside an IPUStrategy's scope and on the CPU otherwise.
//
//   keras::KerasTensor in = keras::Input({28, 28, 1});
//   keras::KerasTensor x = keras::layers::Conv2D(32, {3, 3}, {.activation = "relu"})(in);
//   ...
//   ASSIGN_OR_RETURN(std::shared_ptr<keras::Model> model, keras::Model::Create(in, x));
//   RETURN_IF_ERROR(model->compile("sgd", "categorical_crossentropy", {"accuracy"}));
//   ASSIGN_OR_RETURN(auto history, model->fit(x_train, y_train, {.epochs = 3, .batch_size = 64}));
//   ASSIGN_OR_RETURN(std::vector<double> scores, model->evaluate(x_test, y_test));
//
// Each fit/evaluate/predict builds its program into the model's graph and
// runs it in the model's session: on the IPU, an on-device loop
// (ipu::loops::repeat) of steps_per_execution steps over an infeed, with
// the running loss and metrics sent back through an outfeed, exactly as a
// hand-written TF1 program would; replicated over the IPUs the graph does
// not use (gradients averaged over replicas), with gradient accumulation
// (GradientAccumulationOptimizerV2) or as a pipeline
// (ipu::pipelining_ops::pipeline) when configured. On the CPU, one
// Session::Run per step with the batch fed.
//
// Validations, warnings and the progress bar follow the vendor's Keras
// extension (docs/keras.md lists them with their wording).
#ifndef TENSORFLOW_IPU_KERAS_MODEL_H_
#define TENSORFLOW_IPU_KERAS_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/ipu_run_profile.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/keras/callbacks.h"
#include "tensorflow_ipu/keras/layer.h"
#include "tensorflow_ipu/keras/optimizers.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"

namespace tensorflow_ipu {
namespace keras {

class ModelGraph;
enum class Mode;
namespace internal {
struct CallData;      // the data of one fit/evaluate/predict (training.cc)
struct PreparedCall;  // its checked step counts and built program
}  // namespace internal

struct FitOptions {
  int epochs = 1;
  int64_t batch_size = 32;  // ignored for a Dataset (already batched)
  // Batches per epoch, over all replicas; nullopt: the whole data set.
  std::optional<int64_t> steps_per_epoch;
  int verbose = 1;  // 0 silent, 1 progress bar, 2 one line per epoch
  std::vector<callbacks::Callback*> callbacks;
  // (x, y) evaluated at the end of each epoch ("val_" logs).
  std::optional<std::pair<Tensor, Tensor>> validation_data;
  bool shuffle = true;
};

struct EvaluateOptions {
  int64_t batch_size = 32;
  std::optional<int64_t> steps;
  int verbose = 1;
  std::vector<callbacks::Callback*> callbacks;
};

struct PredictOptions {
  int64_t batch_size = 32;
  std::optional<int64_t> steps;
  int verbose = 0;
  std::vector<callbacks::Callback*> callbacks;
};

// set_infeed_queue_options / set_outfeed_queue_options: the arguments the
// vendor's Keras forwards to the IPUInfeedQueue and IPUOutfeedQueue it makes.
struct InfeedQueueOptions {
  // Batches the host prepares ahead of the device (a Prefetch stage after
  // the batching).
  int64_t prefetch_depth = 3;
};
struct OutfeedQueueOptions {
  // Accepted and checked; the simulated outfeed buffers on the host
  // without limit, so it changes no result and no simulated time.
  int64_t buffer_depth = 3;
};

// How a replicated model reports its loss and metrics
// (set_replication_options).
enum class ReplicatedMetricReductionMethod { NONE, LIST, SUM, MEAN };

class Model {
 public:
  // A Functional model from its input to its output. InvalidArgument if
  // either carries an error or the output does not depend on the input.
  static absl::StatusOr<std::shared_ptr<Model>> Create(const KerasTensor& inputs,
                                                       const KerasTensor& outputs,
                                                       const std::string& name = "");
  virtual ~Model();

  const std::string& name() const { return name_; }
  // The layers in call order, the input layer first.
  std::vector<std::shared_ptr<Layer>> layers() const;
  int64_t count_params() const;
  // Keras's table (layer, output shape, parameter count, totals).
  void summary(const std::function<void(const std::string&)>& print_fn = nullptr) const;
  // True when created inside an IPUStrategy's scope.
  bool on_ipu() const { return !ipu_device_.empty(); }

  absl::Status compile(const optimizers::Optimizer& optimizer, const std::string& loss,
                       const std::vector<std::string>& metrics = {},
                       int64_t steps_per_execution = 1);

  absl::StatusOr<callbacks::History> fit(const Tensor& x, const Tensor& y,
                                         const FitOptions& options = {});
  absl::StatusOr<callbacks::History> fit(const data::Dataset& dataset,
                                         const FitOptions& options = {});
  // The loss then each metric, as Keras's evaluate returns them.
  absl::StatusOr<std::vector<double>> evaluate(const Tensor& x, const Tensor& y,
                                               const EvaluateOptions& options = {});
  absl::StatusOr<std::vector<double>> evaluate(const data::Dataset& dataset,
                                               const EvaluateOptions& options = {});
  // The outputs of every batch, concatenated.
  absl::StatusOr<Tensor> predict(const Tensor& x, const PredictOptions& options = {});

  // The weights as tensors, in layers() order (kernel before bias).
  absl::StatusOr<std::vector<Tensor>> get_weights();
  absl::Status set_weights(const std::vector<Tensor>& weights);
  // The project's checkpoint format (train::Saver), keyed by
  // "<layer>/<weight>", so a model trained on the IPU loads on the CPU.
  absl::Status save_weights(const std::string& filepath);
  absl::Status load_weights(const std::string& filepath);

  // IPU-specific settings of the vendor's Keras extension. Each discards
  // the programs built so far.
  absl::Status set_gradient_accumulation_options(
      std::optional<int64_t> gradient_accumulation_steps_per_replica,
      const std::string& gradient_accumulation_reduction_method = "sum");
  absl::Status set_pipelining_options(
      std::optional<int64_t> gradient_accumulation_steps_per_replica,
      std::optional<std::vector<int>> device_mapping = std::nullopt,
      ipu::pipelining_ops::PipelineSchedule pipeline_schedule =
          ipu::pipelining_ops::PipelineSchedule::Grouped,
      const std::string& gradient_accumulation_reduction_method = "sum");
  absl::Status set_replication_options(const std::string& replicated_metric_reduction_method);
  void set_asynchronous_callbacks(bool asynchronous) { asynchronous_callbacks_ = asynchronous; }
  // InvalidArgument for a depth below 1.
  absl::Status set_infeed_queue_options(const InfeedQueueOptions& options);
  absl::Status set_outfeed_queue_options(const OutfeedQueueOptions& options);
  // One stage per layer call, in layers() order (the input layer excluded).
  absl::Status set_pipeline_stage_assignment(const std::vector<int>& stages);
  std::vector<std::optional<int>> get_pipeline_stage_assignment() const;
  void reset_pipeline_stage_assignment();
  void print_pipeline_stage_assignment_summary(
      const std::function<void(const std::string&)>& print_fn = nullptr) const;

  // The simulated IPU seconds of the last fit/evaluate/predict (0 on the
  // CPU), beside the host's wall time.
  double last_simulated_seconds() const { return last_simulated_seconds_; }
  // The simulated cost of the last execution of an IPU program (one Run:
  // steps_per_execution steps), cluster by cluster.
  const IpuRunProfile& last_execution_profile() const { return last_execution_profile_; }
  // The host wall-clock seconds the last fit/evaluate/predict spent inside
  // the Session::Run calls that execute its program: on the IPU, each
  // execution of the on-device loop (the first Run of a newly built
  // program also compiles it); on the CPU, each step's Run. The rest of the
  // call's time is the model's own host work: building the program,
  // reading the outfeed, the running means, callbacks.
  double last_session_run_seconds() const { return last_session_run_seconds_; }
  // Show the simulated IPU time per step beside the host's at the end of
  // each epoch's bar: "- 0s 91us/step (IPU 302us/step) - loss: ...".
  void set_show_ipu_time(bool show) { show_ipu_time_ = show; }

 protected:
  explicit Model(std::string name);
  absl::Status InitFunctional(const KerasTensor& inputs, const KerasTensor& outputs);
  virtual bool is_sequential() const { return false; }

 private:
  friend class ModelGraph;
  friend class Sequential;
  class Loop;  // the host loop of one epoch (training.cc)
  absl::StatusOr<internal::PreparedCall> Prepare(const internal::CallData& d, Mode mode,
                                                 std::optional<int64_t> steps, bool shuffle);
  absl::Status CheckInputs(const internal::CallData& d) const;
  absl::StatusOr<callbacks::History> Fit(const internal::CallData& d,
                                         const FitOptions& options);
  absl::StatusOr<std::vector<double>> Evaluate(const internal::CallData& d,
                                               const EvaluateOptions& options);
  struct NodeRef {
    std::shared_ptr<Layer> layer;
    int node_index;
  };

  std::string name_;
  std::string ipu_device_;  // "" on the CPU
  KerasTensor input_, output_;
  std::vector<NodeRef> nodes_;  // topological order, the input first

  // compile()
  bool compiled_ = false;
  optimizers::Optimizer optimizer_{"sgd"};
  std::string loss_;
  std::vector<std::string> metrics_;           // as given
  std::vector<std::string> resolved_metrics_;  // metrics::Resolve'd
  int64_t steps_per_execution_ = 1;

  // IPU settings.
  int64_t gradient_accumulation_steps_ = 1;
  bool gradient_accumulation_set_ = false;
  std::string gradient_accumulation_reduction_ = "sum";
  bool pipelined_ = false;
  std::optional<std::vector<int>> device_mapping_;
  ipu::pipelining_ops::PipelineSchedule pipeline_schedule_ =
      ipu::pipelining_ops::PipelineSchedule::Grouped;
  ReplicatedMetricReductionMethod replicated_metric_reduction_ =
      ReplicatedMetricReductionMethod::NONE;
  bool asynchronous_callbacks_ = false;
  InfeedQueueOptions infeed_options_;
  OutfeedQueueOptions outfeed_options_;
  bool show_ipu_time_ = false;
  double last_simulated_seconds_ = 0;
  IpuRunProfile last_execution_profile_;
  double last_session_run_seconds_ = 0;

  std::unique_ptr<ModelGraph> graph_;
  ModelGraph& graph();
};

// TensorFlow's tf.config.threading.set_intra_op_parallelism_threads for
// these models: the host threads of the session of each model that runs
// its first program afterwards (0, the default: one per core). The
// session's threads run the CPU kernels and the IPU simulator's compute.
void set_intra_op_parallelism_threads(int num_threads);
int get_intra_op_parallelism_threads();

// A plain stack of layers; the first is a layers::InputLayer (or the
// model takes its input shape from `input_shape` of the first add()).
class Sequential : public Model {
 public:
  static absl::StatusOr<std::shared_ptr<Sequential>> Create(
      const std::vector<std::shared_ptr<Layer>>& layers, const std::string& name = "");
  absl::Status add(const std::shared_ptr<Layer>& layer);

 protected:
  bool is_sequential() const override { return true; }

 private:
  using Model::Model;
  KerasTensor last_;
};

}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_MODEL_H_
