// Trains the Fashion-MNIST MLP of examples/fashion_mnist (784-256-128-10)
// briefly on the host CPU and exports it as a SavedModel for serving, as a
// TensorFlow 1 user would with tf.saved_model.builder.SavedModelBuilder:
//
//   MlpExportOptions options;
//   options.steps = 300;
//   ASSIGN_OR_RETURN(MlpExportReport report,
//                    ExportFashionMnistMlp(data, "/tmp/fashion_mnist_mlp/1", options));
//
// The SavedModel has the tag "serve" and the signature "serving_default":
// input "image" (float [-1, 784], pixels in [0, 1]) and output
// "probabilities" (float [-1, 10], the softmax of the logits). Training
// is plain SGD over the training images in order, from the seeded
// initial weights, so the same options give the same model every time.
#ifndef EXAMPLES_SAVED_MODEL_MLP_EXPORT_H_
#define EXAMPLES_SAVED_MODEL_MLP_EXPORT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "examples/fashion_mnist/fashion_mnist_data.h"

namespace tensorflow_ipu {
namespace examples {

struct MlpExportOptions {
  int64_t steps = 300;  // SGD steps, each on the next batch
  int64_t batch_size = 32;
  double learning_rate = 0.1;
  int64_t seed = 1;  // of the initial weights
};

struct MlpExportReport {
  double final_loss = 0;     // the mean loss of the last step's batch
  double test_accuracy = 0;  // on data.test, in [0, 1]
};

// Trains on `data.train` (at least steps * batch_size images are needed,
// else InvalidArgument), measures accuracy on `data.test` and writes the
// SavedModel to `export_dir` (which must not exist or be empty, as
// SavedModelBuilder requires).
absl::StatusOr<MlpExportReport> ExportFashionMnistMlp(const FashionMnist& data,
                                                      const std::string& export_dir,
                                                      const MlpExportOptions& options);

}  // namespace examples
}  // namespace tensorflow_ipu

#endif  // EXAMPLES_SAVED_MODEL_MLP_EXPORT_H_
