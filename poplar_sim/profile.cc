#include "poplar_sim/profile.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace poplar_sim {

StepCost& StepCost::operator+=(const StepCost& o) {
  computeCycles += o.computeCycles;
  exchangeCycles += o.exchangeCycles;
  syncCycles += o.syncCycles;
  interIpuCycles += o.interIpuCycles;
  hostCycles += o.hostCycles;
  controlCycles += o.controlCycles;
  networkCycles += o.networkCycles;
  exchangeBytes += o.exchangeBytes;
  interIpuBytes += o.interIpuBytes;
  hostBytesToDevice += o.hostBytesToDevice;
  hostBytesFromDevice += o.hostBytesFromDevice;
  networkBytes += o.networkBytes;
  return *this;
}

namespace {

std::string Percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "0.0%";
  return absl::StrFormat("%.1f%%", 100.0 * part / whole);
}

std::string Seconds(double s) {
  if (s >= 1) return absl::StrFormat("%.3f s", s);
  if (s >= 1e-3) return absl::StrFormat("%.3f ms", s * 1e3);
  return absl::StrFormat("%.3f us", s * 1e6);
}

// Objects keep their keys in the order written, so the JSON reads as the
// summary does (target first, totals last).
using Json = nlohmann::ordered_json;

// Dumps compactly; bytes that are not UTF-8 (a name is any std::string)
// become U+FFFD instead of making dump() throw.
std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The documents are written part by part: a trace holds up to 10^5 events
// per IPU and a profile one entry per tile, and holding either as one
// nlohmann value before dumping it costs several times the time and memory
// of its text. Each element is a value dumped by the library (which escapes
// every string and formats every number); only the brackets, colons and
// commas between the parts are written here.

// A JSON array of already dumped elements.
class ArrayText {
 public:
  void add(const Json& element) {
    text_ += text_.empty() ? "[" : ",";
    text_ += Dump(element);
  }
  std::string close() && { return text_.empty() ? "[]" : std::move(text_) + "]"; }

 private:
  std::string text_;
};

// A JSON object from keys and values that are already JSON text.
std::string ObjectText(
    std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string text = "{";
  for (const auto& [key, value] : fields) {
    if (text.size() > 1) text += ",";
    absl::StrAppend(&text, Dump(Json(key)), ":", value);
  }
  return text + "}";
}

Json CostJson(const StepCost& c) {
  return Json{{"cycles", c.cycles()},
              {"computeCycles", c.computeCycles},
              {"exchangeCycles", c.exchangeCycles},
              {"syncCycles", c.syncCycles},
              {"interIpuCycles", c.interIpuCycles},
              {"hostCycles", c.hostCycles},
              {"controlCycles", c.controlCycles},
              {"networkCycles", c.networkCycles},
              {"exchangeBytes", c.exchangeBytes},
              {"interIpuBytes", c.interIpuBytes},
              {"hostBytesToDevice", c.hostBytesToDevice},
              {"hostBytesFromDevice", c.hostBytesFromDevice},
              {"networkBytes", c.networkBytes}};
}

Json StatsJson(const RunStats& s) {
  return Json{{"runs", s.runs},
              {"cycles", s.cycles},
              {"seconds", s.seconds},
              {"overheadCycles", s.overheadCycles},
              {"breakdown", CostJson(s.cost)}};
}

}  // namespace

