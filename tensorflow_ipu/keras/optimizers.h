// Keras's optimizers, by name ("sgd", "adam", "rmsprop") or configured, with
// Keras's defaults, made into the project's train:: optimizers when a model
// builds its training program.
//
//   model->compile(keras::optimizers::SGD(0.01), "categorical_crossentropy");
//   model->compile("adam", "mse");
#ifndef TENSORFLOW_IPU_KERAS_OPTIMIZERS_H_
#define TENSORFLOW_IPU_KERAS_OPTIMIZERS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/train/optimizer.h"

namespace tensorflow_ipu {
namespace keras {
namespace optimizers {

struct OptimizerConfig {
  std::string name;  // "SGD", "Adam", "RMSprop"
  double learning_rate = 0.01;
  double momentum = 0;       // SGD, RMSprop
  bool nesterov = false;     // SGD
  double beta_1 = 0.9;       // Adam
  double beta_2 = 0.999;     // Adam
  double rho = 0.9;          // RMSprop
  double epsilon = 1e-7;     // Adam, RMSprop
};

// Converts from a name, so compile("sgd", ...) reads as in Python.
class Optimizer {
 public:
  Optimizer(const char* name) : Optimizer(std::string(name)) {}  // NOLINT
  Optimizer(const std::string& name);                             // NOLINT
  Optimizer(OptimizerConfig config) : config_(std::move(config)) {}  // NOLINT
  const OptimizerConfig& config() const { return config_; }
  // InvalidArgument for an unknown name, naming the known ones.
  const absl::Status& status() const { return status_; }
  // A fresh train:: optimizer with this configuration.
  absl::StatusOr<std::unique_ptr<train::Optimizer>> Make() const;

 private:
  OptimizerConfig config_;
  absl::Status status_;
};

Optimizer SGD(double learning_rate = 0.01, double momentum = 0.0, bool nesterov = false);
Optimizer Adam(double learning_rate = 0.001, double beta_1 = 0.9, double beta_2 = 0.999,
               double epsilon = 1e-7);
Optimizer RMSprop(double learning_rate = 0.001, double rho = 0.9, double momentum = 0.0,
                  double epsilon = 1e-7);

}  // namespace optimizers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_OPTIMIZERS_H_
