// Engine execution, lanes: the children of a Sequence that work on
// different IPUs run side by side on the host threads, as the IPUs run
// them at the same time (a pipeline's stages in one slot of its schedule).
//
// A child may join a lane group if everything it touches is on one IPU:
// compute sets whose vertices (and so their bulk executors) use that IPU's
// tensors, copies within it, streams to or from it that no other lane's
// child uses, predicates on it. Copies between IPUs, prints and
// cross-replica reductions keep program order. Each lane runs its children
// in program order; children of different lanes share no memory, so the
// values are those of running the children one after another. The clocks
// and the profile are not touched by lanes: each lane logs what record()
// and addControl() would do, and the logs are replayed in program order,
// so the simulated cycles and the profile are the same as well.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "poplar_sim/cost_model.h"
#include "poplar_sim/engine_internal.h"

namespace poplar_sim {
namespace internal {
namespace {

// What a step and its children touch.
struct Footprint {
  uint64_t ipus = 0;              // bit i: the memory of IPU i
  std::vector<unsigned> streams;  // stream ids
  bool ordered = false;           // must keep its place in program order

  void add(const std::vector<unsigned>& ipuList) {
    for (unsigned i : ipuList) {
      if (i >= 64) {
        ordered = true;  // beyond the mask: not worth a lane
      } else {
        ipus |= uint64_t{1} << i;
      }
    }
  }
  void add(const Footprint& o) {
    ipus |= o.ipus;
    streams.insert(streams.end(), o.streams.begin(), o.streams.end());
    ordered |= o.ordered;
  }
};

// The one IPU of `mask`, -1 for none, -2 for several.
int SoleIPU(uint64_t mask) {
  if (mask == 0) return -1;
  if ((mask & (mask - 1)) != 0) return -2;
  return __builtin_ctzll(mask);
}

// The lane groups of a Sequence's children, given their footprints.
std::vector<LaneGroup> GroupChildren(const std::vector<const Footprint*>& children) {
  std::vector<LaneGroup> groups;
  const unsigned n = static_cast<unsigned>(children.size());
  unsigned i = 0;
  while (i < n) {
    std::map<int, unsigned> laneOf;       // IPU -> lane
    std::map<unsigned, int> streamOwner;  // stream -> IPU
    std::vector<unsigned> anywhere;       // children that touch no memory
    LaneGroup g;
    g.begin = i;
    unsigned j = i;
    for (; j < n; ++j) {
      const Footprint& c = *children[j];
      const int ipu = SoleIPU(c.ipus);
      if (c.ordered || ipu == -2) break;
      bool clash = false;
      for (unsigned s : c.streams) {
        auto it = streamOwner.find(s);
        clash |= it != streamOwner.end() && it->second != ipu;
      }
      if (clash) break;
      for (unsigned s : c.streams) streamOwner[s] = ipu;
      if (ipu == -1) {
        anywhere.push_back(j);
        continue;
      }
      auto [it, added] = laneOf.emplace(ipu, static_cast<unsigned>(g.lanes.size()));
      if (added) g.lanes.emplace_back();
      g.lanes[it->second].push_back(j);
    }
    g.end = j;
    if (g.lanes.size() >= 2) {
      // Children without memory effects only log their cycles: any lane
      // may run them, in its program order.
      std::vector<unsigned>& first = g.lanes[0];
      first.insert(first.end(), anywhere.begin(), anywhere.end());
      std::sort(first.begin(), first.end());
      groups.push_back(std::move(g));
    }
    i = j > i ? j : i + 1;
  }
  return groups;
}

}  // namespace

void EngineImpl::planLanes() {
  std::vector<Footprint> fp(steps.size());
  // Children have larger ids than their parents (compileProgram enters a
  // step before its children).
  for (size_t id = steps.size(); id-- > 0;) {
    CompiledStep& st = steps[id];
    const program::ProgramNode& n = *st.node;
    Footprint& f = fp[id];
    switch (st.kind) {
      case Kind::EXECUTE:
        f.add(computeSetIPUs_[n.cs.id]);
        break;
      case Kind::COPY:
        f.add(profile.steps[id].ipus);
        break;
      case Kind::STREAM_TO_DEVICE:
      case Kind::STREAM_FROM_DEVICE:
        f.add(profile.steps[id].ipus);
        f.streams.push_back(n.stream.id);
        break;
      case Kind::PRINT_TENSOR:
      case Kind::CROSS_REPLICA_REDUCE:
        f.ordered = true;
        break;
      case Kind::IF:
      case Kind::SWITCH:
      case Kind::REPEAT_WHILE_TRUE:
      case Kind::REPEAT_WHILE_FALSE:
        f.add(tensorIPUs(*graph, target, n.predicate));
        break;
      default:  // Sequence, Repeat, Sync, WriteUndef: no memory of their own
        break;
    }
    for (unsigned c : st.children) f.add(fp[c]);
    if (st.kind != Kind::SEQUENCE || st.children.size() < 2) continue;
    std::vector<const Footprint*> children;
    for (unsigned c : st.children) children.push_back(&fp[c]);
    st.laneGroups = GroupChildren(children);
    if (st.laneGroups.empty()) continue;
    st.laneGroupAt.assign(st.children.size(), -1);
    for (size_t g = 0; g < st.laneGroups.size(); ++g) {
      st.laneGroupAt[st.laneGroups[g].begin] = static_cast<int>(g);
    }
  }
}

absl::Status EngineImpl::runLanes(ReplicaRun& run, unsigned seq, const LaneGroup& g) {
  const std::vector<unsigned>& children = steps[seq].children;
  const unsigned n = g.end - g.begin;
  std::vector<std::vector<LaneEvent>> logs(n);
  std::vector<absl::Status> outcomes(n);
  run.threads->parallelFor(static_cast<unsigned>(g.lanes.size()), [&](unsigned l) {
    for (unsigned pos : g.lanes[l]) {
      ReplicaRun lane(target.getNumIPUs(), run.replica, run.memory);
      lane.log = &logs[pos - g.begin];
      lane.stack.push_back(ReplicaRun::Frame{children[pos]});
      outcomes[pos - g.begin] = advance(lane);
      if (!outcomes[pos - g.begin].ok()) return;  // as a serial run would stop
    }
  });
  // In program order, up to the first child that failed: what a serial run
  // would have recorded before its error.
  for (unsigned i = 0; i < n; ++i) {
    replay(logs[i], run);
    if (!outcomes[i].ok()) return outcomes[i];
  }
  return absl::OkStatus();
}

void EngineImpl::replay(const std::vector<LaneEvent>& events, ReplicaRun& run) {
  const bool profiled = run.replica == 0;
  std::vector<uint64_t> starts;
  for (const LaneEvent& e : events) {
    switch (e.kind) {
      case LaneEvent::Kind::ENTER:
        starts.push_back(profile.clockCycles);
        break;
      case LaneEvent::Kind::FINISH:
        if (profiled) {
          StepProfile& sp = profile.steps[e.id];
          ++sp.executions;
          sp.totalCycles += profile.clockCycles - starts.back();
        }
        starts.pop_back();
        break;
      case LaneEvent::Kind::RECORD: {
        const CompiledStep& st = steps[e.id];
        record(e.id, st.cost, run);
        if (profiled && st.kind == Kind::EXECUTE) {
          ++profile.computeSets[st.node->cs.id].executions;
          profile.computeSets[st.node->cs.id].totalCycles += st.cost.cycles();
        }
        break;
      }
      case LaneEvent::Kind::CONTROL:
        addControl(e.id, run);
        break;
    }
  }
}

}  // namespace internal
}  // namespace poplar_sim
