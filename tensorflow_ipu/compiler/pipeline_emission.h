// PipelineEmission: the program of one pipelined loop, built from the
// programs of its units (pipeline_timetable.h).
//
// The emitter lowers each op of the pipeline into its unit's program. A
// value that a unit reads from an earlier unit is d = Position(consumer) -
// Position(producer) slots old when it is read, so it travels through a
// FIFO on the consumer's IPU: at the end of each slot in which the producer
// runs, the FIFO's buffers shift by one and the first takes the producer's
// new value (when the two units are on different IPUs, that copy is the
// inter-IPU transfer, and it is what makes the IPUs wait for each other).
// The FIFO holds ceil(d / interval) buffers: the micro-batches in flight
// between the two units. Build()
// then lays the units out over the slots of one pipeline run: ramp-up,
// the steady state (identical steps, as one Repeat) and ramp-down.
// Because each IPU only waits for another at these copies, units on
// different IPUs run at the same time in the simulator's timeline
// (poplar_sim/ipu_timeline.h): a pipeline run takes about (depth +
// overlap) x the slowest slot, not the sum of the stages.
#ifndef TENSORFLOW_IPU_COMPILER_PIPELINE_EMISSION_H_
#define TENSORFLOW_IPU_COMPILER_PIPELINE_EMISSION_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"
#include "poplar_sim/tensor.h"
#include "tensorflow_ipu/compiler/pipeline_timetable.h"

namespace tensorflow_ipu {
namespace compiler {

class PipelineEmission {
 public:
  PipelineEmission(PipelineTimetable timetable, std::string name);

  const PipelineTimetable& timetable() const { return timetable_; }
  poplar_sim::program::Sequence& unit_program(int unit) { return units_.at(unit); }

  // The tensor through which unit `consumer` reads `value` (output
  // `output` of op `op`) of unit `producer` (an earlier one): the last
  // buffer of the FIFO between them, made on `consumer_graph` the first
  // time, so that one value read twice by one unit has one FIFO.
  poplar_sim::Tensor Delayed(const poplar_sim::Tensor& value, int op, int output, int producer,
                             int consumer, poplar_sim::Graph& consumer_graph,
                             const std::string& name);

  // One run of the pipeline: depth() micro-batches through every unit.
  poplar_sim::program::Sequence Build() const;

 private:
  struct Fifo {
    poplar_sim::Tensor source;
    int producer = 0;
    int64_t distance = 0;  // slots between producing and reading a value
    std::vector<poplar_sim::Tensor> buffers;  // buffers.back() is read
    std::string name;
  };
  // The shifts of every FIFO that holds a value still to be read after
  // `slot`, appended to `p`; `shifted` gets their indices.
  void AddShifts(int64_t slot, poplar_sim::program::Sequence& p,
                 std::vector<int>* shifted) const;

  PipelineTimetable timetable_;
  std::string name_;
  std::vector<poplar_sim::program::Sequence> units_;
  std::vector<Fifo> fifos_;
  std::map<std::tuple<int, int, int>, int> fifo_of_;  // (op, output, consumer) -> FIFO
};

}  // namespace compiler
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_COMPILER_PIPELINE_EMISSION_H_
