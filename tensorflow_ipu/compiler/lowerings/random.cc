// Lowerings of TensorFlow's stateful random ops: RandomUniform,
// RandomStandardNormal and TruncatedNormal.
//
// TensorFlow's stateful random ops continue their stream each time they
// run. On the IPU each op owns an execution counter, device state that
// lives as long as the engine (EmissionState::AddExecutionCounter, 0 in a
// new engine). Where the op is emitted (the main program, a loop's body, a
// pipeline unit's program, the update phase) it draws with poprand's
// runtime seed [counter, replica index] and then increments the counter, so
// every execution draws fresh numbers: every Run of the cluster, every
// iteration of an on-device loop, every micro-batch of a pipeline; and each
// replica its own numbers.
//
// The op's seed attrs choose its stream (poprand's seedModifier): with seed
// or seed2 set, a hash of the two, so the same graph gives the same numbers
// in every fresh session; with both 0, a process-wide fresh value, so
// unseeded ops (of one graph or of several) draw different streams, as the
// CPU kernel does. The values differ from the CPU kernel's: the IPU has its
// own generator (poplar_sim/poprand/random.h).
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/poprand/random.h"
#include "poplar_sim/tensor.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

uint64_t Mix(uint64_t z) {  // SplitMix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Different for every op lowered in this process (and for the same op
// compiled again), whatever its name.
uint64_t FreshSeed() {
  static std::atomic<uint64_t> next{0x2545F4914F6CDD1DULL};
  return next.fetch_add(0x9E3779B97F4A7C15ULL);
}

// The op's stream: a function of its seed attrs when either is set.
absl::StatusOr<uint32_t> StreamOf(const LoweringContext& ctx) {
  ASSIGN_OR_RETURN(int64_t seed, ctx.GetAttr<int64_t>("seed"));
  ASSIGN_OR_RETURN(int64_t seed2, ctx.GetAttr<int64_t>("seed2"));
  uint64_t h;
  if (seed == 0 && seed2 == 0) {
    h = Mix(FreshSeed() ^ std::hash<std::string>()(ctx.op().name()));
  } else {
    h = Mix(Mix(static_cast<uint64_t>(seed)) ^ static_cast<uint64_t>(seed2));
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The runtime seed of one execution: [this op's execution count, the
// replica's index], on one tile; and the program's increment of the count
// after the draw, so the next execution draws other numbers.
struct ExecutionSeed {
  poplar_sim::Tensor seed;
  poplar_sim::Tensor counter;
};

ExecutionSeed MakeSeed(const LoweringContext& ctx) {
  poplar_sim::Graph& graph = ctx.graph();
  const std::string& name = ctx.op().name();
  poplar_sim::Tensor counter = ctx.cluster().AddExecutionCounter(graph, name + "/count");
  poplar_sim::Tensor replica =
      graph.addReplicationIndexConstant(name + "/replica").reshape({1});
  graph.setTileMapping(replica, graph.getTileMapping(counter));
  return {poplar_sim::concat({counter, replica}, 0), counter};
}

void Increment(const LoweringContext& ctx, const poplar_sim::Tensor& counter) {
  poplar_sim::Graph& graph = ctx.graph();
  poplar_sim::Tensor one = graph.addConstant<uint32_t>(poplar_sim::UNSIGNED_INT, {1}, 1u,
                                                       ctx.op().name() + "/one");
  graph.setTileMapping(one, graph.getTileMapping(counter));
  poplar_sim::popops::addInPlace(graph, counter, one, ctx.prog(), ctx.op().name() + "/count");
}

LoweringFn Random(Distribution dist) {
  return [dist](LoweringContext& ctx) -> absl::Status {
    const DataType dtype = ctx.output_type(0);
    if (dtype != DT_FLOAT && dtype != DT_HALF) {
      return ctx.Unimplemented(absl::StrCat("the IPU draws float and half random numbers, not ",
                                            DataTypeString(dtype)));
    }
    ASSIGN_OR_RETURN(poplar_sim::Type type, ToPoplarType(dtype));
    ASSIGN_OR_RETURN(uint32_t stream, StreamOf(ctx));
    // The layout of the result: spread over the tiles like any new tensor.
    poplar_sim::Tensor layout =
        ctx.AddMappedVariable(type, ctx.OutputDims(0), ctx.op().name() + "/layout");
    ExecutionSeed seed = MakeSeed(ctx);
    poplar_sim::Graph& graph = ctx.graph();
    const std::string& name = ctx.op().name();
    poplar_sim::Tensor out;
    switch (dist) {
      case Distribution::kUniform:
        out = poplar_sim::poprand::uniform(graph, &seed.seed, stream, layout, type, 0, 1,
                                           ctx.prog(), name);
        break;
      case Distribution::kNormal:
        out = poplar_sim::poprand::normal(graph, &seed.seed, stream, layout, type, 0, 1,
                                          ctx.prog(), name);
        break;
      case Distribution::kTruncatedNormal:
        // TensorFlow redraws values more than two deviations from the mean.
        out = poplar_sim::poprand::truncatedNormal(graph, &seed.seed, stream, layout, type, 0,
                                                   1, 2, ctx.prog(), name);
        break;
    }
    if (!out.valid()) return ctx.Error(out.status().message());
    Increment(ctx, seed.counter);
    ctx.SetOutput(0, out);
    return absl::OkStatus();
  };
}

REGISTER_IPU_LOWERING("RandomUniform", Random(Distribution::kUniform));
REGISTER_IPU_LOWERING("RandomStandardNormal", Random(Distribution::kNormal));
REGISTER_IPU_LOWERING("TruncatedNormal", Random(Distribution::kTruncatedNormal));

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
