// Trains the Fashion-MNIST MLP briefly on the host and exports it as a
// SavedModel (mlp_export.h), ready for ipu_saved_model_cli (README.md):
//
//   bazel run //examples/saved_model:export_fashion_mnist_mlp --
//       --export_dir=/tmp/fashion_mnist_mlp/1
//
// The data comes from the Debian package dataset-fashion-mnist.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "examples/fashion_mnist/fashion_mnist_data.h"
#include "examples/saved_model/mlp_export.h"
#include "tensorflow_ipu/core/status_macros.h"

ABSL_FLAG(std::string, export_dir, "", "where to write the SavedModel (must not exist)");
ABSL_FLAG(int64_t, steps, 300, "SGD steps on the training images, in order");
ABSL_FLAG(int64_t, batch_size, 32, "training images per step");
ABSL_FLAG(double, learning_rate, 0.1, "SGD learning rate");
ABSL_FLAG(std::string, data_dir, tensorflow_ipu::examples::kFashionMnistDir,
          "directory of the Fashion-MNIST IDX files");

namespace tensorflow_ipu {
namespace examples {
namespace {

absl::Status Main() {
  const std::string export_dir = absl::GetFlag(FLAGS_export_dir);
  if (export_dir.empty()) {
    return absl::InvalidArgumentError("--export_dir is required: where to write the SavedModel");
  }
  MlpExportOptions options;
  options.steps = absl::GetFlag(FLAGS_steps);
  options.batch_size = absl::GetFlag(FLAGS_batch_size);
  options.learning_rate = absl::GetFlag(FLAGS_learning_rate);
  if (options.steps < 1 || options.batch_size < 1 || options.batch_size > 60000 ||
      options.steps > 60000 / options.batch_size) {
    return absl::InvalidArgumentError(
        "--steps and --batch_size must be at least 1, with steps * batch_size at most the "
        "60000 training images");
  }
  ASSIGN_OR_RETURN(FashionMnist data, LoadFashionMnist(absl::GetFlag(FLAGS_data_dir),
                                                       options.steps * options.batch_size));
  ASSIGN_OR_RETURN(MlpExportReport report, ExportFashionMnistMlp(data, export_dir, options));
  std::printf("trained %lld steps of %lld images: last loss %.4f, test accuracy %.4f\n",
              static_cast<long long>(options.steps), static_cast<long long>(options.batch_size),
              report.final_loss, report.test_accuracy);
  std::printf("SavedModel written to %s\n", export_dir.c_str());
  return absl::OkStatus();
}

}  // namespace
}  // namespace examples
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // Under `bazel run`, relative paths are the user's, not the runfiles'.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr && chdir(wd) != 0) {
    std::fprintf(stderr, "cannot change to the working directory %s\n", wd);
    return 1;
  }
  absl::Status s = tensorflow_ipu::examples::Main();
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
