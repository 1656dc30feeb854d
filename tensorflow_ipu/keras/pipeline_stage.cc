#include "tensorflow_ipu/keras/pipeline_stage.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/ipu/ipu_strategy.h"

namespace tensorflow_ipu {
namespace ipu {
namespace keras {
namespace {
thread_local PipelineStage* current_stage = nullptr;
}  // namespace

PipelineStage::PipelineStage(int stage) : stage_(stage), previous_(current_stage) {
  if (ipu_strategy::get_strategy() == nullptr) {
    error_ = absl::FailedPreconditionError(
        "A `PipelineStage` can only be used inside an `IPUStrategy` scope; "
        "open `strategy.scope()` before it");
  } else if (previous_ != nullptr) {
    error_ = absl::FailedPreconditionError(absl::StrCat(
        "Pipeline stages must not be nested: PipelineStage(", stage,
        ") was opened inside PipelineStage(", previous_->stage_, ")"));
  } else if (stage < 0) {
    error_ = absl::InvalidArgumentError(
        absl::StrCat("A pipeline stage must be at least 0, not ", stage));
  }
  current_stage = this;
}

PipelineStage::~PipelineStage() { current_stage = previous_; }

absl::StatusOr<std::optional<int>> CurrentPipelineStage() {
  if (current_stage == nullptr) return std::optional<int>();
  if (!current_stage->error_.ok()) return current_stage->error_;
  return std::optional<int>(current_stage->stage_);
}

}  // namespace keras
}  // namespace ipu
}  // namespace tensorflow_ipu
