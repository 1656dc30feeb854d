// Engine execution, lanes: children of a Sequence that do not depend on
// each other run side by side on the host threads (a pipeline's stages in
// one slot of its schedule, each on its IPU, as the IPUs run them at the
// same time; the weight gradient and the input gradient of one layer).
//
// Two children conflict if one writes a variable the other reads or
// writes, or both move records through one host stream; the later one then
// waits for the earlier (DagBuilder). Children that must keep their place
// (prints, cross-replica reductions) run alone; between them, a free host
// thread takes the first child in program order whose waits are over
// (LaneThreads::runGraph), so every variable sees the accesses it would
// see on one thread. Compute sets are known by the variables their
// vertices connect, which are all a bulk executor may touch
// (execution_context.h).
//
// The clocks and the profile are not touched by lanes: each child logs what
// record() and addControl() would do, and the logs are replayed in program
// order, so the simulated cycles and the profile are the same as well.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "poplar_sim/engine_internal.h"
#include "poplar_sim/host_handoff.h"
#include "poplar_sim/lane_threads.h"

namespace poplar_sim {
namespace internal {
namespace {

// What a step and its children touch, and about how much work they are.
struct Footprint {
  std::vector<uint32_t> reads;   // variable ids (streams after them)
  std::vector<uint32_t> writes;  // likewise
  bool ordered = false;          // must keep its place in program order
  // About how much host work it is: its compute sets' flops and the
  // elements its copies move, loops unrolled.
  uint64_t work = 0;

  void read(const Tensor& t) {
    for (const ElementRun& r : t.runs()) reads.push_back(r.var);
  }
  void write(const Tensor& t) {
    for (const ElementRun& r : t.runs()) writes.push_back(r.var);
  }
  void add(const Footprint& o) {
    reads.insert(reads.end(), o.reads.begin(), o.reads.end());
    writes.insert(writes.end(), o.writes.begin(), o.writes.end());
    ordered |= o.ordered;
  }
  void tidy() {
    for (auto* v : {&reads, &writes}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
  }
};

// Groups are formed in one pass over the children: each waits for the
// last writer of what it reads or writes and for the readers since then of
// what it writes; a child that must keep its place ends the group. A group
// runs side by side only if what it can overlap, its work beside its
// longest chain of waits, is at least `minLaneWork`
// (EngineOptions::minLaneWork); else its children run one after another.
struct DagBuilder {
  DagBuilder(const std::vector<const Footprint*>& children, uint64_t minLaneWork)
      : children(children), minLaneWork(minLaneWork) {}

