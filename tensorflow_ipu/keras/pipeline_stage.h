// ipu::keras::PipelineStage: assigns the layers called while it is open to
// one pipeline stage of a Functional model, as the vendor's
// `with ipu.keras.PipelineStage(0):`.
//
//   {
//     ipu::keras::PipelineStage stage(0);
//     x = keras::layers::Conv2D(32, {3, 3}, {.activation = "relu"})(input);
//   }
//
// As the vendor's, it must be opened inside an IPUStrategy's scope and not
// inside another PipelineStage; a layer called under a misused
// PipelineStage returns a KerasTensor carrying the error.
#ifndef TENSORFLOW_IPU_KERAS_PIPELINE_STAGE_H_
#define TENSORFLOW_IPU_KERAS_PIPELINE_STAGE_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace ipu {
namespace keras {

class PipelineStage {
 public:
  explicit PipelineStage(int stage);
  ~PipelineStage();
  PipelineStage(const PipelineStage&) = delete;
  PipelineStage& operator=(const PipelineStage&) = delete;

 private:
  friend absl::StatusOr<std::optional<int>> CurrentPipelineStage();
  int stage_;
  absl::Status error_;
  PipelineStage* previous_;
};

// The stage of the innermost open PipelineStage on this thread (nullopt:
// none), or the error of a misused one.
absl::StatusOr<std::optional<int>> CurrentPipelineStage();

}  // namespace keras
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_PIPELINE_STAGE_H_
