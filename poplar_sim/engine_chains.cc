// Engine execution, element-wise chains: consecutive children of a
// Sequence that are element-wise compute sets writing the same tensor (a
// product's partial sums into its output, then the bias added in place,
// then the activation in place) run part by part: every stage on the first
// few kilobytes of the output, then every stage on the next part, and so
// on, instead of one pass over the whole output per compute set. A layer's
// output then stays in the core's first-level cache between its stages.
//
// Values are those of running the compute sets one after another: a stage
// reads the output only at the positions it writes (which the stages
// before it have already written for this part, and the stages after it
// have not yet), and reads nothing else that the chain writes
// (ElementwiseExecutor, execution_context.h; checked here when the chain is
// planned). The clocks and the profile are those of the compute sets run
// one by one too: each stage's step is recorded in program order once the
// host work is done.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "poplar_sim/engine_internal.h"

namespace poplar_sim {
namespace internal {
namespace {

// Bytes of the output each stage works on before the next stage takes the
// same part: a part and the inputs a stage reads for it (two more parts,
// for a sum of two partial products) stay within a 48 KB first-level cache.
constexpr size_t kPartBytes = 8 * 1024;

// The compute set's element-wise executor if it can be a stage of a chain
// (set, with an output of one stride-1 run of at least one element), else
// nullptr.
const ElementwiseExecutor* StageOf(const GraphState& graph, unsigned cs) {
  const ElementwiseExecutor& e = graph.computeSets[cs].elementwise;
  if (!e.run || !e.out.valid() || e.out.runs().size() != 1 ||
      e.out.numElements() == 0) {
    return nullptr;
  }
  return &e;
}

bool SameRun(const ElementRun& a, const ElementRun& b) {
  return a.var == b.var && a.start == b.start && a.count == b.count &&
         (a.stride == b.stride || a.count == 1);
}

// Whether a stage may join a chain writing `out`: it writes the same
// elements, and each tensor it reads is either exactly those elements or
// shares no variable with them.
bool JoinsChain(const ElementwiseExecutor& stage, const ElementRun& out) {
  if (!SameRun(stage.out.runs()[0], out)) return false;
  for (const Tensor& t : stage.reads) {
    if (!t.valid()) return false;
    const std::vector<ElementRun>& runs = t.runs();
    if (runs.size() == 1 && SameRun(runs[0], out)) continue;
    for (const ElementRun& r : runs) {
      if (r.var == out.var) return false;
    }
  }
  return true;
}

}  // namespace

void EngineImpl::planElementwiseChains() {
  // Vertex by vertex, there is no bulk work to interleave.
  if (options.executeVerticesIndividually) return;
  for (CompiledStep& st : steps) {
    if (st.kind != Kind::SEQUENCE || st.children.size() < 2) continue;
    // Children in a lane group run as lanes (engine_lanes.cc), not here.
    std::vector<bool> inLane(st.children.size(), false);
    for (const LaneGroup& g : st.laneGroups) {
      std::fill(inLane.begin() + g.begin, inLane.begin() + g.end, true);
    }
    auto stageAt = [&](size_t i) -> const ElementwiseExecutor* {
      const CompiledStep& c = steps[st.children[i]];
      if (inLane[i] || c.kind != Kind::EXECUTE) return nullptr;
      return StageOf(*graph, c.node->cs.id);
    };
    for (size_t i = 0; i < st.children.size();) {
      const ElementwiseExecutor* first = stageAt(i);
      if (first == nullptr || !JoinsChain(*first, first->out.runs()[0])) {
        ++i;
        continue;
      }
      const ElementRun out = first->out.runs()[0];
      size_t end = i + 1;
      while (end < st.children.size()) {
        const ElementwiseExecutor* next = stageAt(end);
        if (next == nullptr || !JoinsChain(*next, out)) break;
        ++end;
      }
      if (end - i >= 2) {
        ElementwiseChain c;
        c.begin = static_cast<unsigned>(i);
        c.end = static_cast<unsigned>(end);
        for (size_t k = i; k < end; ++k) {
          c.computeSets.push_back(steps[st.children[k]].node->cs.id);
        }
        if (st.chainAt.empty()) st.chainAt.assign(st.children.size(), -1);
        st.chainAt[i] = static_cast<int>(st.chains.size());
        st.chains.push_back(std::move(c));
      }
      i = end;
    }
  }
}

void EngineImpl::runElementwiseChain(ReplicaRun& run, unsigned seq,
                                     const ElementwiseChain& c) {
  absl::InlinedVector<const ElementwiseExecutor*, 4> stages;
  for (unsigned cs : c.computeSets) stages.push_back(&graph->computeSets[cs].elementwise);
  const Tensor& out = stages[0]->out;
  const size_t n = out.numElements();
  const size_t part = std::max<size_t>(kPartBytes / typeSize(out.elementType()), 1);
  EngineContext ctx(*this, *run.memory, run.threads);
  parallelRanges(
      run.threads, n,
      [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; p += part) {
          const size_t q = std::min(end, p + part);
          for (const ElementwiseExecutor* s : stages) s->run(ctx, p, q);
        }
      },
      kElementwiseSplitGrain);
  const std::vector<unsigned>& children = steps[seq].children;
  for (unsigned k = c.begin; k < c.end; ++k) noteExecuted(children[k], run);
}

}  // namespace internal
}  // namespace poplar_sim
