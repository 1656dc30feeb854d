// Engine execution: runs compiled programs functionally and adds up the
// static cost of every step executed.
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "poplar_sim/cost_model.h"
#include "poplar_sim/engine_internal.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/lane_threads.h"
#include "poplar_sim/status_macros.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace internal {
namespace {

constexpr size_t kMaxRunsInProfile = 10000;

// Steps with children, whose frames advance() resumes.
bool IsControl(Kind k) {
  return k == Kind::SEQUENCE || k == Kind::REPEAT || k == Kind::REPEAT_WHILE_TRUE ||
         k == Kind::REPEAT_WHILE_FALSE || k == Kind::IF || k == Kind::SWITCH;
}

template <size_t kSize>
void GatherRun(const char* base, const ElementRun& r, char*& out) {
  if (r.stride == 1) {
    std::memcpy(out, base + r.start * kSize, r.count * kSize);
    out += r.count * kSize;
    return;
  }
  if (r.stride == 0 && r.count > 0) {
    // One element repeated (a broadcast zero filling an accumulator): copy
    // it once, then double what is filled.
    std::memcpy(out, base + r.start * kSize, kSize);
    const size_t total = static_cast<size_t>(r.count) * kSize;
    for (size_t filled = kSize; filled < total;) {
      const size_t n = std::min(filled, total - filled);
      std::memcpy(out + filled, out, n);
      filled += n;
    }
    out += total;
    return;
  }
  for (int64_t k = 0; k < r.count; ++k) {
    std::memcpy(out, base + r.at(k) * kSize, kSize);
    out += kSize;
  }
}

template <size_t kSize>
void ScatterRun(char* base, const ElementRun& r, const char*& in) {
  if (r.stride == 1) {
    std::memcpy(base + r.start * kSize, in, r.count * kSize);
    in += r.count * kSize;
    return;
  }
  for (int64_t k = 0; k < r.count; ++k) {
    std::memcpy(base + r.at(k) * kSize, in, kSize);
    in += kSize;
  }
}

// Copies run `r` of variable data `base` (elements of `es` bytes) to `out`.
void GatherAnyRun(const char* base, size_t es, const ElementRun& r, char*& out) {
  switch (es) {
    case 1: GatherRun<1>(base, r, out); break;
    case 2: GatherRun<2>(base, r, out); break;
    case 4: GatherRun<4>(base, r, out); break;
    default: GatherRun<8>(base, r, out); break;
  }
}

// Copies `in` into run `r` of variable data `base`.
void ScatterAnyRun(char* base, size_t es, const ElementRun& r, const char*& in) {
  switch (es) {
    case 1: ScatterRun<1>(base, r, in); break;
    case 2: ScatterRun<2>(base, r, in); break;
    case 4: ScatterRun<4>(base, r, in); break;
    default: ScatterRun<8>(base, r, in); break;
  }
}


// Prints `n` elements of type `t` with nested brackets for `shape`.
void PrintValues(std::ostream& os, Type t, const char* data,
                 const std::vector<size_t>& shape, size_t dim, size_t& i) {
  if (dim == shape.size()) {
    const double v = loadAsDouble(t, data, i++);
    if (isFloatingPoint(t)) {
      os << std::fixed << std::setprecision(7) << v;
      os.unsetf(std::ios::floatfield);
    } else {
      os << static_cast<int64_t>(v);
    }
    return;
  }
  os << "[";
  for (size_t k = 0; k < shape[dim]; ++k) {
    if (k) os << (dim + 1 == shape.size() ? " " : ",\n ");
    PrintValues(os, t, data, shape, dim + 1, i);
  }
  os << "]";
}

}  // namespace

void EngineImpl::gather(const ReplicaMemory& mem, const Tensor& t, void* dst) const {
  const size_t es = typeSize(t.elementType());
  char* out = static_cast<char*>(dst);
  for (const ElementRun& r : t.runs()) GatherAnyRun(mem.base[r.var], es, r, out);
}