void printProfileSummary(const Profile& p, std::ostream& os,
                         const OptionFlags& opts) {
  const std::string* stepsOpt = opts.get("showExecutionSteps");
  const bool showSteps = stepsOpt != nullptr && *stepsOpt == "true";
  size_t maxCs = 20;
  if (const std::string* m = opts.get("maxComputeSets")) {
    if (!absl::SimpleAtoi(*m, &maxCs)) maxCs = 20;
  }
  os << "Target:\n";
  os << absl::StrFormat(
      "  %s (%s), %u IPU(s) x %u tiles, %u bytes per tile, %.3g GHz\n",
      p.arch, p.chip, p.numIPUs, p.tilesPerIPU, p.bytesPerTile,
      p.clockHz / 1e9);
  if (p.replicationFactor > 1) {
    os << absl::StrFormat(
        "  replicated %u times (the figures below are one replica's; the replicas run in "
        "parallel and wait for each other at cross-replica reductions)\n",
        p.replicationFactor);
  }

  TileMemory sum;
  uint64_t maxControlCode = 0;
  uint64_t maxTile = 0;
  unsigned maxTileId = 0, over = 0;
  for (unsigned t = 0; t < p.tileMemory.size(); ++t) {
    const TileMemory& m = p.tileMemory[t];
    sum.variables += m.variables;
    sum.constants += m.constants;
    sum.vertexState += m.vertexState;
    sum.exchange += m.exchange;
    sum.code += m.code;
    sum.controlCode += m.controlCode;
    maxControlCode = std::max(maxControlCode, m.controlCode);
    if (m.total() > maxTile) {
      maxTile = m.total();
      maxTileId = t;
    }
    if (m.total() > p.bytesPerTile) ++over;
  }
  const uint64_t capacity = p.bytesPerTile * p.tileMemory.size();
  os << "Memory:\n";
  os << "  Total:       " << sum.total() << " bytes ("
     << Percent(sum.total(), capacity) << " of " << capacity << ")\n";
  os << "  Variables:   " << sum.variables << "\n";
  os << "  Constants:   " << sum.constants << "\n";
  os << "  Vertex state:" << " " << sum.vertexState << "\n";
  os << "  Exchange:    " << sum.exchange << "\n";
  os << "  Code (est.): " << sum.code << "\n";
  os << "    control code: " << sum.controlCode << " (up to " << maxControlCode
     << " per tile)\n";
  os << "  Tiles used: " << countTilesUsed(p.tileMemory) << " of "
     << p.tileMemory.size() << " (holding a variable or running a vertex)\n";
  os << "  Largest tile: " << maxTileId << " with " << maxTile << " bytes ("
     << Percent(maxTile, p.bytesPerTile) << ")\n";
  os << "  Tiles over memory: " << over << "\n";
  os << "Engine load: " << p.load.bytes << " bytes over the host link, "
     << p.load.cycles << " cycles (" << Seconds(p.load.seconds) << ")\n";

  const RunStats& s = p.total;
  os << "Execution:\n";
  os << "  Runs: " << s.runs << "\n";
  os << "  Total cycles: " << s.cycles << " (" << Seconds(s.seconds) << ")\n";
  const uint64_t c = std::max<uint64_t>(s.cycles, 1);
  os << "    compute:   " << s.cost.computeCycles << " ("
     << Percent(s.cost.computeCycles, c) << ")\n";
  os << "    exchange:  " << s.cost.exchangeCycles << " ("
     << Percent(s.cost.exchangeCycles, c) << ")\n";
  os << "    sync:      " << s.cost.syncCycles << " ("
     << Percent(s.cost.syncCycles, c) << ")\n";
  os << "    inter-IPU: " << s.cost.interIpuCycles << " ("
     << Percent(s.cost.interIpuCycles, c) << ")\n";
  os << "    host I/O:  " << s.cost.hostCycles << " ("
     << Percent(s.cost.hostCycles, c) << ")\n";
  os << "    control:   " << s.cost.controlCycles << " ("
     << Percent(s.cost.controlCycles, c) << ")\n";
  if (s.cost.networkCycles > 0 || s.cost.networkBytes > 0) {
    os << "    network:   " << s.cost.networkCycles << " ("
       << Percent(s.cost.networkCycles, c) << ")\n";
  }
  os << "    run overhead: " << s.overheadCycles << " ("
     << Percent(s.overheadCycles, c) << ")\n";
  os << "  Bytes: exchange " << s.cost.exchangeBytes << ", inter-IPU "
     << s.cost.interIpuBytes << ", host->device " << s.cost.hostBytesToDevice
     << ", device->host " << s.cost.hostBytesFromDevice;
  if (s.cost.networkBytes > 0) os << ", network " << s.cost.networkBytes;
  os << "\n";

  std::vector<const ComputeSetProfile*> cs;
  for (const ComputeSetProfile& x : p.computeSets) cs.push_back(&x);
  std::stable_sort(cs.begin(), cs.end(), [](auto* a, auto* b) {
    return a->totalCycles > b->totalCycles;
  });
  os << "Compute sets (" << cs.size() << ", by total cycles):\n";
  os << absl::StrFormat("  %-32s %10s %12s %14s %8s %6s %9s\n", "name",
                        "executions", "cycles/exec", "total cycles",
                        "vertices", "tiles", "imbalance");
  for (size_t i = 0; i < cs.size() && i < maxCs; ++i) {
    const ComputeSetProfile& x = *cs[i];
    const double imbalance =
        x.meanTileCycles ? double(x.maxTileCycles) / x.meanTileCycles : 1.0;
    os << absl::StrFormat("  %-32s %10u %12u %14u %8u %6u %8.2fx\n", x.name,
                          x.executions, x.staticCost.cycles(), x.totalCycles,
                          x.numVertices, x.numTiles, imbalance);
  }
  if (showSteps) {
    os << "Program steps (cycles per execution, executions, total):\n";
    std::vector<std::vector<unsigned>> children(p.steps.size());
    for (const StepProfile& st : p.steps) {
      if (st.parent >= 0) children[st.parent].push_back(st.id);
    }
    // Iterative (programs may nest to any depth); indentation stops growing
    // at kMaxIndent levels, so that deep nesting does not print quadratic
    // amounts of spaces.
    constexpr size_t kMaxIndent = 32;
    auto print = [&](unsigned rootId) {
      std::vector<std::pair<unsigned, size_t>> stack = {{rootId, 1}};
      while (!stack.empty()) {
        const auto [id, depth] = stack.back();
        stack.pop_back();
        const StepProfile& st = p.steps[id];
        os << std::string(2 + 2 * std::min(depth, kMaxIndent), ' ');
        if (depth > kMaxIndent) os << "(depth " << depth << ") ";
        os << st.kind;
        if (!st.name.empty()) os << " '" << st.name << "'";
        os << ": " << st.staticCost.cycles() << " x " << st.executions << " = "
           << st.totalCycles << "\n";
        for (auto c = children[id].rbegin(); c != children[id].rend(); ++c) {
          stack.emplace_back(*c, depth + 1);
        }
      }
    };
    for (size_t i = 0; i < p.programRoots.size(); ++i) {
      os << "  Program " << i << " (" << p.programNames[i] << "):\n";
      print(p.programRoots[i]);
    }
  }
}

