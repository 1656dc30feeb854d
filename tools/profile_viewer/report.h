// Report: one poplar_sim profile (profile.json), read for the profile viewer.
//
//   absl::StatusOr<Report> r = LoadReport("reports/cluster_0");  // or a file
//   if (r.ok()) std::cout << r->tiles.size() << " tiles\n";
//
// LoadReport accepts a profile.json file, a directory holding one (what
// autoReport.directory/autoReport.subdirectory name), or an autoReport
// directory whose one subdirectory holds it (TF_POPLAR_FLAGS and the IPU
// configuration put each cluster's reports in its own subdirectory). The
// fields that later versions of the simulator added (per-tile
// notAlwaysLive, liveness, trace, each compute set's memory) may be absent:
// they read as zero or empty, so older reports still open.
#ifndef TOOLS_PROFILE_VIEWER_REPORT_H_
#define TOOLS_PROFILE_VIEWER_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace profile_viewer {

// Bytes of one tile's memory by category, as profile.json gives them.
struct TileBytes {
  uint64_t variables = 0;  // includes notAlwaysLive
  uint64_t constants = 0;
  uint64_t vertexState = 0;
  uint64_t exchange = 0;
  uint64_t code = 0;  // includes controlCode
  uint64_t controlCode = 0;
  uint64_t notAlwaysLive = 0;

  uint64_t total() const { return variables + constants + vertexState + exchange + code; }
  // The categories PopVision shows, which add up to total().
  uint64_t alwaysLive() const { return variables - notAlwaysLive + constants; }
  uint64_t vertexCode() const { return code - controlCode; }
};

// Cycles and bytes of one execution of a step (or of a sum of them).
struct Cost {
  uint64_t compute = 0, exchange = 0, sync = 0, interIpu = 0, host = 0, control = 0;
  // Between the processes of a multi-process job (absent from profiles of
  // one process, and from those written before it existed: 0).
  uint64_t network = 0;
  uint64_t exchangeBytes = 0, interIpuBytes = 0, hostBytesIn = 0, hostBytesOut = 0;
  uint64_t networkBytes = 0;
  uint64_t cycles() const {
    return compute + exchange + sync + interIpu + host + control + network;
  }
};

struct Step {
  unsigned id = 0;
  int parent = -1;
  std::string kind;  // "Execute", "Copy", "StreamCopy(host->device)", ...
  std::string name;
  std::vector<unsigned> ipus;
  Cost costPerExecution;
  uint64_t executions = 0;
  uint64_t totalCycles = 0;
};

struct ComputeSet {
  std::string name;
  uint64_t vertices = 0;
  uint64_t tiles = 0;
  Cost costPerExecution;
  uint64_t maxTileCycles = 0;
  uint64_t meanTileCycles = 0;
  uint64_t executions = 0;
  uint64_t totalCycles = 0;
  uint64_t vertexStateBytes = 0;
  uint64_t exchangeBufferBytes = 0;
  uint64_t flops = 0;  // per execution
};

struct Program {
  std::string name;
  unsigned rootStep = 0;
};

struct LivenessPoint {
  unsigned step = 0;
  uint64_t notAlwaysLiveBytes = 0;
};

struct TraceEvent {
  unsigned step = 0;
  uint64_t startCycle = 0;
  uint64_t cycles = 0;
};

struct Report {
  std::string source;  // the file read
  // Target.
  std::string arch, chip;
  unsigned numIPUs = 0;
  unsigned replicationFactor = 1;
  unsigned tilesPerIPU = 0;
  uint64_t bytesPerTile = 0;
  double clockHz = 0;
  // Compile.
  std::vector<TileBytes> tiles;
  std::vector<LivenessPoint> liveness;
  uint64_t loadBytes = 0;
  double loadSeconds = 0;
  std::vector<Program> programs;
  std::vector<Step> steps;  // steps[i].id == i
  std::vector<ComputeSet> computeSets;
  // Execution.
  uint64_t runs = 0;
  uint64_t totalCycles = 0;
  uint64_t overheadCycles = 0;
  double totalSeconds = 0;
  Cost totalCost;
  std::vector<TraceEvent> trace;
  uint64_t droppedTraceEvents = 0;
};

// Parses the text of a profile.json. `source` names it in errors.
// InvalidArgument if it is not JSON or a field is missing or of the wrong
// type (the message names the field), or if the parts disagree (a step id
// out of order, a trace event of an unknown step, a tile count that is not
// numIPUs x tilesPerIPU).
absl::StatusOr<Report> ParseReport(const std::string& text, const std::string& source);

// Finds the profile.json that `path` names (see the file comment); NotFound
// if there is none, InvalidArgument if a directory holds several reports
// (the message lists them: pass one).
absl::StatusOr<std::string> FindReportFile(const std::string& path);

// FindReportFile, read, ParseReport.
absl::StatusOr<Report> LoadReport(const std::string& path);

}  // namespace profile_viewer

#endif  // TOOLS_PROFILE_VIEWER_REPORT_H_
