// The state of an Engine, shared by engine.cc (public API), engine_compile.cc
// (validation, memory, static costs) and engine_run.cc (execution).
// Internal to poplar_sim.
#ifndef POPLAR_SIM_ENGINE_INTERNAL_H_
#define POPLAR_SIM_ENGINE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "poplar_sim/device.h"
#include "poplar_sim/graph_state.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/ipu_timeline.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/program.h"
#include "poplar_sim/replica_subset.h"
#include "poplar_sim/target.h"
#include "poplar_sim/tile_top_users.h"
#include "poplar_sim/variable_liveness.h"
#include "poplar_sim/variable_memory.h"

namespace poplar_sim {
namespace internal {

using Kind = program::ProgramNode::Kind;

// Consecutive children [begin, end) of a Sequence as a dependency graph:
// a child waits for the earlier ones it shares memory or a host stream
// with (one writing what the other reads or writes). Children that wait for
// nothing between them run side by side on the host threads
// (engine_lanes.cc). What they cost and what the profile shows is recorded
// afterwards in program order, so that nothing but the host time changes.
struct LaneGroup {
  unsigned begin = 0;
  unsigned end = 0;
  // By position - begin: the later children waiting for each, and how many
  // earlier ones each waits for.
  std::vector<std::vector<unsigned>> dependents;
  std::vector<unsigned> numDeps;
};

// Children [begin, end) of a Sequence that are element-wise compute sets
// writing one tensor, run part by part (engine_chains.cc); computeSets[i]
// is child begin + i's.
struct ElementwiseChain {
  unsigned begin = 0;
  unsigned end = 0;
  std::vector<unsigned> computeSets;
};

// What a step run as part of a lane did to the clocks and the profile,
// replayed afterwards in program order.
struct LaneEvent {
  enum class Kind : uint8_t { ENTER, FINISH, RECORD, CONTROL };
  Kind kind;
  unsigned id;
};

// One step of a compiled program tree (the profile's StepProfile has the
// same index).
struct CompiledStep {
  Kind kind = Kind::SEQUENCE;
  std::shared_ptr<program::ProgramNode> node;  // keeps tensors alive
  std::vector<unsigned> children;
  // Leaf steps: the cost of one execution. Control steps: the cost of one
  // iteration or branch decision.
  StepCost cost;
  // A cross-replica reduction spanning processes: what the network adds to
  // `cost` (set with the runtime replica subset; zero otherwise).
  StepCost networkCost;
  size_t bytes = 0;  // stream record / printed tensor bytes
  // Sequences: the groups of children that run as lanes, and for each
  // child position the index of the group starting there, or -1 (empty
  // when the sequence has none).
  std::vector<LaneGroup> laneGroups;
  std::vector<int> laneGroupAt;
  // Sequences: the element-wise chains among the children, and for each
  // child position the index of the chain starting there, or -1 (empty
  // when the sequence has none). No chain overlaps a lane group.
  std::vector<ElementwiseChain> chains;
  std::vector<int> chainAt;
  // STREAM_TO_DEVICE: the variable it fills may borrow the host's record
  // for the run instead of a copy (engine_borrowed_records.cc).
  bool borrowsRecord = false;
};

struct StreamConnection {
  // DISCARD: a replica other than 0 of a device-to-host stream connected
  // without a replica index (replicated reads take replica 0).
  enum class Mode { NONE, BUFFER, CALLBACK, RECORDS, DISCARD } mode = Mode::NONE;
  char* begin = nullptr;
  size_t numRecords = 0;
  size_t next = 0;  // next record index (circular)
  std::function<void(void*)> callback;
  std::vector<const char*> records;  // RECORDS: one buffer per record
};

// One replica's device memory (a buffer per variable, indexed by variable
// id) and its stream connections. Every access goes through `base`: a
// variable's own buffer, or during a run the host record a stream step
// lends it (engine_borrowed_records.cc).
struct ReplicaMemory {
  VariableMemory variables;  // the buffers base[v] points to between runs
  std::vector<char*> base;
  std::vector<StreamConnection> streams;
};

// Where one replica is in a run: its control stack and its IPUs' clocks.
// A replica runs until it finishes or reaches a cross-replica reduction,
// where it waits for the others (engine_run.cc). Replicas touch nothing
// of each other's, so they may run on host threads side by side; only
// replica 0 writes the profile.
struct ReplicaRun {
  ReplicaRun(unsigned numIPUs, unsigned replica, ReplicaMemory* memory)
      : timeline(numIPUs), replica(replica), memory(memory) {}
  struct Frame {
    unsigned id;
    unsigned phase = 0;      // 0: just entered
    uint64_t iteration = 0;  // Sequence: next child; Repeat: bodies started
    uint64_t start = 0;      // profile clock when entered
  };
  std::vector<Frame> stack;
  IpuTimeline timeline;
  int waitingAt = -1;  // the step id of the reduction it waits at, or -1
  unsigned replica;
  ReplicaMemory* memory;
  // The host threads its compute sets (and lanes) may split work over
  // (nullptr: its own thread only).
  HostThreads* threads = nullptr;
  // Set while it runs a lane: record() and addControl() append what they
  // would do here instead (engine_lanes.cc).
  std::vector<LaneEvent>* log = nullptr;
  // Set while replicas run side by side: what PrintTensor prints waits
  // here, to be written in replica order.
  std::string* printed = nullptr;
  bool done() const { return stack.empty(); }
};

struct EngineImpl {
  uint64_t id = 0;
  std::shared_ptr<GraphState> graph;
  Target target;        // one replica's
  Target deviceTarget;  // the device's: target x replicationFactor
  unsigned replicationFactor = 1;
  // Where the local replicas sit in a job spread over processes
  // (globalReplicationFactor 0: they are all the replicas).
  RuntimeReplicaSubset replicaSubset;
  bool distributed() const {
    return replicaSubset.globalReplicationFactor > replicationFactor;
  }
  unsigned globalReplica(unsigned local) const { return replicaSubset.firstReplica + local; }
  EngineOptions options;
  // Each replica's device memory and stream connections.
  std::vector<ReplicaMemory> memory;
  std::vector<CompiledStep> steps;
  std::vector<unsigned> roots;  // step id of each program
  // reduceAcrossReplicas' buffers: one per replica and one for the result,
  // each of reduceScratchBytes.
  std::vector<std::unique_ptr<char[]>> reduceScratch;
  size_t reduceScratchBytes = 0;
  Profile profile;
  Device device;
  bool loaded = false;
  RunStats last;
  RunStats cumulative;
  uint64_t runStartClock = 0;  // the profile clock when this run's steps began
  std::ostream* printStream = nullptr;
  HostThreads* hostThreads = nullptr;  // not owned
  // Whether this run may use the host threads for replicas and lanes side
  // by side: not when a stream calls back into the host program, whose
  // callbacks must see the records in program order.
  bool sideBySideAllowed = false;
  // Whether this run's stream steps may lend host records to variables:
  // not when a callback runs host code during the run, which could change
  // a connected buffer (engine_borrowed_records.cc).
  bool lendingAllowed = false;
  absl::Time runDeadline = absl::InfiniteFuture();
  std::vector<std::vector<unsigned>> computeSetIPUs_;  // per compute set
  // The variables each compute set's vertices read and write (lanes).
  std::vector<std::vector<uint32_t>> computeSetReads_;
  std::vector<std::vector<uint32_t>> computeSetWrites_;
  // The variables some stream step may lend a host record to
  // (engine_borrowed_records.cc).
  std::vector<uint32_t> borrowingVariables_;
  // Per variable: whether some step of the programs writes it
  // (planBorrowedRecords; ExecutionContext::writtenDuringRun).
  std::vector<bool> writtenVariables_;

