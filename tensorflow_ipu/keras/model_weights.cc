// Model's weights: get/set as tensors, save/load in the project's
// checkpoint format under TensorFlow 2's keys for Keras layers
// ("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"), so a model
// trained on the IPU loads into the same architecture on the CPU.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/io/checkpoint.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/model_graph.h"

namespace tensorflow_ipu {
namespace keras {

absl::StatusOr<std::vector<Tensor>> Model::get_weights() { return graph().ReadWeights(); }

absl::Status Model::set_weights(const std::vector<Tensor>& weights) {
  return graph().WriteWeights(weights);
}

absl::Status Model::save_weights(const std::string& filepath) {
  ASSIGN_OR_RETURN(std::vector<std::string> keys, graph().WeightKeys());
  ASSIGN_OR_RETURN(std::vector<Tensor> values, graph().ReadWeights());
  NamedTensors tensors;
  for (size_t i = 0; i < keys.size(); ++i) tensors[keys[i]] = values[i];
  return WriteCheckpoint(filepath, tensors);
}

absl::Status Model::load_weights(const std::string& filepath) {
  ASSIGN_OR_RETURN(std::vector<std::string> keys, graph().WeightKeys());
  ASSIGN_OR_RETURN(NamedTensors checkpoint, ReadCheckpoint(filepath));
  std::vector<Tensor> values;
  size_t k = 0;
  for (const auto& layer : layers()) {
    for (const WeightSpec& w : layer->weights()) {
      ASSIGN_OR_RETURN(Tensor t, LookupCheckpointTensor(checkpoint, filepath, keys[k++],
                                                            DT_FLOAT, TensorShape(w.shape)));
      values.push_back(t);
    }
  }
  return graph().WriteWeights(values);
}

}  // namespace keras
}  // namespace tensorflow_ipu