  std::vector<LaneGroup> build() {
    const unsigned n = static_cast<unsigned>(children.size());
    for (unsigned k = 0; k < n; ++k) {
      const Footprint& c = *children[k];
      if (c.ordered) {
        close(k);
        begin = k + 1;
        continue;
      }
      std::vector<unsigned> deps;
      for (uint32_t v : c.reads) {
        if (auto w = lastWriter.find(v); w != lastWriter.end()) deps.push_back(w->second);
      }
      for (uint32_t v : c.writes) {
        if (auto w = lastWriter.find(v); w != lastWriter.end()) deps.push_back(w->second);
        if (auto r = readersSince.find(v); r != readersSince.end()) {
          deps.insert(deps.end(), r->second.begin(), r->second.end());
        }
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      waitsFor.push_back(std::move(deps));
      for (uint32_t v : c.reads) readersSince[v].push_back(k);
      for (uint32_t v : c.writes) {
        readersSince.erase(v);
        lastWriter[v] = k;
      }
    }
    close(n);
    return std::move(groups);
  }

 private:
  // Ends the group of children [begin, end).
  void close(unsigned end) {
    lastWriter.clear();
    readersSince.clear();
    std::vector<std::vector<unsigned>> waits = std::move(waitsFor);
    waitsFor.clear();
    if (end - begin < 2) return;
    LaneGroup g;
    g.begin = begin;
    g.end = end;
    g.dependents.resize(end - begin);
    g.numDeps.resize(end - begin);
    // The heaviest chain of waits ending at each child.
    std::vector<uint64_t> chain(end - begin);
    uint64_t total = 0, longest = 0;
    for (unsigned i = 0; i < end - begin; ++i) {
      uint64_t before = 0;
      for (unsigned k : waits[i]) {
        g.dependents[k - begin].push_back(i);
        before = std::max(before, chain[k - begin]);
      }
      g.numDeps[i] = static_cast<unsigned>(waits[i].size());
      chain[i] = before + children[begin + i]->work;
      total += children[begin + i]->work;
      longest = std::max(longest, chain[i]);
    }
    if (total - longest < minLaneWork || total == longest) return;
    groups.push_back(std::move(g));
  }

  const std::vector<const Footprint*>& children;
  const uint64_t minLaneWork;
  unsigned begin = 0;
  // For each child of the open group (by position - begin), the children
  // (by position) it waits for.
  std::vector<std::vector<unsigned>> waitsFor;
  absl::flat_hash_map<uint32_t, unsigned> lastWriter;
  absl::flat_hash_map<uint32_t, std::vector<unsigned>> readersSince;  // the last write
  std::vector<LaneGroup> groups;
};

}  // namespace

void EngineImpl::planLanes() {
  const uint64_t minLaneWork = options.minLaneWork.has_value()
                                   ? *options.minLaneWork
                                   : DefaultMinLaneWork(HostHandOffRoundTripNs());
  std::vector<Footprint> fp(steps.size());
  const uint32_t streamBase = static_cast<uint32_t>(graph->variables.size());
  // Children have larger ids than their parents (compileProgram enters a
  // step before its children).
  for (size_t id = steps.size(); id-- > 0;) {
    CompiledStep& st = steps[id];
    const program::ProgramNode& n = *st.node;
    Footprint& f = fp[id];
    switch (st.kind) {
      case Kind::EXECUTE:
        f.work = std::max<uint64_t>(profile.computeSets[n.cs.id].flops, 1);
        f.reads = computeSetReads_[n.cs.id];
        f.writes = computeSetWrites_[n.cs.id];
        break;
      case Kind::COPY:
        f.work = n.src.numElements();
        f.read(n.src);
        f.write(n.dst);
        break;
      case Kind::STREAM_TO_DEVICE:
        f.write(n.dst);
        f.writes.push_back(streamBase + n.stream.id);
        break;
      case Kind::STREAM_FROM_DEVICE:
        f.read(n.src);
        f.writes.push_back(streamBase + n.stream.id);
        break;
      case Kind::PRINT_TENSOR:
      case Kind::CROSS_REPLICA_REDUCE:
        f.ordered = true;
        break;
      case Kind::IF:
      case Kind::SWITCH:
      case Kind::REPEAT_WHILE_TRUE:
      case Kind::REPEAT_WHILE_FALSE:
        f.read(n.predicate);
        break;
      default:  // Sequence, Repeat, Sync, WriteUndef: no memory of their own
        break;
    }
    uint64_t childWork = 0;
    for (unsigned c : st.children) {
      f.add(fp[c]);
      childWork += fp[c].work;
    }
    f.work += st.kind == Kind::REPEAT ? childWork * n.count : childWork;
    f.tidy();
    if (st.kind != Kind::SEQUENCE || st.children.size() < 2) continue;
    std::vector<const Footprint*> children;
    for (unsigned c : st.children) children.push_back(&fp[c]);
    st.laneGroups = DagBuilder(children, minLaneWork).build();
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
  LaneThreads threads(*run.threads);
  threads.runGraph(g.dependents, g.numDeps, [&](unsigned i) {
    ReplicaRun lane(target.getNumIPUs(), run.replica, run.memory);
    lane.threads = &threads;
    lane.log = &logs[i];
    lane.stack.push_back(ReplicaRun::Frame{children[g.begin + i]});
    outcomes[i] = advance(lane);
    return outcomes[i].ok();  // else the children after it do not start
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