  // engine_compile.cc
  // `threads` (may be null) analyse the compute sets side by side.
  absl::Status compile(const std::vector<program::Program>& programs,
                       const std::vector<std::string>& programNames, HostThreads* threads);
  // engine_borrowed_records.cc
  void planBorrowedRecords();
  // Lends `record` to the variable stream step `id` fills, if it may
  // borrow it; false (nothing done) otherwise.
  bool lendRecord(unsigned id, ReplicaMemory& mem, const char* record) const;
  // Gives every variable its own buffer back (after a run).
  void returnBorrowedRecords();
  // engine_run.cc
  absl::Status runProgram(unsigned index, const std::string& name);
  // Copies the elements of `t` in `mem` to `dst` in row-major order, or
  // from `src` into them; contiguous: their storage in `mem` if they are one
  // stride-1 run (or none), else nullptr.
  void gather(const ReplicaMemory& mem, const Tensor& t, void* dst) const;
  void scatter(ReplicaMemory& mem, const Tensor& t, const void* src) const;
  void* contiguous(ReplicaMemory& mem, const Tensor& t) const;
  // Writes each replica's (global) index into its replication index
  // constants.
  void writeReplicationIndices();
  // Sets each cross-replica reduction's networkCost for the current
  // replica subset, and its profile's cost per execution to cost plus it.
  void costNetworkSteps();

