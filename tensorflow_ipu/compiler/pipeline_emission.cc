#include "tensorflow_ipu/compiler/pipeline_emission.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "poplar_sim/poputil/tile_mapping.h"

namespace tensorflow_ipu {
namespace compiler {

namespace program = poplar_sim::program;

PipelineEmission::PipelineEmission(PipelineTimetable timetable, std::string name)
    : timetable_(timetable), name_(std::move(name)) {
  for (int u = 0; u < timetable_.num_units(); ++u) {
    units_.push_back(program::Sequence({}, absl::StrCat(name_, "/", timetable_.UnitName(u))));
  }
}

poplar_sim::Tensor PipelineEmission::Delayed(const poplar_sim::Tensor& value, int op,
                                             int output, int producer, int consumer,
                                             poplar_sim::Graph& consumer_graph,
                                             const std::string& name) {
  auto it = fifo_of_.find({op, output, consumer});
  if (it != fifo_of_.end()) return fifos_[it->second].buffers.back();
  const int64_t distance = timetable_.Position(consumer) - timetable_.Position(producer);
  const int64_t interval = timetable_.interval();
  Fifo f;
  f.source = value;
  f.producer = producer;
  f.name = name;
  f.distance = distance;
  for (int64_t d = 0; d < (distance + interval - 1) / interval; ++d) {
    poplar_sim::Tensor b = consumer_graph.addVariable(
        value.elementType(), value.shape(), absl::StrCat(name, "/fifo", d));
    poplar_sim::poputil::mapTensorLinearly(
        consumer_graph, b,
        poplar_sim::poputil::defaultMinElementsPerTile(consumer_graph, value.elementType()));
    f.buffers.push_back(b);
  }
  fifos_.push_back(std::move(f));
  fifo_of_[{op, output, consumer}] = static_cast<int>(fifos_.size()) - 1;
  return fifos_.back().buffers.back();
}

void PipelineEmission::AddShifts(int64_t slot, program::Sequence& p,
                                 std::vector<int>* shifted) const {
  // Newest first: a FIFO's source may be an older FIFO's last buffer (a
  // value that came from another IPU and is passed on), which must be read
  // before that FIFO shifts.
  for (int k = static_cast<int>(fifos_.size()) - 1; k >= 0; --k) {
    const Fifo& f = fifos_[k];
    // It shifts in the producer's slots (also after its last micro-batch,
    // as long as a value it made in slots (slot - distance, slot] is on
    // its way).
    if ((slot - timetable_.Position(f.producer)) % timetable_.interval() != 0) continue;
    bool live = false;
    for (int64_t s = slot; s > slot - f.distance && s >= 0 && !live; --s) {
      live = timetable_.MicroBatchAt(f.producer, s) >= 0;
    }
    if (!live) continue;
    shifted->push_back(k);
    for (size_t j = f.buffers.size() - 1; j > 0; --j) {
      p.add(program::Copy(f.buffers[j - 1], f.buffers[j], absl::StrCat(f.name, "/shift")));
    }
    p.add(program::Copy(f.source, f.buffers[0], absl::StrCat(f.name, "/send")));
  }
}

program::Sequence PipelineEmission::Build() const {
  // Consecutive identical steps (the same units and the same FIFO shifts:
  // the steady state) become one Repeat.
  struct Step {
    std::vector<int> signature;  // units run, -1, FIFOs shifted, per slot
    program::Sequence program;
  };
  // One step is interval() slots.
  const int phases = timetable_.interval();
  const int64_t steps = (timetable_.num_slots() + phases - 1) / phases;
  std::vector<Step> laid_out;
  for (int64_t j = 0; j < steps; ++j) {
    Step step;
    for (int p = 0; p < phases; ++p) {
      const int64_t slot = j * phases + p;
      for (int u = 0; u < timetable_.num_units(); ++u) {
        if (timetable_.MicroBatchAt(u, slot) < 0) continue;
        step.signature.push_back(u);
        step.program.add(units_[u]);
      }
      step.signature.push_back(-1);
      std::vector<int> shifted;
      AddShifts(slot, step.program, &shifted);
      step.signature.insert(step.signature.end(), shifted.begin(), shifted.end());
      step.signature.push_back(-1);
    }
    laid_out.push_back(std::move(step));
  }
  program::Sequence run({}, name_);
  for (size_t j = 0; j < laid_out.size();) {
    size_t k = j + 1;
    while (k < laid_out.size() && laid_out[k].signature == laid_out[j].signature) ++k;
    if (k - j == 1) {
      run.add(laid_out[j].program);
    } else {
      run.add(program::Repeat(static_cast<unsigned>(k - j), laid_out[j].program,
                              absl::StrCat(name_, "/steady")));
    }
    j = k;
  }
  return run;
}

}  // namespace compiler
}  // namespace tensorflow_ipu
