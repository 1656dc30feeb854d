#include "tensorflow_ipu/compiler/pipeline_timetable.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace compiler {

std::string PipelineScheduleName(PipelineScheduleKind kind) {
  switch (kind) {
    case PipelineScheduleKind::kGrouped: return "Grouped";
    case PipelineScheduleKind::kInterleaved: return "Interleaved";
    case PipelineScheduleKind::kSequential: return "Sequential";
  }
  return "unknown";
}

PipelineTimetable::PipelineTimetable(PipelineScheduleKind kind, int num_stages,
                                     bool training, int64_t depth)
    : kind_(kind),
      num_stages_(num_stages),
      training_(training),
      depth_(depth),
      interval_(kind == PipelineScheduleKind::kInterleaved && training ? 2 : 1) {}

int64_t PipelineTimetable::overlap() const {
  switch (kind_) {
    case PipelineScheduleKind::kGrouped:
      return training_ ? 2 * num_stages_ : num_stages_;
    case PipelineScheduleKind::kInterleaved:
      return num_stages_;
    case PipelineScheduleKind::kSequential:
      return 1;
  }
  return 1;
}

std::string PipelineTimetable::UnitName(int unit) const {
  return absl::StrCat(IsBackward(unit) ? "backward" : "forward", " pass of stage ",
                      StageOf(unit));
}

int64_t PipelineTimetable::num_slots() const {
  int64_t last = 0;
  for (int u = 0; u < num_units(); ++u) last = std::max(last, Slot(u, depth_ - 1));
  return last + 1;
}

int64_t PipelineTimetable::MicroBatchAt(int unit, int64_t slot) const {
  const int64_t offset = slot - Position(unit);
  if (offset < 0 || offset % interval_ != 0) return -1;
  const int64_t m = offset / interval_;
  return m < depth_ ? m : -1;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