 private:
  absl::Status validateVariables() const;
  // Compiles a program into steps (the root's id first), iteratively.
  absl::StatusOr<unsigned> compileProgram(const program::Program& root);
  // Adds the step for `n` (checked and costed), without its children.
  absl::StatusOr<unsigned> enterStep(const std::shared_ptr<program::ProgramNode>& n,
                                     int parent);
  absl::Status checkTensor(const Tensor& t, const std::string& what) const;
  // Both tensors of this engine's graph, of one type and element count, and
  // a destination that names no element twice (Copy, CrossReplicaReduce).
  absl::Status checkCopyOperands(const Tensor& src, const Tensor& dst,
                                 const std::string& what) const;
  // What the compute sets need of each tile, summed over all of them as
  // they are analysed (so that nothing per compute set and tile is kept).
  struct TileNeeds {
    explicit TileNeeds(unsigned tiles)
        : exchange(tiles), vertexState(tiles), types(tiles), topUsers(tiles) {}
    std::vector<uint64_t> exchange;     // the largest compute set's buffers
    std::vector<uint64_t> vertexState;  // summed over compute sets
    std::vector<std::vector<uint32_t>> types;  // vertex type ids used
    // The compute sets' largest users of each tile, for the out-of-memory
    // error: id 2 * cs is a compute set's exchange buffers, 2 * cs + 1 its
    // vertex state.
    TileTopUsers topUsers;
  };
  absl::Status layOutMemory(const TileNeeds& needs);
  // Fills profile.liveness: the bytes of the variables that are not always
  // live, live at each step that uses memory.
  void recordLiveness(const VariableLifetimes& lifetimes);
  // The ResourceExhausted error for tile `worst`, naming its largest users.
  absl::Status outOfMemory(const TileNeeds& needs, const VariableLifetimes& lifetimes,
                           uint64_t sharedBytes, unsigned worst, unsigned over);
  // Runs replica `r` (made active) from where it stands until it finishes
  // or reaches a cross-replica reduction (then r.waitingAt is set and the
  // reduction's frame stays on its stack), iteratively.
  absl::Status advance(ReplicaRun& r);
  // Performs the reduction every replica waits at, after checking that
  // they all wait at the same one; aligns their clocks first.
  absl::Status reduceAcrossReplicas(std::vector<ReplicaRun>& runs);
  // The same when the replicas span processes: local values out through the
  // exchange, every replica's back, reduced here in global replica order.
  absl::Status reduceAcrossInstances(std::vector<ReplicaRun>& runs, int at);
  // The host-network part of a reduction over groups of `group` replicas
  // of `bytes` each, this process holding `localReplicas` of the job's
  // (replicaSubset.network); nothing when a group stays in one process.
  StepCost networkCost(unsigned group, unsigned localReplicas, size_t bytes) const;
  // Records reduction step `at` in every replica, costing its compiled cost
  // plus `network`, and lets them go on.
  absl::Status finishReduction(std::vector<ReplicaRun>& runs, int at,
                               const StepCost& network = StepCost());
  // engine_lanes.cc: fills the laneGroups of every Sequence step.
  void planLanes();
  // Runs lane group `g` of Sequence step `seq` for `run`: the lanes side by
  // side on run.threads, then their events replayed in program order.
  absl::Status runLanes(ReplicaRun& run, unsigned seq, const LaneGroup& g);
  void replay(const std::vector<LaneEvent>& events, ReplicaRun& run);
  // engine_chains.cc: fills the chains of every Sequence step (after
  // planLanes).
  void planElementwiseChains();
  // Runs chain `c` of Sequence step `seq`: every stage's host work part by
  // part (it cannot fail), then each stage's record in program order.
  void runElementwiseChain(ReplicaRun& run, unsigned seq, const ElementwiseChain& c);
  // What running Execute step `id` does to the clocks and the profile.
  void noteExecuted(unsigned id, ReplicaRun& run);
  // Runs a step that has no children (Execute, Copy, streams, ...).
  absl::Status executeLeaf(unsigned id, ReplicaRun& run);
  double readScalar(const ReplicaMemory& mem, const Tensor& t) const;
  absl::Status executeComputeSet(unsigned cs, ReplicaRun& run);
  absl::Status executeVertices(unsigned cs, ReplicaMemory& mem);
  // Runs step `id`, costing c, on its IPUs in the replica's timeline and,
  // for replica 0, records it in the profile (replicas run the same program
  // in parallel; the profile shows replica 0's timeline).
  void record(unsigned id, const StepCost& c, ReplicaRun& run);
  // Adds the control cycles of step `id` (a loop iteration: on every IPU
  // independently; a branch decision: on every IPU at once, as the
  // predicate is broadcast) and, for replica 0, moves the profile clock.
  void addControl(unsigned id, ReplicaRun& run);
};

// What a bulk executor sees of one replica's run.
class EngineContext : public ExecutionContext {
 public:
  EngineContext(const EngineImpl& e, ReplicaMemory& mem, HostThreads* threads)
      : e_(e), mem_(mem), threads_(threads) {}
  const Target& target() const override { return e_.target; }
  void* contiguousData(const Tensor& t) override { return e_.contiguous(mem_, t); }
  void read(const Tensor& t, void* dst) override { e_.gather(mem_, t, dst); }
  void write(const Tensor& t, const void* src) override { e_.scatter(mem_, t, src); }
  HostThreads* hostThreads() override { return threads_; }
  char* variableData(uint32_t var) override { return mem_.base[var]; }
  bool writtenDuringRun(const Tensor& t) override {
    if (!t.valid()) return true;  // not known
    for (const ElementRun& r : t.runs()) {
      if (r.var >= e_.writtenVariables_.size() || e_.writtenVariables_[r.var]) return true;
    }
    return false;
  }

 private:
  const EngineImpl& e_;
  ReplicaMemory& mem_;
  HostThreads* threads_;
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_ENGINE_INTERNAL_H_