void EngineImpl::scatter(ReplicaMemory& mem, const Tensor& t, const void* src) const {
  const size_t es = typeSize(t.elementType());
  const char* in = static_cast<const char*>(src);
  // Host data may hold any byte where a bool goes (a stream record, a
  // writeTensor): device memory holds only 0 and 1, so that every later
  // read of it as a C++ bool is defined.
  std::unique_ptr<char[]> normalised;
  if (t.elementType() == BOOL) {
    const size_t n = t.numElements();
    normalised.reset(new char[std::max<size_t>(n, 1)]);
    for (size_t i = 0; i < n; ++i) normalised[i] = in[i] != 0;
    in = normalised.get();
  }
  for (const ElementRun& r : t.runs()) ScatterAnyRun(mem.base[r.var], es, r, in);
}

void* EngineImpl::contiguous(ReplicaMemory& mem, const Tensor& t) const {
  if (t.runs().empty()) return mem.base.empty() ? nullptr : mem.base[0];
  if (!t.isContiguous()) return nullptr;
  const ElementRun& r = t.runs()[0];
  return mem.base[r.var] + r.start * typeSize(t.elementType());
}

void EngineImpl::record(unsigned id, const StepCost& c, ReplicaRun& run) {
  if (run.log) {  // a lane's leaves cost their compiled cost
    run.log->push_back(LaneEvent{LaneEvent::Kind::RECORD, id});
    return;
  }
  const uint64_t start = run.timeline.occupy(profile.steps[id].ipus, c);
  if (run.replica != 0) return;
  const uint64_t cycles = c.cycles();
  StepProfile& sp = profile.steps[id];
  ++sp.executions;
  sp.totalCycles += cycles;
  if (cycles > 0 && !profile.steps[id].ipus.empty()) {
    if (profile.trace.size() < profile.maxTraceEvents) {
      profile.trace.push_back(TraceEvent{id, runStartClock + start, cycles});
    } else {
      ++profile.droppedTraceEvents;
    }
  }
  profile.clockCycles = runStartClock + run.timeline.elapsed();
}

void EngineImpl::addControl(unsigned id, ReplicaRun& run) {
  if (run.log) {
    run.log->push_back(LaneEvent{LaneEvent::Kind::CONTROL, id});
    return;
  }
  const CompiledStep& st = steps[id];
  if (st.kind == Kind::REPEAT) {
    run.timeline.addToEach(st.cost);
  } else {
    run.timeline.occupy({}, st.cost);
  }
  if (run.replica == 0) profile.clockCycles = runStartClock + run.timeline.elapsed();
}

absl::Status EngineImpl::executeVertices(unsigned cs, ReplicaMemory& mem) {
  const ComputeSetRecord& rec = graph->computeSets[cs];
  const VertexStore& vs = graph->vertices;
  struct Bound {
    std::unique_ptr<Vertex> vertex;
    std::vector<std::unique_ptr<char[]>> buffers;
    // (buffer index, field index) of each Output / InOut field.
    std::vector<std::pair<size_t, size_t>> writes;
  };
  std::vector<Bound> bound(rec.vertices.size());
  // Bulk-synchronous: every vertex reads its inputs before any writes.
  for (size_t i = 0; i < rec.vertices.size(); ++i) {
    const unsigned v = rec.vertices[i];
    Bound& b = bound[i];
    b.vertex = (*VertexRegistry::global().find(vs.typeInfo(vs.typeId(v)).name))();
    const std::vector<FieldBase*>& fields = b.vertex->fields();
    for (size_t fi = 0; fi < fields.size(); ++fi) {
      FieldBase* f = fields[fi];
      if (f->direction() == FieldDirection::PARAM) {
        b.buffers.emplace_back(new char[8]());
        storeFromDouble(f->type(), b.buffers.back().get(), 0, *vs.param(v, fi));
        f->bind(b.buffers.back().get(), 1);
        continue;
      }
      const ConnectionView t = vs.connection(v, fi);
      const size_t n = t.numElements();
      const size_t es = typeSize(t.elementType());
      b.buffers.emplace_back(new char[std::max<size_t>(1, n * es)]());
      char* buf = b.buffers.back().get();
      if (f->direction() != FieldDirection::OUTPUT) {
        char* out = buf;
        t.forEachRun([&](const ElementRun& r) {
          GatherAnyRun(mem.base[r.var], es, r, out);
        });
      }
      f->bind(buf, n, options.checkVertexFields);
      if (f->direction() != FieldDirection::INPUT) {
        b.writes.emplace_back(b.buffers.size() - 1, fi);
      }
    }
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    const bool ok = bound[i].vertex->compute();
    // Checked mode: an index past a field is reported before anything is
    // written back (the outputs were computed from scratch values).
    if (const auto& bad = bound[i].vertex->outOfRangeAccess()) {
      return absl::OutOfRangeError(absl::StrCat(
          describeVertex(*graph, rec.vertices[i]), ": field '", bad->field,
          "' was indexed at ", bad->index, " but holds ", bad->size,
          " element(s) (found by debug.checkVertexFields); the codelet must "
          "index each field within its own size()"));
    }
    if (!ok) {
      return absl::InternalError(absl::StrCat(
          describeVertex(*graph, rec.vertices[i]), ": compute() returned false"));
    }
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    for (const auto& [buffer, fi] : bound[i].writes) {
      const ConnectionView t = vs.connection(rec.vertices[i], fi);
      const size_t es = typeSize(t.elementType());
      const char* in = bound[i].buffers[buffer].get();
      t.forEachRun([&](const ElementRun& r) {
        ScatterAnyRun(mem.base[r.var], es, r, in);
      });
    }
  }
  return absl::OkStatus();
}

