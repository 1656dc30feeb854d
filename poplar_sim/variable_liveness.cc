#include "poplar_sim/variable_liveness.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace poplar_sim {
namespace internal {
namespace {

using Kind = program::ProgramNode::Kind;

// What one step does to one variable.
struct StepAccess {
  bool read = false;
  std::vector<std::pair<int64_t, int64_t>> written;  // element intervals
};

// Calls f(var, begin, end) for each contiguous piece of the runs' elements.
template <typename F>
void ForEachPiece(const ElementRun& r, F&& f) {
  if (r.count <= 0) return;
  if (r.count == 1 || r.stride == 1) {
    f(r.var, r.start, r.start + r.count);
  } else if (r.stride == -1) {
    f(r.var, r.at(r.count - 1), r.start + 1);
  } else {
    for (int64_t k = 0; k < r.count; ++k) f(r.var, r.at(k), r.at(k) + 1);
  }
}

class Analysis {
 public:
  explicit Analysis(const GraphState& g) : g_(g), state_(g.variables.size()) {}

  void program(const program::ProgramNode& root, unsigned index) {
    program_ = index;
    walk(root, /*inControl=*/false);
  }

  VariableLifetimes finish() {
    for (const auto& [handle, access] : g_.hostAccess) always(access.tensor);
    VariableLifetimes out;
    out.spans.resize(state_.size());
    for (size_t v = 0; v < state_.size(); ++v) {
      const State& s = state_[v];
      if (!s.accessed || s.always || g_.variables[v].isConstant) continue;
      out.spans[v] = VariableSpan{false, s.first, s.last};
    }
    return out;
  }

 private:
  struct State {
    bool accessed = false;
    bool always = false;
    unsigned program = 0;
    uint32_t first = 0, last = 0;
  };

  void always(const Tensor& t) {
    if (!t.valid()) return;
    for (const ElementRun& r : t.runs()) {
      if (r.var < state_.size()) state_[r.var].always = true;
    }
  }

  void read(const Tensor& t) {
    if (!t.valid()) return;
    for (const ElementRun& r : t.runs()) {
      if (r.count > 0 && r.var < state_.size()) step_[r.var].read = true;
    }
  }

  void write(const Tensor& t) {
    if (!t.valid()) return;
    for (const ElementRun& r : t.runs()) {
      if (r.var >= state_.size()) continue;
      ForEachPiece(r, [&](uint32_t var, int64_t b, int64_t e) {
        step_[var].written.emplace_back(b, e);
      });
    }
  }

  void computeSet(unsigned cs) {
    if (cs >= g_.computeSets.size()) return;
    const VertexStore& vs = g_.vertices;
    for (unsigned v : g_.computeSets[cs].vertices) {
      const VertexTypeInfo& type = vs.typeInfo(vs.typeId(v));
      for (size_t fi = 0; fi < type.fields.size(); ++fi) {
        const FieldDirection d = type.fields[fi].direction;
        if (d == FieldDirection::PARAM) continue;
        const ConnectionView c = vs.connection(v, fi);
        if (!c.connected()) continue;
        c.forEachRun([&](const ElementRun& r) {
          if (r.var >= state_.size() || r.count <= 0) return;
          if (d != FieldDirection::OUTPUT) step_[r.var].read = true;
          if (d != FieldDirection::INPUT) {
            ForEachPiece(r, [&](uint32_t var, int64_t b, int64_t e) {
              step_[var].written.emplace_back(b, e);
            });
          }
        });
      }
    }
  }

  // True if the intervals cover [0, n).
  static bool Covers(std::vector<std::pair<int64_t, int64_t>>& iv, int64_t n) {
    std::sort(iv.begin(), iv.end());
    int64_t covered = 0;
    for (const auto& [b, e] : iv) {
      if (b > covered) return false;
      covered = std::max(covered, e);
    }
    return covered >= n;
  }

  // Records the step just gathered in step_ at the next position.
  void endStep(bool inControl) {
    const uint32_t pos = position_++;
    for (auto& [var, access] : step_) {
      State& s = state_[var];
      if (inControl) s.always = true;
      if (!s.accessed) {
        s.accessed = true;
        s.program = program_;
        s.first = s.last = pos;
        if (access.read || !Covers(access.written, g_.variables[var].numElements)) {
          s.always = true;
        }
      } else {
        if (s.program != program_) s.always = true;
        s.last = pos;
      }
    }
    step_.clear();
  }

  // Pre-order over the program, iteratively (any nesting depth).
  void walk(const program::ProgramNode& root, bool inControl) {
    std::vector<std::pair<const program::ProgramNode*, bool>> stack = {{&root, inControl}};
    while (!stack.empty()) {
      const auto [node, control] = stack.back();
      stack.pop_back();
      const bool childControl = visit(*node, control);
      for (auto c = node->children.rbegin(); c != node->children.rend(); ++c) {
        stack.emplace_back(c->node().get(), childControl);
      }
    }
  }

