// Engine execution, lanes: children of a Sequence that share no memory run
// side by side on the host threads (a pipeline's stages in one slot of its
// schedule, each on its IPU, as the IPUs run them at the same time).
//
// Two children conflict if one writes a variable the other reads or
// writes, or both move records through one host stream. Children that
// must keep their place (prints, cross-replica reductions) run alone;
// between them, each child joins the lane of the earlier children it
// conflicts with (GroupBuilder), and a lane runs its children in program
// order, so every variable sees the accesses it would see on one thread. Compute sets are known by the
// variables their vertices connect, which are all a bulk executor may
// touch (execution_context.h).
//
// The clocks and the profile are not touched by lanes: each lane logs what
// record() and addControl() would do, and the logs are replayed in program
// order, so the simulated cycles and the profile are the same as well.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "poplar_sim/engine_internal.h"
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
  bool touchesNothing() const { return reads.empty() && writes.empty(); }
};

struct DisjointSets {
  explicit DisjointSets(unsigned n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  unsigned find(unsigned x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(unsigned a, unsigned b) { parent[find(a)] = find(b); }
  std::vector<unsigned> parent;
};

// Lanes are formed in one pass over the children: a child joins the lane
// of the children it conflicts with, starts a lane of its own if it
// conflicts with none, and ends the group if it conflicts with two lanes
// (a copy from one stage's output to another's input, at the end of a
// pipeline slot). A group runs as lanes only if its second largest lane
// has at least `minLaneWork` of work (EngineOptions::minLaneWork).
struct GroupBuilder {
  GroupBuilder(const std::vector<const Footprint*>& children, uint64_t minLaneWork)
      : children(children), minLaneWork(minLaneWork), sets(children.size()) {}

  std::vector<LaneGroup> build() {
    const unsigned n = static_cast<unsigned>(children.size());
    begin = 0;
    for (unsigned k = 0; k < n; ++k) {
      const Footprint& c = *children[k];
      if (c.ordered) {
        close(k);
        begin = k + 1;
        continue;
      }
      std::vector<unsigned> roots = conflicts(c);
      if (roots.size() >= 2) {
        close(k);
        begin = k;
        roots.clear();  // a fresh group: nothing before k counts
      }
      for (unsigned r : roots) sets.join(k, r);
      note(c, k);
    }
    close(n);
    return std::move(groups);
  }

 private:
  // The lanes (roots) that child c conflicts with, each once.
  std::vector<unsigned> conflicts(const Footprint& c) {
    std::vector<unsigned> roots;
    auto add = [&](unsigned child) { roots.push_back(sets.find(child)); };
    for (uint32_t v : c.reads) {
      if (auto w = lastWriter.find(v); w != lastWriter.end()) add(w->second);
    }
    for (uint32_t v : c.writes) {
      if (auto w = lastWriter.find(v); w != lastWriter.end()) add(w->second);
      if (auto r = readersSince.find(v); r != readersSince.end()) {
        for (unsigned reader : r->second) add(reader);
      }
    }
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    return roots;
  }
  void note(const Footprint& c, unsigned k) {
    for (uint32_t v : c.reads) readersSince[v].push_back(k);
    for (uint32_t v : c.writes) {
      readersSince.erase(v);
      lastWriter[v] = k;
    }
  }
  // Ends the group of children [begin, end).
  void close(unsigned end) {
    lastWriter.clear();
    readersSince.clear();
    if (end - begin < 2) return;
    LaneGroup g;
    g.begin = begin;
    g.end = end;
    std::vector<uint64_t> work;
    absl::flat_hash_map<unsigned, unsigned> laneOf;  // root -> lane
    std::vector<unsigned> anywhere;                  // children that touch nothing
    for (unsigned k = begin; k < end; ++k) {
      const Footprint& c = *children[k];
      if (c.touchesNothing()) {
        anywhere.push_back(k);
        continue;
      }
      auto [it, added] = laneOf.emplace(sets.find(k), static_cast<unsigned>(g.lanes.size()));
      if (added) {
        g.lanes.emplace_back();
        work.push_back(0);
      }
      g.lanes[it->second].push_back(k);
      work[it->second] += c.work;
    }
    if (g.lanes.size() < 2) return;
    std::sort(work.rbegin(), work.rend());
    if (work[1] < minLaneWork) return;
    // Children that touch no memory only log their cycles: any lane may
    // run them, in its program order.
    std::vector<unsigned>& first = g.lanes[0];
    first.insert(first.end(), anywhere.begin(), anywhere.end());
    std::sort(first.begin(), first.end());
    groups.push_back(std::move(g));
  }

  const std::vector<const Footprint*>& children;
  const uint64_t minLaneWork;
  DisjointSets sets;
  unsigned begin = 0;
  absl::flat_hash_map<uint32_t, unsigned> lastWriter;
  absl::flat_hash_map<uint32_t, std::vector<unsigned>> readersSince;  // the last write
  std::vector<LaneGroup> groups;
};

}  // namespace

void EngineImpl::planLanes() {
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
    st.laneGroups = GroupBuilder(children, options.minLaneWork).build();
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
  threads.run(static_cast<unsigned>(g.lanes.size()), [&](unsigned l) {
    for (unsigned pos : g.lanes[l]) {
      ReplicaRun lane(target.getNumIPUs(), run.replica, run.memory);
      lane.threads = &threads;
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