absl::Status EngineImpl::executeComputeSet(unsigned cs, ReplicaRun& run) {
  const ComputeSetRecord& rec = graph->computeSets[cs];
  if (rec.bulk && !options.executeVerticesIndividually) {
    EngineContext ctx(*this, *run.memory, run.threads);
    absl::Status s = rec.bulk(ctx);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("Compute set '", rec.name,
                                                 "': ", s.message()));
    }
    return absl::OkStatus();
  }
  return executeVertices(cs, *run.memory);
}

void EngineImpl::noteExecuted(unsigned id, ReplicaRun& run) {
  const CompiledStep& st = steps[id];
  record(id, st.cost, run);
  if (run.replica == 0 && !run.log) {
    ComputeSetProfile& p = profile.computeSets[st.node->cs.id];
    ++p.executions;
    p.totalCycles += st.cost.cycles();
  }
}

absl::Status EngineImpl::executeLeaf(unsigned id, ReplicaRun& run) {
  const CompiledStep& st = steps[id];
  const program::ProgramNode& n = *st.node;
  switch (st.kind) {
    case Kind::EXECUTE:
      POPLAR_SIM_RETURN_IF_ERROR(executeComputeSet(n.cs.id, run));
      noteExecuted(id, run);
      return absl::OkStatus();
    case Kind::COPY: {
      ReplicaMemory& mem = *run.memory;
      void* s = contiguous(mem, n.src);
      void* d = contiguous(mem, n.dst);
      const size_t bytes = n.src.numElements() * typeSize(n.src.elementType());
      bool sharesDst = false;
      if (d) {
        const uint32_t dstVar = n.dst.runs().empty() ? 0 : n.dst.runs()[0].var;
        for (const ElementRun& r : n.src.runs()) sharesDst |= r.var == dstVar;
      }
      if (s && d) {
        std::memmove(d, s, bytes);
      } else if (d && !sharesDst) {
        gather(mem, n.src, d);  // straight into the destination
      } else {
        std::unique_ptr<char[]> tmp(new char[std::max<size_t>(bytes, 1)]);
        gather(mem, n.src, tmp.get());
        scatter(mem, n.dst, tmp.get());
      }
      record(id, st.cost, run);
      return absl::OkStatus();
    }
    case Kind::STREAM_TO_DEVICE:
    case Kind::STREAM_FROM_DEVICE: {
      const bool toDevice = st.kind == Kind::STREAM_TO_DEVICE;
      StreamConnection& c = run.memory->streams[n.stream.id];
      if (c.mode == StreamConnection::Mode::NONE) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Stream '", n.stream.handle, "' is not connected; call "
            "Engine::connectStream before running"));
      }
      std::unique_ptr<char[]> tmp;
      char* record_ = nullptr;
      if (c.mode == StreamConnection::Mode::DISCARD) {
        record(id, st.cost, run);
        return absl::OkStatus();
      }
      if (c.mode == StreamConnection::Mode::BUFFER) {
        record_ = c.begin + (c.next % c.numRecords) * st.bytes;
        ++c.next;
      } else if (c.mode == StreamConnection::Mode::RECORDS) {
        // Host-to-device only (connectStreamToRecords checks): read in place.
        const char* rec = c.records[c.next % c.records.size()];
        if (!lendRecord(id, *run.memory, rec)) scatter(*run.memory, n.dst, rec);
        ++c.next;
        record(id, st.cost, run);
        return absl::OkStatus();
      } else {
        tmp.reset(new char[std::max<size_t>(st.bytes, 1)]);
        record_ = tmp.get();
      }
      const Tensor& t = toDevice ? n.dst : n.src;
      // (A run with callbacks runs its replicas and lanes one after
      // another: see sideBySideAllowed.)
      if (toDevice) {
        if (c.mode == StreamConnection::Mode::CALLBACK) {
          c.callback(record_);
          scatter(*run.memory, t, record_);  // a buffer of this step's only
        } else if (!lendRecord(id, *run.memory, record_)) {
          scatter(*run.memory, t, record_);
        }
      } else {
        gather(*run.memory, t, record_);
        if (c.mode == StreamConnection::Mode::CALLBACK) c.callback(record_);
      }
      record(id, st.cost, run);
      return absl::OkStatus();
    }
    case Kind::SYNC:
    case Kind::WRITE_UNDEF:
      record(id, st.cost, run);
      return absl::OkStatus();
    case Kind::PRINT_TENSOR: {
      const Tensor& t = n.predicate;
      std::unique_ptr<char[]> buf(new char[std::max<size_t>(st.bytes, 1)]);
      gather(*run.memory, t, buf.get());
      std::ostringstream os;
      os << n.debugName << ": ";
      size_t i = 0;
      PrintValues(os, t.elementType(), buf.get(), t.shape(), 0, i);
      os << "\n";
      if (run.printed) {
        *run.printed += os.str();
      } else {
        (printStream ? *printStream : std::cout) << os.str();
      }
      record(id, st.cost, run);
      return absl::OkStatus();
    }
    default:
      return absl::InternalError(absl::StrCat(
          "step ", id, " is not a leaf step"));
  }
}