unsigned countTilesUsed(const std::vector<TileMemory>& tiles) {
  unsigned used = 0;
  for (const TileMemory& m : tiles) used += m.used() ? 1 : 0;
  return used;
}

std::string profileToJson(const Profile& p) {
  ArrayText tiles;
  for (size_t t = 0; t < p.tileMemory.size(); ++t) {
    const TileMemory& m = p.tileMemory[t];
    tiles.add(Json{{"tile", t},
                   {"total", m.total()},
                   {"variables", m.variables},
                   {"constants", m.constants},
                   {"vertexState", m.vertexState},
                   {"exchange", m.exchange},
                   {"code", m.code},
                   {"controlCode", m.controlCode},
                   {"notAlwaysLive", m.notAlwaysLive}});
  }
  ArrayText liveness;
  for (const LivenessPoint& l : p.liveness) {
    liveness.add(Json{{"step", l.step}, {"notAlwaysLiveBytes", l.notAlwaysLiveBytes}});
  }
  ArrayText trace;
  for (const TraceEvent& e : p.trace) {
    trace.add(Json{{"step", e.step}, {"startCycle", e.startCycle}, {"cycles", e.cycles}});
  }
  Json programs = Json::array();
  for (size_t i = 0; i < p.programRoots.size(); ++i) {
    programs.push_back(Json{{"index", i},
                            {"name", p.programNames[i]},
                            {"rootStep", p.programRoots[i]}});
  }
  ArrayText steps;
  for (const StepProfile& s : p.steps) {
    steps.add(Json{{"id", s.id},
                   {"parent", s.parent},
                   {"kind", s.kind},
                   {"name", s.name},
                   {"ipus", s.ipus},
                   {"costPerExecution", CostJson(s.staticCost)},
                   {"executions", s.executions},
                   {"totalCycles", s.totalCycles}});
  }
  ArrayText computeSets;
  for (const ComputeSetProfile& c : p.computeSets) {
    computeSets.add(Json{{"name", c.name},
                         {"vertices", c.numVertices},
                         {"tiles", c.numTiles},
                         {"costPerExecution", CostJson(c.staticCost)},
                         {"maxTileCycles", c.maxTileCycles},
                         {"meanTileCycles", c.meanTileCycles},
                         {"slowestTile", c.slowestTile},
                         {"executions", c.executions},
                         {"totalCycles", c.totalCycles},
                         {"vertexStateBytes", c.vertexStateBytes},
                         {"exchangeBufferBytes", c.exchangeBufferBytes},
                         {"flops", c.flops}});
  }
  ArrayText runs;
  for (const RunProfile& r : p.runs) {
    runs.add(Json{{"program", r.program},
                  {"name", r.name},
                  {"startCycle", r.startCycle},
                  {"stats", StatsJson(r.stats)}});
  }
  return ObjectText({
      {"target", Dump(Json{{"arch", p.arch},
                           {"chip", p.chip},
                           {"numIPUs", p.numIPUs},
                           {"replicationFactor", p.replicationFactor},
                           {"tilesPerIPU", p.tilesPerIPU},
                           {"bytesPerTile", p.bytesPerTile},
                           {"clockHz", p.clockHz}})},
      {"memory", ObjectText({{"tiles", std::move(tiles).close()},
                             {"tilesUsed", Dump(countTilesUsed(p.tileMemory))}})},
      {"liveness", std::move(liveness).close()},
      {"load", Dump(Json{{"bytes", p.load.bytes},
                         {"cycles", p.load.cycles},
                         {"seconds", p.load.seconds}})},
      {"programs", Dump(programs)},
      {"steps", std::move(steps).close()},
      {"computeSets", std::move(computeSets).close()},
      {"runs", std::move(runs).close()},
      {"total", Dump(StatsJson(p.total))},
      {"trace", std::move(trace).close()},
      {"droppedTraceEvents", Dump(p.droppedTraceEvents)},
  });
}

