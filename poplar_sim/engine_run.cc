// Engine execution: runs compiled programs functionally and adds up the
// static cost of every step executed.
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "poplar_sim/cost_model.h"
#include "poplar_sim/engine_internal.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/status_macros.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace internal {
namespace {

constexpr size_t kMaxRunsInProfile = 10000;

template <size_t kSize>
void GatherRun(const char* base, const ElementRun& r, char*& out) {
  if (r.stride == 1) {
    std::memcpy(out, base + r.start * kSize, r.count * kSize);
    out += r.count * kSize;
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

class EngineContext : public ExecutionContext {
 public:
  explicit EngineContext(EngineImpl& e) : e_(e) {}
  const Target& target() const override { return e_.target; }
  void* contiguousData(const Tensor& t) override { return e_.contiguous(t); }
  void read(const Tensor& t, void* dst) override { e_.gather(t, dst); }
  void write(const Tensor& t, const void* src) override { e_.scatter(t, src); }
  HostThreads* hostThreads() override { return e_.hostThreads; }

 private:
  EngineImpl& e_;
};

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

void EngineImpl::gather(const Tensor& t, void* dst) const {
  const size_t es = typeSize(t.elementType());
  char* out = static_cast<char*>(dst);
  for (const ElementRun& r : t.runs()) GatherAnyRun(data[r.var].get(), es, r, out);
}

void EngineImpl::scatter(const Tensor& t, const void* src) {
  const size_t es = typeSize(t.elementType());
  const char* in = static_cast<const char*>(src);
  for (const ElementRun& r : t.runs()) ScatterAnyRun(data[r.var].get(), es, r, in);
}

void* EngineImpl::contiguous(const Tensor& t) {
  if (t.runs().empty()) return data.empty() ? nullptr : data[0].get();
  if (!t.isContiguous()) return nullptr;
  const ElementRun& r = t.runs()[0];
  return data[r.var].get() + r.start * typeSize(t.elementType());
}

void EngineImpl::record(unsigned id, const StepCost& c, StepCost& acc) {
  const uint64_t cycles = c.cycles();
  StepProfile& sp = profile.steps[id];
  ++sp.executions;
  sp.totalCycles += cycles;
  if (cycles > 0 && !profile.steps[id].ipus.empty()) {
    if (profile.trace.size() < profile.maxTraceEvents) {
      profile.trace.push_back(TraceEvent{id, profile.clockCycles, cycles});
    } else {
      ++profile.droppedTraceEvents;
    }
  }
  profile.clockCycles += cycles;
  acc += c;
}

absl::Status EngineImpl::executeVertices(unsigned cs) {
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
          GatherAnyRun(data[r.var].get(), es, r, out);
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
        ScatterAnyRun(data[r.var].get(), es, r, in);
      });
    }
  }
  return absl::OkStatus();
}

absl::Status EngineImpl::executeComputeSet(unsigned cs) {
  const ComputeSetRecord& rec = graph->computeSets[cs];
  if (rec.bulk && !options.executeVerticesIndividually) {
    EngineContext ctx(*this);
    absl::Status s = rec.bulk(ctx);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("Compute set '", rec.name,
                                                 "': ", s.message()));
    }
    return absl::OkStatus();
  }
  return executeVertices(cs);
}

