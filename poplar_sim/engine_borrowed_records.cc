// Engine execution, borrowed stream records: a host-to-device stream step
// that fills a whole variable nothing else writes lends that variable the
// host's record for the run, instead of copying the record into device
// memory. The program's readers then read the host's buffer in place, as a
// CPU kernel reads a fed tensor. An inference step fed a 100 KB batch spent
// about a tenth of its host time on that copy, reading memory no cache held.
//
// A variable borrows only when the borrowed record is certain to be what
// every read of it would have found in device memory:
//  - the stream step is the only step of any program that writes it, and
//    covers all of it; no host read/write handle touches it (the host never
//    sees its device copy, which is stale while it borrows); not a constant,
//    not a replication index, not bool (a record may hold bytes a device
//    bool never holds);
//  - the stream step is a child of a Sequence and every reader of the
//    variable lies under a later child of that Sequence: each execution of
//    the Sequence fills it before anything reads it, so no read can see a
//    record of an earlier run (which the host may have freed since).
// At run time the record must also be aligned for the element type, come
// from host memory the host program owns (BUFFER and RECORDS connections; a
// callback's record is the engine's own scratch and is copied; no record is
// lent in a run with a callback, host code that could change a buffer),
// and not lie in a buffer a device-to-host stream writes. Like Poplar, the
// engine expects a connected buffer to stay unchanged during a run. After the
// run every variable gets its own buffer back (returnBorrowedRecords). The
// simulated cycles, the profile and the values are those of the copy.
#include <cstdint>
#include <vector>

#include "poplar_sim/engine_internal.h"

namespace poplar_sim {
namespace internal {

namespace {
using Kind = program::ProgramNode::Kind;
}  // namespace

void EngineImpl::planBorrowedRecords() {
  const size_t numVars = graph->variables.size();
  std::vector<std::vector<unsigned>> writers(numVars), readers(numVars);
  auto note = [](std::vector<std::vector<unsigned>>& to, const Tensor& t, unsigned id) {
    for (const ElementRun& r : t.runs()) {
      if (to[r.var].empty() || to[r.var].back() != id) to[r.var].push_back(id);
    }
  };
  std::vector<int> parent(steps.size(), -1);
  std::vector<unsigned> position(steps.size(), 0);
  for (unsigned id = 0; id < steps.size(); ++id) {
    CompiledStep& st = steps[id];
    st.borrowsRecord = false;
    const program::ProgramNode& n = *st.node;
    for (unsigned i = 0; i < st.children.size(); ++i) {
      parent[st.children[i]] = static_cast<int>(id);
      position[st.children[i]] = i;
    }
    switch (st.kind) {
      case Kind::EXECUTE:
        for (uint32_t v : computeSetReads_[n.cs.id]) readers[v].push_back(id);
        for (uint32_t v : computeSetWrites_[n.cs.id]) writers[v].push_back(id);
        break;
      case Kind::COPY:
      case Kind::CROSS_REPLICA_REDUCE:
        note(readers, n.src, id);
        note(writers, n.dst, id);
        break;
      case Kind::STREAM_TO_DEVICE:
        note(writers, n.dst, id);
        break;
      case Kind::STREAM_FROM_DEVICE:
        note(readers, n.src, id);
        break;
      case Kind::WRITE_UNDEF:
        note(writers, n.predicate, id);
        break;
      case Kind::SEQUENCE:
      case Kind::REPEAT:
      case Kind::SYNC:
        break;
      case Kind::REPEAT_WHILE_TRUE:
      case Kind::REPEAT_WHILE_FALSE:
      case Kind::IF:
      case Kind::SWITCH:
      case Kind::PRINT_TENSOR:
        note(readers, n.predicate, id);
        break;
      // No default: a new kind of step must say what it reads and writes.
    }
  }
  writtenVariables_.assign(numVars, false);
  for (size_t v = 0; v < numVars; ++v) writtenVariables_[v] = !writers[v].empty();
  std::vector<bool> hostTouched(numVars, false);
  for (const auto& [handle, access] : graph->hostAccess) {
    for (const ElementRun& r : access.tensor.runs()) hostTouched[r.var] = true;
  }
  // The child of Sequence `seq` that `id` lies under, or -1.
  auto childOf = [&](unsigned seq, unsigned id) -> int {
    int cur = static_cast<int>(id);
    while (cur >= 0 && parent[cur] != static_cast<int>(seq)) cur = parent[cur];
    return cur;
  };
  borrowingVariables_.clear();
  for (unsigned id = 0; id < steps.size(); ++id) {
    CompiledStep& st = steps[id];
    if (st.kind != Kind::STREAM_TO_DEVICE) continue;
    const Tensor& dst = st.node->dst;
    if (!dst.isContiguous() || dst.runs().size() != 1) continue;
    const ElementRun& run = dst.runs()[0];
    const VariableRecord& var = graph->variables[run.var];
    if (run.start != 0 || run.count != var.numElements) continue;
    if (var.isConstant || var.isReplicationIndex || var.type == BOOL || hostTouched[run.var]) {
      continue;
    }
    if (writers[run.var].size() != 1 || writers[run.var][0] != id) continue;
    const int seq = parent[id];
    if (seq < 0 || steps[seq].kind != Kind::SEQUENCE) continue;
    bool afterIt = true;
    for (unsigned r : readers[run.var]) {
      const int child = childOf(static_cast<unsigned>(seq), r);
      if (child < 0 || position[child] <= position[id]) {
        afterIt = false;
        break;
      }
    }
    if (!afterIt) continue;
    st.borrowsRecord = true;
    borrowingVariables_.push_back(run.var);
  }
}

bool EngineImpl::lendRecord(unsigned id, ReplicaMemory& mem, const char* record) const {
  const CompiledStep& st = steps[id];
  if (!st.borrowsRecord || !lendingAllowed || record == nullptr) return false;
  const Tensor& dst = st.node->dst;
  if (reinterpret_cast<uintptr_t>(record) % typeSize(dst.elementType()) != 0) return false;
  // A device-to-host stream, of any replica, could write the record during
  // the run (a host program may give one buffer to both directions); the
  // variable must keep the values it was filled with.
  const char* end = record + st.bytes;
  for (const ReplicaMemory& replica : memory) {
    for (size_t s = 0; s < replica.streams.size(); ++s) {
      const StreamConnection& c = replica.streams[s];
      if (graph->streams[s].direction != StreamDirection::DEVICE_TO_HOST ||
          c.mode != StreamConnection::Mode::BUFFER) {
        continue;
      }
      const char* first = c.begin;
      const char* last = c.begin + c.numRecords * graph->streams[s].numElements *
                                       typeSize(graph->streams[s].type);
      if (first < end && record < last) return false;
    }
  }
  // Never written while it borrows (the stream step is its only writer).
  mem.base[dst.runs()[0].var] = const_cast<char*>(record);
  return true;
}

void EngineImpl::returnBorrowedRecords() {
  for (ReplicaMemory& mem : memory) {
    for (uint32_t v : borrowingVariables_) mem.base[v] = mem.variables.buffer(v);
  }
}

}  // namespace internal
}  // namespace poplar_sim
