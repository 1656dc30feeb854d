// keras::Layer and keras::KerasTensor: the Functional API's building blocks.
//
//   keras::KerasTensor x = keras::Input({28, 28, 1});
//   x = keras::layers::Conv2D(32, {3, 3}, {.activation = "relu"})(x);
//   x = keras::layers::Flatten()(x);
//
// Calling a layer on a KerasTensor records a node (the layer, its input, the
// pipeline stage in force) and returns a symbolic tensor of the output's
// shape; no graph exists yet. A Model later replays the nodes into the
// graph of its session, once per program it builds (training, evaluation,
// prediction), with the same weights each time.
//
// Layers hold only shapes and weight *specifications*; the Model that uses
// a layer creates its variables (so the same layer objects describe a model
// on the CPU and on the IPU). Errors do not throw: a layer call that fails
// returns a KerasTensor carrying the status, later calls pass it on, and
// Model::Create reports it.
#ifndef TENSORFLOW_IPU_KERAS_LAYER_H_
#define TENSORFLOW_IPU_KERAS_LAYER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/cc/variables/initializers.h"
#include "tensorflow_ipu/core/types.h"
#include "tensorflow_ipu/keras/keras_shape.h"

namespace tensorflow_ipu {
namespace keras {

class Layer;

// The output of one call of a layer, in the Functional API.
class KerasTensor {
 public:
  KerasTensor() = default;
  static KerasTensor Error(absl::Status status);

  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }
  const Shape& shape() const { return shape_; }
  DataType dtype() const { return dtype_; }
  // The layer and which of its calls made this tensor.
  const std::shared_ptr<Layer>& layer() const { return layer_; }
  int node_index() const { return node_index_; }

 private:
  friend class Layer;
  std::shared_ptr<Layer> layer_;
  int node_index_ = 0;
  Shape shape_;
  DataType dtype_ = DT_FLOAT;
  absl::Status status_;
};

// A weight a layer needs; the model creates the variable.
struct WeightSpec {
  std::string name;  // "kernel", "bias"
  Shape shape;
  Initializer initializer;
  bool trainable = true;
};

// One call of a layer.
struct LayerNode {
  std::vector<KerasTensor> inputs;  // empty for an InputLayer
  Shape output_shape;
  // The PipelineStage in force when the layer was called (nullopt: none).
  std::optional<int> pipeline_stage;
};

class Layer : public std::enable_shared_from_this<Layer> {
 public:
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  // Keras's names: the class ("Conv2D") and the instance ("conv2d_1").
  const std::string& class_name() const { return class_name_; }
  const std::string& name() const { return name_; }

  // The Functional API's call.
  KerasTensor operator()(const KerasTensor& input);

  bool built() const { return built_; }
  const std::vector<WeightSpec>& weights() const { return weights_; }
  // Elements of all weights (0 before the layer is built).
  int64_t count_params() const;
  const std::vector<LayerNode>& inbound_nodes() const { return nodes_; }
  // The output of call `node_index` (an error if there is no such call).
  KerasTensor OutputOf(int node_index);

  // The stage this layer's calls run in, set by a PipelineStage scope at
  // call time or by Model::set_pipeline_stage_assignment.
  void set_pipeline_stage(int node_index, std::optional<int> stage);

  // Builds the layer's ops for one call. `weights` are the values of the
  // variables made from weights(), in order. `training` switches layers
  // such as Dropout.
  virtual absl::StatusOr<Output> Call(const Scope& scope, const Output& input,
                                      const std::vector<Output>& weights,
                                      bool training) const = 0;

  // The activation the layer applies last ("": none). A model whose loss
  // is a cross-entropy over a softmax output computes the loss from the
  // values before the softmax, as Keras does, for stability.
  virtual std::string activation() const { return ""; }
  virtual absl::StatusOr<Output> CallWithoutActivation(const Scope& scope,
                                                       const Output& input,
                                                       const std::vector<Output>& weights,
                                                       bool training) const {
    return Call(scope, input, weights, training);
  }

  // Called once, with the shape of the first input; adds the weights.
  absl::Status EnsureBuilt(const Shape& input_shape);
  virtual absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const = 0;

 protected:
  // `name` empty: Keras's automatic name from the class name, unique in
  // the process ("dense", "dense_1", ...).
  Layer(std::string class_name, const std::string& name);

  virtual absl::Status Build(const Shape& input_shape) { return absl::OkStatus(); }
  void AddWeight(std::string name, Shape shape, Initializer initializer);
  // A node without inputs (InputLayer).
  KerasTensor AddSourceNode(const Shape& shape, DataType dtype);

 private:
  std::string class_name_;
  std::string name_;
  bool built_ = false;
  Shape built_input_shape_;
  std::vector<WeightSpec> weights_;
  std::vector<LayerNode> nodes_;
  DataType source_dtype_ = DT_FLOAT;  // of an InputLayer's node
};

// A layer whose output is activation(its own computation), as Dense and
// Conv2D: it implements CallWithoutActivation; Call applies the
// activation. Build helpers add Keras's kernel and bias weights.
class ActivatedLayer : public Layer {
 public:
  absl::StatusOr<Output> Call(const Scope& scope, const Output& input,
                              const std::vector<Output>& weights,
                              bool training) const final;
  absl::StatusOr<Output> CallWithoutActivation(const Scope& scope, const Output& input,
                                               const std::vector<Output>& weights,
                                               bool training) const override = 0;
  std::string activation() const final { return activation_; }

 protected:
  ActivatedLayer(std::string class_name, const std::string& name, std::string activation)
      : Layer(std::move(class_name), name), activation_(std::move(activation)) {}
  // Checks the activation's name, then adds "kernel" of `kernel_shape`
  // and, with `use_bias`, "bias" of the kernel's last dimension, with the
  // named initializers.
  absl::Status AddKernelAndBias(const Shape& kernel_shape, bool use_bias,
                                const std::string& kernel_initializer,
                                const std::string& bias_initializer);
  // y + bias (the last weight) when the layer has a bias.
  Output MaybeAddBias(const Scope& scope, Output y, const std::vector<Output>& weights) const;

 private:
  std::string activation_;
};

// A copyable handle to a layer, so that `layers::Dense(10)(x)` reads as in
// Python while the layer outlives the expression. Each layer defines its
// handle with the layer's constructor arguments.
template <typename L>
class LayerHandle {
 public:
  KerasTensor operator()(const KerasTensor& x) const { return (*layer_)(x); }
  L* operator->() const { return layer_.get(); }
  operator std::shared_ptr<Layer>() const { return layer_; }  // NOLINT
  const std::shared_ptr<L>& get() const { return layer_; }

 protected:
  explicit LayerHandle(std::shared_ptr<L> layer) : layer_(std::move(layer)) {}

 private:
  std::shared_ptr<L> layer_;
};

// Keras's automatic layer name for a class ("Conv2D" -> "conv2d",
// "MaxPooling2D" -> "max_pooling2d"), numbered after the first.
std::string UniqueLayerName(const std::string& class_name);

}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_LAYER_H_
