// ModelGraph: a Model's TensorFlow graph and session. It creates the
// layers' variables (once, on the CPU or on the IPU of their pipeline
// stage), replays the layer calls into programs (training, evaluation,
// prediction), and runs the initializers of variables the programs add
// (optimizer slots).
//
// Internal to the keras package: users see Model.
#ifndef TENSORFLOW_IPU_KERAS_MODEL_GRAPH_H_
#define TENSORFLOW_IPU_KERAS_MODEL_GRAPH_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/variable.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace keras {

class Model;
class Layer;

enum class Mode { kTrain, kTest, kPredict };

// What the programs of one mode need to know about a run.
struct ProgramConfig {
  Mode mode = Mode::kTrain;
  int64_t steps_per_execution = 1;
  int64_t replicas = 1;  // on the IPU
  std::vector<int64_t> label_shape;  // without the batch
  DataType label_dtype = DT_FLOAT;
  // IPU only: the data, already batched and repeated forever.
  std::optional<data::Dataset> dataset;
};

// A built program. On the IPU one Run of `run` executes
// steps_per_execution steps; `dequeue` then gives the outfeed's
// [steps, (replicas,) ...] values: loss and metrics (train, test) or the
// predictions. On the CPU one Run of `fetches` (with `train_op` when
// training) with `x` (and `y`) fed is one step.
struct Program {
  ProgramConfig config;
  bool on_ipu = false;
  Operation run;
  std::string feed_name;  // the infeed's, to give it a later call's data
  Operation infeed_initializer;
  std::vector<Output> dequeue;
  Output x, y;
  std::vector<Output> fetches;
  Operation train_op;
};

class ModelGraph {
 public:
  explicit ModelGraph(Model* model);

  // Forget built programs (compile() or a setting changed); variables stay.
  void DiscardPrograms() { programs_.clear(); }
  absl::StatusOr<Program> Build(const ProgramConfig& config);
  // Resolves the pipeline stages and creates the variables (Build does
  // it too); before shards() is asked.
  absl::Status Prepare();

  // The IPUs the model's shards need: 1, or the pipeline's devices.
  int shards() const;
  // The model's weights, in Model::layers() order.
  absl::StatusOr<std::vector<Tensor>> ReadWeights();
  absl::Status WriteWeights(const std::vector<Tensor>& weights);
  absl::StatusOr<std::vector<std::string>> WeightKeys();
  ClientSession& session() { return *session_; }

 private:
  // Each stage's pipeline device, and the stage of every node.
  absl::Status ResolveStages();
  absl::Status EnsureVariables();
  absl::Status InitializeNewVariables();
  // Replays nodes [begin, end) of the model into `s`, reading and writing
  // `values` (node index -> value); with `logits`, the last node's value
  // before its activation goes there.
  absl::Status Replay(const Scope& s, size_t begin, size_t end, bool training,
                      std::map<size_t, Output>* values, Output* logits) const;
  absl::StatusOr<std::vector<Output>> LossAndMetrics(const Scope& s, Output y_true,
                                                     Output y_pred, Output logits) const;
  absl::StatusOr<train::Optimizer*> TrainingOptimizer(int64_t replicas);
  absl::StatusOr<Program> BuildProgram(const ProgramConfig& config);
  // The IPU's program: its feeds, and the op running one execution, an
  // on-device loop or a pipeline.
  absl::StatusOr<Program> BuildIpu(const ProgramConfig& config);
  absl::StatusOr<Operation> LoopProgram(const ProgramConfig& config,
                                        const ipu::IPUInfeedQueue& infeed,
                                        ipu::IPUOutfeedQueue& outfeed);
  absl::StatusOr<Operation> PipelineProgram(const ProgramConfig& config,
                                            const ipu::IPUInfeedQueue& infeed,
                                            ipu::IPUOutfeedQueue& outfeed);
  absl::StatusOr<Program> BuildCpu(const ProgramConfig& config);
  Scope IpuScopeForStage(int stage) const;

  Model* model_;
  Scope root_;
  std::unique_ptr<ClientSession> session_;
  std::map<const Layer*, std::vector<Variable>> variables_;
  std::set<std::string> initialized_;
  std::vector<int> node_stage_;       // per model node; 0 when not pipelined
  std::vector<int> stage_device_;     // per stage: the shard it runs on
  std::vector<std::unique_ptr<train::Optimizer>> optimizers_;  // kept for the graph's life
  // Built programs by ProgramKey (model_graph.cc), reused by later calls.
  std::map<std::string, Program> programs_;
};

}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_MODEL_GRAPH_H_