  // Records what step `n` itself does; returns whether its children run
  // under control flow.
  bool visit(const program::ProgramNode& n, bool inControl) {
    switch (n.kind) {
      case Kind::SEQUENCE:
        return inControl;
      case Kind::EXECUTE:
        if (n.cs.graphId == g_.id) computeSet(n.cs.id);
        endStep(inControl);
        return inControl;
      case Kind::COPY:
      case Kind::CROSS_REPLICA_REDUCE:
        read(n.src);
        write(n.dst);
        endStep(inControl);
        return inControl;
      case Kind::STREAM_TO_DEVICE:
        always(n.dst);
        return inControl;
      case Kind::STREAM_FROM_DEVICE:
        always(n.src);
        return inControl;
      case Kind::PRINT_TENSOR:
        always(n.predicate);
        return inControl;
      case Kind::REPEAT:
      case Kind::REPEAT_WHILE_TRUE:
      case Kind::REPEAT_WHILE_FALSE:
      case Kind::IF:
      case Kind::SWITCH:
        if (n.kind != Kind::REPEAT) always(n.predicate);
        return true;
      case Kind::SYNC:
      case Kind::WRITE_UNDEF:
        return inControl;
    }
    return inControl;
  }

  const GraphState& g_;
  std::vector<State> state_;
  absl::flat_hash_map<uint32_t, StepAccess> step_;
  unsigned program_ = 0;
  uint32_t position_ = 0;
};

}  // namespace

VariableLifetimes analyseVariableLifetimes(
    const GraphState& g, const std::vector<const program::ProgramNode*>& programs) {
  Analysis a(g);
  for (unsigned i = 0; i < programs.size(); ++i) {
    if (programs[i] != nullptr) a.program(*programs[i], i);
  }
  return a.finish();
}

std::vector<uint64_t> peakSharedVariableBytes(const GraphState& g, const VariableLifetimes& l,
                                              unsigned numTiles) {
  // A variable's pieces arrive on their tiles at its first step and leave
  // after its last. The events, two per variable, are put in order by a
  // counting sort on key = 2 * step + (1 if arriving), so that at one step
  // what leaves goes before what arrives (the two may share); the sweep
  // then walks the variable's mapping at each of its events. (Events per
  // piece were hundreds of megabytes for a 100k-node graph of millions of
  // pieces.) The peaks do not depend on the order of the events of one
  // key: arrivals only add, departures only subtract.
  struct Event {
    uint32_t var;
    bool arrive;
  };
  const size_t numVars = std::min(l.spans.size(), g.variables.size());
  uint64_t maxKey = 0;
  size_t numEvents = 0;
  for (size_t v = 0; v < numVars; ++v) {
    if (l.spans[v].alwaysLive) continue;
    maxKey = std::max(maxKey, 2 * (uint64_t{l.spans[v].last} + 1));
    numEvents += 2;
  }
  std::vector<uint32_t> offset(numEvents == 0 ? 1 : maxKey + 2, 0);
  auto keys = [&](size_t v) {
    return std::make_pair(2 * uint64_t{l.spans[v].first} + 1, 2 * (uint64_t{l.spans[v].last} + 1));
  };
  for (size_t v = 0; v < numVars; ++v) {
    if (l.spans[v].alwaysLive) continue;
    const auto [arrive, leave] = keys(v);
    ++offset[arrive + 1];
    ++offset[leave + 1];
  }
  for (size_t k = 1; k < offset.size(); ++k) offset[k] += offset[k - 1];
  std::vector<Event> events(numEvents);
  for (size_t v = 0; v < numVars; ++v) {
    if (l.spans[v].alwaysLive) continue;
    const auto [arrive, leave] = keys(v);
    events[offset[arrive]++] = Event{static_cast<uint32_t>(v), true};
    events[offset[leave]++] = Event{static_cast<uint32_t>(v), false};
  }

  std::vector<uint64_t> peak(numTiles, 0);
  std::vector<int64_t> live(numTiles, 0);
  for (const Event& e : events) {
    const VariableRecord& r = g.variables[e.var];
    const int64_t es = static_cast<int64_t>(typeSize(r.type));
    for (const auto& [begin, endTile] : r.mapping.intervals()) {
      const unsigned tile = endTile.second;
      const int64_t bytes = (endTile.first - begin) * es;
      if (tile >= numTiles || bytes == 0) continue;
      if (e.arrive) {
        live[tile] += bytes;
        peak[tile] = std::max<uint64_t>(peak[tile], static_cast<uint64_t>(live[tile]));
      } else {
        live[tile] -= bytes;
      }
    }
  }
  return peak;
}

std::vector<uint64_t> liveSharedBytesPerStep(const GraphState& g, const VariableLifetimes& l,
                                             unsigned numTiles, uint32_t numSteps) {
  // A difference array: a variable's bytes arrive at its first step and
  // leave after its last.
  std::vector<int64_t> delta(numSteps + 1, 0);
  for (size_t v = 0; v < l.spans.size(); ++v) {
    const VariableSpan& s = l.spans[v];
    if (s.alwaysLive || s.first >= numSteps) continue;
    const VariableRecord& r = g.variables[v];
    const int64_t es = static_cast<int64_t>(typeSize(r.type));
    int64_t bytes = 0;
    for (const auto& [begin, endTile] : r.mapping.intervals()) {
      if (endTile.second < numTiles) bytes += (endTile.first - begin) * es;
    }
    delta[s.first] += bytes;
    delta[std::min<uint32_t>(s.last + 1, numSteps)] -= bytes;
  }
  std::vector<uint64_t> live(numSteps, 0);
  int64_t running = 0;
  for (uint32_t k = 0; k < numSteps; ++k) {
    running += delta[k];
    live[k] = static_cast<uint64_t>(running);
  }
  return live;
}

}  // namespace internal
}  // namespace poplar_sim