absl::Status EngineImpl::executeLeaf(unsigned id, StepCost& acc) {
  const CompiledStep& st = steps[id];
  const program::ProgramNode& n = *st.node;
  switch (st.kind) {
    case Kind::EXECUTE:
      POPLAR_SIM_RETURN_IF_ERROR(executeComputeSet(n.cs.id));
      record(id, st.cost, acc);
      ++profile.computeSets[n.cs.id].executions;
      profile.computeSets[n.cs.id].totalCycles += st.cost.cycles();
      return absl::OkStatus();
    case Kind::COPY: {
      void* s = contiguous(n.src);
      void* d = contiguous(n.dst);
      const size_t bytes = n.src.numElements() * typeSize(n.src.elementType());
      if (s && d) {
        std::memmove(d, s, bytes);
      } else {
        std::unique_ptr<char[]> tmp(new char[std::max<size_t>(bytes, 1)]);
        gather(n.src, tmp.get());
        scatter(n.dst, tmp.get());
      }
      record(id, st.cost, acc);
      return absl::OkStatus();
    }
    case Kind::STREAM_TO_DEVICE:
    case Kind::STREAM_FROM_DEVICE: {
      const bool toDevice = st.kind == Kind::STREAM_TO_DEVICE;
      StreamConnection& c = streams[n.stream.id];
      if (c.mode == StreamConnection::Mode::NONE) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Stream '", n.stream.handle, "' is not connected; call "
            "Engine::connectStream before running"));
      }
      std::unique_ptr<char[]> tmp;
      char* record_ = nullptr;
      if (c.mode == StreamConnection::Mode::BUFFER) {
        record_ = c.begin + (c.next % c.numRecords) * st.bytes;
        ++c.next;
      } else if (c.mode == StreamConnection::Mode::RECORDS) {
        // Host-to-device only (connectStreamToRecords checks): read in place.
        scatter(n.dst, c.records[c.next % c.records.size()]);
        ++c.next;
        record(id, st.cost, acc);
        return absl::OkStatus();
      } else {
        tmp.reset(new char[std::max<size_t>(st.bytes, 1)]);
        record_ = tmp.get();
      }
      const Tensor& t = toDevice ? n.dst : n.src;
      if (toDevice) {
        if (c.mode == StreamConnection::Mode::CALLBACK) c.callback(record_);
        scatter(t, record_);
      } else {
        gather(t, record_);
        if (c.mode == StreamConnection::Mode::CALLBACK) c.callback(record_);
      }
      record(id, st.cost, acc);
      return absl::OkStatus();
    }
    case Kind::SYNC:
    case Kind::WRITE_UNDEF:
      record(id, st.cost, acc);
      return absl::OkStatus();
    case Kind::PRINT_TENSOR: {
      const Tensor& t = n.predicate;
      std::unique_ptr<char[]> buf(new char[std::max<size_t>(st.bytes, 1)]);
      gather(t, buf.get());
      std::ostringstream os;
      os << n.debugName << ": ";
      size_t i = 0;
      PrintValues(os, t.elementType(), buf.get(), t.shape(), 0, i);
      os << "\n";
      (printStream ? *printStream : std::cout) << os.str();
      record(id, st.cost, acc);
      return absl::OkStatus();
    }
    default:
      return absl::InternalError(absl::StrCat(
          "step ", id, " is not a leaf step"));
  }
}

double EngineImpl::readScalar(const Tensor& t) const {
  char buf[8];
  gather(t, buf);
  return loadAsDouble(t.elementType(), buf, 0);
}

absl::Status EngineImpl::executeStep(unsigned root, StepCost& acc) {
  // Control steps keep their state in frames of an explicit stack, so that
  // any nesting depth runs without recursion. A frame is resumed each time
  // the child it pushed has finished.
  struct Frame {
    unsigned id;
    unsigned phase = 0;      // 0: just entered
    uint64_t iteration = 0;  // Sequence: next child; Repeat: bodies started
    uint64_t start = 0;      // profile clock when entered
  };
  std::vector<Frame> stack = {Frame{root}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const CompiledStep& st = steps[f.id];
    const program::ProgramNode& n = *st.node;
    if (f.phase == 0) f.start = profile.clockCycles;
    unsigned push = 0;
    bool pushes = false;
    bool finished = false;
    switch (st.kind) {
      case Kind::SEQUENCE:
        f.phase = 1;
        if (f.iteration < st.children.size()) {
          push = st.children[f.iteration++];
          pushes = true;
        } else {
          finished = true;
        }
        break;
      case Kind::REPEAT:
        if (f.phase == 1) {  // a body finished
          profile.clockCycles += st.cost.cycles();
          acc += st.cost;
        }
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
          profile.clockCycles += st.cost.cycles();
          acc += st.cost;
          const bool whileTrue = st.kind == Kind::REPEAT_WHILE_TRUE;
          if ((readScalar(n.predicate) != 0) != whileTrue) {
            finished = true;
          } else {
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
        profile.clockCycles += st.cost.cycles();
        acc += st.cost;
        push = st.children[0];
        if (st.kind == Kind::IF) {
          push = st.children[readScalar(n.predicate) != 0 ? 0 : 1];
        } else {
          // Compared as doubles: a LONGLONG control beyond int64's range
          // as a double must not be converted back (undefined).
          const double v = readScalar(n.predicate);
          for (size_t i = 0; i < n.caseValues.size(); ++i) {
            if (static_cast<double>(n.caseValues[i]) == v) push = st.children[i + 1];
          }
        }
        pushes = true;
        break;
      default:
        POPLAR_SIM_RETURN_IF_ERROR(executeLeaf(f.id, acc));
        stack.pop_back();
        continue;
    }
    if (finished) {
      StepProfile& sp = profile.steps[f.id];
      ++sp.executions;
      sp.totalCycles += profile.clockCycles - f.start;
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
  absl::Status s = executeStep(roots[index], stats.cost);
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
