// popops reductions over dimensions of a tensor.
//
//   Tensor s = popops::reduceSum(graph, x, {0}, prog);   // [b, n] -> [n]
//   Tensor m = popops::reduce(graph, x, {0, 1}, {popops::Operation::MAX}, prog);
//
// The output (the kept dimensions, in order; a scalar if none) is mapped
// linearly. Rows of at most kMaxPartialLength elements are reduced in one
// compute set, each output element on the tile that holds it. Longer rows
// are reduced as the IPU does: a first compute set forms partials of at most
// kMaxPartialLength consecutive elements each (about one worker's share of
// the whole reduction), on the tile that holds the partial's first input;
// further compute sets reduce the partials across tiles the same way until a
// row fits one stage. No accumulator ever sums more than kMaxPartialLength
// values, so a float Sum of 2^30 elements stays within float rounding of the
// exact sum (one accumulator would stop growing at 2^24). Half inputs keep
// their partials in float. Every stage is costed as the compute set it is
// (docs/poplar_sim.md).
#ifndef POPLAR_SIM_POPOPS_REDUCE_H_
#define POPLAR_SIM_POPOPS_REDUCE_H_

#include <string>
#include <vector>

#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"

namespace poplar_sim {
namespace popops {

// The longest run of values one accumulator sums (a worker's partial), and
// the shortest partial a long row is cut into.
inline constexpr size_t kMaxPartialLength = 2048;
inline constexpr size_t kMinPartialLength = 256;

enum class Operation { ADD, MUL, MAX, MIN };

struct ReduceParams {
  ReduceParams(Operation op = Operation::ADD, float scale = 1.0f)  // NOLINT
      : op(op), scale(scale) {}
  Operation op;
  float scale;  // the result is multiplied by this (ADD only)
};

Tensor reduce(Graph& graph, const Tensor& in, const std::vector<size_t>& dims,
              ReduceParams params, program::Sequence& prog,
              const std::string& debugName = "");
Tensor reduceSum(Graph& graph, const Tensor& in, const std::vector<size_t>& dims,
                 program::Sequence& prog, const std::string& debugName = "");
Tensor reduceMax(Graph& graph, const Tensor& in, const std::vector<size_t>& dims,
                 program::Sequence& prog, const std::string& debugName = "");
Tensor reduceMin(Graph& graph, const Tensor& in, const std::vector<size_t>& dims,
                 program::Sequence& prog, const std::string& debugName = "");
// The sum divided by the number of reduced elements (floating point only).
Tensor reduceMean(Graph& graph, const Tensor& in,
                  const std::vector<size_t>& dims, program::Sequence& prog,
                  const std::string& debugName = "");

}  // namespace popops
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPOPS_REDUCE_H_