double EngineImpl::readScalar(const ReplicaMemory& mem, const Tensor& t) const {
  char buf[8];
  gather(mem, t, buf);
  return loadAsDouble(t.elementType(), buf, 0);
}

absl::Status EngineImpl::advance(ReplicaRun& run) {
  // Control steps keep their state in frames of an explicit stack, so that
  // any nesting depth runs without recursion. A frame is resumed each time
  // the child it pushed has finished.
  // A reduction waits for the other replicas: its frame stays until
  // reduceAcrossReplicas has run it.
  using Frame = ReplicaRun::Frame;
  std::vector<Frame>& stack = run.stack;
  const bool profiled = run.replica == 0;
  while (!stack.empty()) {
    Frame& f = stack.back();
    const CompiledStep& st = steps[f.id];
    const program::ProgramNode& n = *st.node;
    if (f.phase == 0) {
      if (run.log) {
        if (IsControl(st.kind)) {
          run.log->push_back(LaneEvent{LaneEvent::Kind::ENTER, f.id});
        }
      } else if (profiled) {
        f.start = profile.clockCycles;
      }
    }
    unsigned push = 0;
    bool pushes = false;
    bool finished = false;
    switch (st.kind) {
      case Kind::SEQUENCE:
        f.phase = 1;
        if (!st.laneGroupAt.empty() && f.iteration < st.children.size() &&
            st.laneGroupAt[f.iteration] >= 0 && sideBySideAllowed &&
            run.threads == hostThreads) {  // not already in a lane
          const LaneGroup& g = st.laneGroups[st.laneGroupAt[f.iteration]];
          POPLAR_SIM_RETURN_IF_ERROR(runLanes(run, f.id, g));
          f.iteration = g.end;
          continue;
        }
        if (!st.chainAt.empty() && f.iteration < st.children.size() &&
            st.chainAt[f.iteration] >= 0) {
          const ElementwiseChain& c = st.chains[st.chainAt[f.iteration]];
          runElementwiseChain(run, f.id, c);
          f.iteration = c.end;
          continue;
        }
        if (f.iteration < st.children.size()) {
          push = st.children[f.iteration++];
          pushes = true;
        } else {
          finished = true;
        }
        break;
      case Kind::REPEAT:
        if (f.phase == 1) addControl(f.id, run);  // a body finished
        f.phase = 1;
        if (f.iteration < n.count) {
          ++f.iteration;
          push = st.children[0];
          pushes = true;
        } else {
          finished = true;
        }
        break;
      case Kind::REPEAT_WHILE_TRUE:
      case Kind::REPEAT_WHILE_FALSE:
        if (f.phase == 1) {  // the condition finished
          addControl(f.id, run);
          const bool whileTrue = st.kind == Kind::REPEAT_WHILE_TRUE;
          if ((readScalar(*run.memory, n.predicate) != 0) != whileTrue) {
            finished = true;
          } else {
            ++f.iteration;
            // Checked once per iteration, and only here: every other
            // program ends by itself.
            if (runDeadline != absl::InfiniteFuture() && absl::Now() > runDeadline) {
              return absl::DeadlineExceededError(absl::StrCat(
                  "Engine::run: the run passed its deadline in loop '", n.debugName,
                  "' (", st.kind == Kind::REPEAT_WHILE_TRUE ? "RepeatWhileTrue"
                                                            : "RepeatWhileFalse",
                  ") after ", f.iteration, " iteration(s); its condition may never "
                  "change"));
            }
            f.phase = 2;
            push = st.children[1];
            pushes = true;
          }
        } else {  // entered, or the body finished
          f.phase = 1;
          push = st.children[0];
          pushes = true;
        }
        break;
      case Kind::IF:
      case Kind::SWITCH:
        if (f.phase == 1) {
          finished = true;
          break;
        }
        f.phase = 1;
        addControl(f.id, run);
        push = st.children[0];
        if (st.kind == Kind::IF) {
          push = st.children[readScalar(*run.memory, n.predicate) != 0 ? 0 : 1];
        } else {
          // Compared as doubles: a LONGLONG control beyond int64's range
          // as a double must not be converted back (undefined).
          const double v = readScalar(*run.memory, n.predicate);
          for (size_t i = 0; i < n.caseValues.size(); ++i) {
            if (static_cast<double>(n.caseValues[i]) == v) push = st.children[i + 1];
          }
        }
        pushes = true;
        break;
      case Kind::CROSS_REPLICA_REDUCE:
        run.waitingAt = static_cast<int>(f.id);
        return absl::OkStatus();
      default:
        POPLAR_SIM_RETURN_IF_ERROR(executeLeaf(f.id, run));
        stack.pop_back();
        continue;
    }
    if (finished) {
      if (run.log) {
        run.log->push_back(LaneEvent{LaneEvent::Kind::FINISH, f.id});
      } else if (profiled) {
        StepProfile& sp = profile.steps[f.id];
        ++sp.executions;
        sp.totalCycles += profile.clockCycles - f.start;
      }
      stack.pop_back();
    } else if (pushes) {
      stack.push_back(Frame{push});
    }
  }
  return absl::OkStatus();
}

