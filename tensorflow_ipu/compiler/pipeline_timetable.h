// PipelineTimetable: when each pass of each stage of a pipelined loop runs.
//
// A pipeline (ipu::pipelining_ops::pipeline) of N stages runs M
// micro-batches (its depth, the gradient accumulation count) through
// units: the forward pass of each stage and, when training, the backward
// pass of each, in the schedule order F0 .. F(N-1), B(N-1) .. B0. Time is cut
// into slots; in a slot every unit that has a micro-batch to work on runs
// (units on different IPUs at the same time), and at the end of the slot the
// values move on to the units that need them later. Unit u works on
// micro-batch m in slot interval() * m + Position(u), where Position is s for
// stage s's forward pass and 2N - 1 - s for its backward pass:
//  - Grouped (the default): a micro-batch enters every slot (interval 1), so
//    in the steady state each IPU runs its stage's forward and backward
//    passes in every slot, all IPUs alike; stage s holds the activations of
//    2N - 1 - 2s micro-batches until its backward pass needs them;
//  - Interleaved: a micro-batch enters every other slot (interval 2), so
//    each IPU alternates: a forward pass in one slot, a backward pass in
//    the next, while its neighbours do the opposite. A micro-batch's
//    backward pass comes as soon as its activations exist and stage s
//    holds only N - s of them, but a slot lasts as long as the slowest
//    pass in it, a backward one on some IPU while others run a shorter
//    forward one: usually slower;
//  - Sequential runs like a sharded model and needs no timetable.
// Inference pipelines (no backward pass) have interval 1.
//
// The vendor's depth rule uses overlap(): 2N for Grouped training, N for
// Grouped inference and for Interleaved, 1 for Sequential.
#ifndef TENSORFLOW_IPU_COMPILER_PIPELINE_TIMETABLE_H_
#define TENSORFLOW_IPU_COMPILER_PIPELINE_TIMETABLE_H_

#include <cstdint>
#include <string>

namespace tensorflow_ipu {
namespace compiler {

// The values of the attr kPipelineScheduleAttr (core/ipu_attrs.h), as the
// vendor's PipelineSchedule enum numbers them.
enum class PipelineScheduleKind { kGrouped = 0, kInterleaved = 1, kSequential = 2 };
std::string PipelineScheduleName(PipelineScheduleKind kind);

class PipelineTimetable {
 public:
  PipelineTimetable(PipelineScheduleKind kind, int num_stages, bool training,
                    int64_t depth);

  PipelineScheduleKind kind() const { return kind_; }
  int num_stages() const { return num_stages_; }
  bool training() const { return training_; }
  int64_t depth() const { return depth_; }
  // The vendor's overlap length: the depth must be a multiple of it, and
  // at least it.
  int64_t overlap() const;

  // Units in schedule order: 0 .. N-1 forward, N .. 2N-1 backward (unit N is
  // stage N-1's backward pass).
  int num_units() const { return training_ ? 2 * num_stages_ : num_stages_; }
  int Unit(int stage, bool backward) const {
    return backward ? 2 * num_stages_ - 1 - stage : stage;
  }
  int StageOf(int unit) const {
    return unit < num_stages_ ? unit : 2 * num_stages_ - 1 - unit;
  }
  bool IsBackward(int unit) const { return unit >= num_stages_; }
  // "forward pass of stage 1", for messages and program names.
  std::string UnitName(int unit) const;

  // Slots between two micro-batches entering the pipeline.
  int interval() const { return interval_; }
  // The slot in which `unit` works on micro-batch 0.
  int64_t Position(int unit) const {
    return IsBackward(unit) ? 2 * num_stages_ - 1 - StageOf(unit) : unit;
  }
  int64_t Slot(int unit, int64_t micro_batch) const {
    return interval_ * micro_batch + Position(unit);
  }
  // Slots 0 .. num_slots() - 1 hold the whole pipeline run.
  int64_t num_slots() const;
  // The micro-batch `unit` works on in `slot`, or -1 if none.
  int64_t MicroBatchAt(int unit, int64_t slot) const;

 private:
  PipelineScheduleKind kind_;
  int num_stages_;
  bool training_;
  int64_t depth_;
  int interval_;
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_PIPELINE_TIMETABLE_H_
