// Profile: what an engine costs, as the simulator's cost model sees it.
//
// An Engine fills one Profile: memory per tile by category (at compile
// time), the static cost of every program step and compute set, and, for
// every run, cycles and bytes (cycles per step and per compute set, a
// trace of step executions on each IPU). It can be printed as a text
// summary (printProfileSummary), or written as JSON (profileToJson) and as
// Chrome-trace JSON (profileToChromeTrace) that Perfetto and
// chrome://tracing open.
#ifndef POPLAR_SIM_PROFILE_H_
#define POPLAR_SIM_PROFILE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "poplar_sim/option_flags.h"

namespace poplar_sim {

// Bytes of one tile's memory by category.
struct TileMemory {
  uint64_t variables = 0;
  uint64_t constants = 0;
  uint64_t vertexState = 0;
  uint64_t exchange = 0;  // buffers for data received by compute sets
  uint64_t code = 0;      // vertex code + control code (an estimate)
  // The part of `code` that is the programs' control code. Every tile of
  // the engine's IPUs holds it, whether or not it has work.
  uint64_t controlCode = 0;
  // The part of `variables` held by variables that are not always live
  // (they share memory: see variable_liveness.h); the rest of `variables`
  // and all of `constants` are always live.
  uint64_t notAlwaysLive = 0;
  uint64_t total() const {
    return variables + constants + vertexState + exchange + code;
  }
  uint64_t vertexCode() const { return code - controlCode; }
  // A tile is used if it holds a variable or a constant, or runs a vertex.
  // Control code alone does not count: every tile has it.
  bool used() const {
    return variables > 0 || constants > 0 || vertexState > 0 ||
           vertexCode() > 0;
  }
};

// The number of tiles of `tiles` that are used (TileMemory::used).
unsigned countTilesUsed(const std::vector<TileMemory>& tiles);

// The cost of one execution of a step, split by kind.
struct StepCost {
  uint64_t computeCycles = 0;
  uint64_t exchangeCycles = 0;  // on-chip exchange
  uint64_t syncCycles = 0;
  uint64_t interIpuCycles = 0;  // IPU-Link transfers
  uint64_t hostCycles = 0;      // host-link transfers
  uint64_t controlCycles = 0;   // loop counters, branches
  // Between the processes of a multi-process job, over the network between
  // their hosts (RuntimeReplicaSubset::network): the cross-instance part of
  // a cross-replica reduction.
  uint64_t networkCycles = 0;
  uint64_t exchangeBytes = 0;   // bytes moved between tiles of one IPU
  uint64_t interIpuBytes = 0;   // bytes moved between IPUs
  uint64_t hostBytesToDevice = 0;
  uint64_t hostBytesFromDevice = 0;
  uint64_t networkBytes = 0;    // sent by this instance to the others
  uint64_t cycles() const {
    return computeCycles + exchangeCycles + syncCycles + interIpuCycles +
           hostCycles + controlCycles + networkCycles;
  }
  StepCost& operator+=(const StepCost& o);
};

// Totals over one or more runs.
struct RunStats {
  uint64_t runs = 0;
  StepCost cost;                 // everything executed
  uint64_t overheadCycles = 0;   // per-run host overhead
  uint64_t cycles = 0;           // cost.cycles() + overheadCycles
  double seconds = 0;            // cycles at the target's clock
};

// The cost of loading an engine onto a device: its code, vertex state and
// constants travel over the host link.
struct LoadCost {
  uint64_t bytes = 0;
  uint64_t cycles = 0;
  double seconds = 0;
};

struct StepProfile {
  unsigned id = 0;
  int parent = -1;          // step id of the enclosing control step
  std::string kind;         // "Execute", "Copy", "StreamCopy", "Repeat", ...
  std::string name;
  std::vector<unsigned> ipus;  // IPUs the step runs on
  StepCost staticCost;      // per execution (leaf steps)
  uint64_t executions = 0;
  uint64_t totalCycles = 0; // including children for control steps
};

struct ComputeSetProfile {
  std::string name;
  unsigned numVertices = 0;
  unsigned numTiles = 0;        // tiles with at least one vertex
  StepCost staticCost;          // per execution
  uint64_t maxTileCycles = 0;   // compute cycles of the slowest tile
  uint64_t meanTileCycles = 0;  // over tiles with vertices
  unsigned slowestTile = 0;
  uint64_t executions = 0;
  uint64_t totalCycles = 0;
  // Memory the compute set needs, summed over its tiles: its vertices'
  // state, and its exchange buffers (the bytes its tiles receive and send).
  uint64_t vertexStateBytes = 0;
  uint64_t exchangeBufferBytes = 0;
  uint64_t flops = 0;  // per execution (Vertex::getFlopEstimate, summed)
};

// The bytes of the variables that are not always live, live over all tiles
// at one step that uses memory (an Execute, Copy or CrossReplicaReduce, in
// program order over all programs, as variable_liveness.h numbers them).
struct LivenessPoint {
  unsigned step = 0;  // StepProfile id
  uint64_t notAlwaysLiveBytes = 0;
};

struct RunProfile {
  unsigned program = 0;
  std::string name;
  uint64_t startCycle = 0;  // on the engine's simulated clock
  RunStats stats;
};

struct TraceEvent {
  unsigned step = 0;
  uint64_t startCycle = 0;
  uint64_t cycles = 0;
};

struct Profile {
  // Target summary.
  std::string arch;
  std::string chip;
  unsigned numIPUs = 0;  // of one replica
  unsigned replicationFactor = 1;  // replicas, each on numIPUs IPUs
  unsigned tilesPerIPU = 0;
  uint64_t bytesPerTile = 0;
  double clockHz = 0;
  // Compile.
  std::vector<TileMemory> tileMemory;
  std::vector<std::string> programNames;
  std::vector<unsigned> programRoots;  // step id of each program
  std::vector<StepProfile> steps;
  std::vector<ComputeSetProfile> computeSets;
  std::vector<LivenessPoint> liveness;
  LoadCost load;
  // Execution.
  std::vector<RunProfile> runs;
  RunStats total;
  std::vector<TraceEvent> trace;
  uint64_t maxTraceEvents = 100000;
  uint64_t droppedTraceEvents = 0;
  uint64_t clockCycles = 0;  // simulated time since the engine was built
};

// Options: "showExecutionSteps" ("true" prints the program tree with the
// cycles of each step), "maxComputeSets" (default 20).
void printProfileSummary(const Profile& p, std::ostream& os,
                         const OptionFlags& opts = {});
// The profile as one JSON object (written by nlohmann/json, so strings such
// as names are escaped as JSON requires; bytes that are not UTF-8 become
// U+FFFD). Keys: "target", "memory" ({"tiles": [{"tile", "total",
// "variables", "constants", "vertexState", "exchange", "code",
// "controlCode", "notAlwaysLive"}], "tilesUsed"}), "liveness" ([{"step",
// "notAlwaysLiveBytes"}]), "load", "programs", "steps", "computeSets" (each
// with "vertexStateBytes", "exchangeBufferBytes" and "flops" per execution),
// "runs",
// "total", "trace" ([{"step", "startCycle", "cycles"}], the step executions
// kept, at most maxTraceEvents), "droppedTraceEvents".
std::string profileToJson(const Profile& p);
// Chrome trace: one process "IPU system", one thread (track) per IPU and one
// for the host; timestamps in simulated microseconds.
std::string profileToChromeTrace(const Profile& p);

}  // namespace poplar_sim

#endif  // POPLAR_SIM_PROFILE_H_