absl::Status EngineImpl::runProgram(unsigned index, const std::string& name) {
  RunProfile run;
  run.program = index;
  run.name = name.empty() ? profile.programNames[index] : name;
  run.startCycle = profile.clockCycles;
  RunStats stats;
  stats.runs = 1;
  stats.overheadCycles = target.runOverheadCycles();
  profile.clockCycles += stats.overheadCycles;
  runStartClock = profile.clockCycles;
  // Each replica runs until it ends or waits at a reduction; when all wait,
  // the reduction runs and they go on.
  std::vector<ReplicaRun> replicas;
  replicas.reserve(replicationFactor);
  for (unsigned r = 0; r < replicationFactor; ++r) {
    replicas.emplace_back(target.getNumIPUs(), r, &memory[r]);
    replicas.back().stack.push_back(ReplicaRun::Frame{roots[index]});
  }
  // With several host threads, replicas run side by side, each on one
  // thread (they share nothing until a reduction), rather than one after
  // another with each compute set split over the threads: a replica's
  // products are too small to split well. A thread whose replicas are done
  // helps the others split theirs (lane_threads.h).
  lendingAllowed = true;
  for (const ReplicaMemory& m : memory) {
    for (const StreamConnection& c : m.streams) {
      lendingAllowed &= c.mode != StreamConnection::Mode::CALLBACK;
    }
  }
  sideBySideAllowed = lendingAllowed && hostThreads != nullptr && hostThreads->numThreads() > 1;
  const bool sideBySide = sideBySideAllowed && replicationFactor > 1;
  std::vector<std::string> printed(sideBySide ? replicationFactor : 0);
  std::unique_ptr<LaneThreads> lanes;
  if (sideBySide) lanes = std::make_unique<LaneThreads>(*hostThreads);
  for (ReplicaRun& r : replicas) {
    r.threads = sideBySide ? lanes.get() : hostThreads;
    if (sideBySide) r.printed = &printed[r.replica];
  }
  absl::Status s;
  std::vector<unsigned> ready;
  std::vector<absl::Status> outcomes;
  while (s.ok()) {
    ready.clear();
    for (unsigned r = 0; r < replicas.size(); ++r) {
      if (!replicas[r].done() && replicas[r].waitingAt < 0) ready.push_back(r);
    }
    outcomes.assign(ready.size(), absl::OkStatus());
    if (sideBySide && ready.size() > 1) {
      lanes->run(static_cast<unsigned>(ready.size()), [&](unsigned i) {
        outcomes[i] = advance(replicas[ready[i]]);
      });
    } else {
      for (size_t i = 0; i < ready.size(); ++i) {
        // A replica running alone has the engine's threads to itself.
        ReplicaRun& r = replicas[ready[i]];
        HostThreads* own = r.threads;
        r.threads = hostThreads;
        outcomes[i] = advance(r);
        r.threads = own;
        if (!outcomes[i].ok()) break;
      }
    }
    // What they printed, in replica order, as when they run one after
    // another.
    for (std::string& p : printed) {
      if (p.empty()) continue;
      (printStream ? *printStream : std::cout) << p;
      p.clear();
    }
    // The first replica's error, likewise.
    for (const absl::Status& o : outcomes) {
      if (!o.ok()) {
        s = o;
        break;
      }
    }
    bool waiting = false;
    for (const ReplicaRun& r : replicas) waiting |= r.waitingAt >= 0;
    if (!s.ok() || !waiting) break;
    s = reduceAcrossReplicas(replicas);
  }
  // The host's records are the host's again, whatever happened.
  returnBorrowedRecords();
  // The run ends when the slowest IPU of the slowest replica does.
  uint64_t latest = 0;
  for (const ReplicaRun& r : replicas) latest = std::max(latest, r.timeline.elapsed());
  replicas[0].timeline.waitUntil({}, latest);
  profile.clockCycles = runStartClock + latest;
  stats.cost = replicas[0].timeline.total();
  stats.cycles = stats.cost.cycles() + stats.overheadCycles;
  stats.seconds = target.cyclesToSeconds(stats.cycles);
  last = stats;
  cumulative.runs += 1;
  cumulative.cost += stats.cost;
  cumulative.overheadCycles += stats.overheadCycles;
  cumulative.cycles += stats.cycles;
  cumulative.seconds = target.cyclesToSeconds(cumulative.cycles);
  run.stats = stats;
  // Bounded, so that long training loops do not grow the profile forever.
  if (profile.runs.size() < kMaxRunsInProfile) profile.runs.push_back(run);
  profile.total.runs += 1;
  profile.total.cost += stats.cost;
  profile.total.overheadCycles += stats.overheadCycles;
  profile.total.cycles += stats.cycles;
  profile.total.seconds = target.cyclesToSeconds(profile.total.cycles);
  return s;
}

}  // namespace internal
}  // namespace poplar_sim