std::string profileToChromeTrace(const Profile& p) {
  const double usPerCycle = 1e6 / p.clockHz;
  const unsigned hostTrack = p.numIPUs;
  ArrayText events;
  auto track = [&](const char* kind, unsigned tid, const std::string& name) {
    events.add(Json{{"name", kind},
                    {"ph", "M"},
                    {"pid", 0},
                    {"tid", tid},
                    {"args", Json{{"name", name}}}});
  };
  track("process_name", 0, "IPU system (simulated)");
  for (unsigned i = 0; i < p.numIPUs; ++i) {
    track("thread_name", i, absl::StrCat("IPU ", i));
  }
  track("thread_name", hostTrack, "Host");
  auto event = [&](const std::string& name, const std::string& cat,
                   unsigned tid, uint64_t start, uint64_t cycles) {
    Json e = Json::object();
    e["name"] = name;
    e["cat"] = cat;
    e["ph"] = "X";
    e["pid"] = 0;
    e["tid"] = tid;
    e["ts"] = start * usPerCycle;
    e["dur"] = cycles * usPerCycle;
    e["args"]["cycles"] = cycles;
    events.add(e);
  };
  for (const RunProfile& r : p.runs) {
    event(absl::StrCat("run ", r.name), "Run", hostTrack, r.startCycle,
          r.stats.cycles);
  }
  for (const TraceEvent& e : p.trace) {
    const StepProfile& s = p.steps[e.step];
    const std::string& name = s.name.empty() ? s.kind : s.name;
    for (unsigned ipu : s.ipus) event(name, s.kind, ipu, e.startCycle, e.cycles);
  }
  return ObjectText({{"displayTimeUnit", Dump("ns")},
                     {"traceEvents", std::move(events).close()}});
}

}  // namespace poplar_sim
