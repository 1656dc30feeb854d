// poprand: random numbers from a seed (same seed, same numbers).
//
//   Tensor w = poprand::uniform(graph, 42, 0, ref, FLOAT, -0.1, 0.1, prog);
//   Tensor n = poprand::normal(graph, 42, 1, ref, FLOAT, 0.0, 1.0, prog);
//   Tensor d = poprand::dropout(graph, 42, step, x, 0.9, prog);
//
// Element i of a result is a pure function of (seed, seedModifier, i): a
// counter-based generator (SplitMix64 mixing), so the numbers do not depend
// on the tile mapping, the execution mode or the order of vertices. Results
// are mapped like `reference`.
//
// The seed is either a constant of the graph (a uint64_t: the program
// draws the same numbers every time it runs) or, as in Poplar's poprand, a
// tensor read when the program runs (`const Tensor* seed`, 2 x
// UNSIGNED_INT: element 0 the low word, element 1 the high word of the
// 64-bit seed). A program that changes the seed tensor between executions
// (a counter it increments, a value written from the host) draws fresh
// numbers each time, in loops too:
//
//   Tensor seed = graph.addVariable(UNSIGNED_INT, {2}, "seed");
//   graph.setTileMapping(seed, 0);
//   Tensor u = poprand::uniform(graph, &seed, 0, ref, FLOAT, 0, 1, body);
//   popops::addInPlace(graph, seed.slice(0, 1), one, body);
//
// For the same value the tensor form gives exactly the numbers of the
// constant form with seed (high << 32) | low. A missing seed tensor, or one
// that is not 2 UNSIGNED_INT elements, is InvalidArgument recorded on the
// graph (Graph::status) and returned as the result's status().
#ifndef POPLAR_SIM_POPRAND_RANDOM_H_
#define POPLAR_SIM_POPRAND_RANDOM_H_

#include <cstdint>
#include <string>

#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"

namespace poplar_sim {
namespace poprand {

// Uniform in [minVal, maxVal) (float / half).
Tensor uniform(Graph& graph, uint64_t seed, uint32_t seedModifier,
               const Tensor& reference, Type type, double minVal,
               double maxVal, program::Sequence& prog,
               const std::string& debugName = "");
Tensor uniform(Graph& graph, const Tensor* seed, uint32_t seedModifier,
               const Tensor& reference, Type type, double minVal,
               double maxVal, program::Sequence& prog,
               const std::string& debugName = "");
// Normal with the given mean and standard deviation (Box-Muller).
Tensor normal(Graph& graph, uint64_t seed, uint32_t seedModifier,
              const Tensor& reference, Type type, double mean, double stdDev,
              program::Sequence& prog, const std::string& debugName = "");
Tensor normal(Graph& graph, const Tensor* seed, uint32_t seedModifier,
              const Tensor& reference, Type type, double mean, double stdDev,
              program::Sequence& prog, const std::string& debugName = "");
// Normal truncated to mean ± alpha × stdDev: a value beyond is redrawn
// (the first draw is normal()'s value). After kTruncatedNormalDraws
// draws out of range (probability 0.0455^16 for alpha 2) the value is
// uniform in the range, so every value is within it. alpha > 0.
inline constexpr unsigned kTruncatedNormalDraws = 16;
Tensor truncatedNormal(Graph& graph, uint64_t seed, uint32_t seedModifier,
                       const Tensor& reference, Type type, double mean,
                       double stdDev, double alpha, program::Sequence& prog,
                       const std::string& debugName = "");
Tensor truncatedNormal(Graph& graph, const Tensor* seed, uint32_t seedModifier,
                       const Tensor& reference, Type type, double mean,
                       double stdDev, double alpha, program::Sequence& prog,
                       const std::string& debugName = "");
// 1 with probability `prob`, else 0, in `type`.
Tensor bernoulli(Graph& graph, uint64_t seed, uint32_t seedModifier,
                 const Tensor& reference, Type type, double prob,
                 program::Sequence& prog, const std::string& debugName = "");
Tensor bernoulli(Graph& graph, const Tensor* seed, uint32_t seedModifier,
                 const Tensor& reference, Type type, double prob,
                 program::Sequence& prog, const std::string& debugName = "");
// in / keepProbability where kept (probability keepProbability), else 0.
Tensor dropout(Graph& graph, uint64_t seed, uint32_t seedModifier,
               const Tensor& in, double keepProbability,
               program::Sequence& prog, const std::string& debugName = "");
Tensor dropout(Graph& graph, const Tensor* seed, uint32_t seedModifier,
               const Tensor& in, double keepProbability,
               program::Sequence& prog, const std::string& debugName = "");

}  // namespace poprand
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPRAND_RANDOM_H_
