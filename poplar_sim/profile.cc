#include "poplar_sim/profile.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace poplar_sim {

StepCost& StepCost::operator+=(const StepCost& o) {
  computeCycles += o.computeCycles;
  exchangeCycles += o.exchangeCycles;
  syncCycles += o.syncCycles;
  interIpuCycles += o.interIpuCycles;
  hostCycles += o.hostCycles;
  controlCycles += o.controlCycles;
  exchangeBytes += o.exchangeBytes;
  interIpuBytes += o.interIpuBytes;
  hostBytesToDevice += o.hostBytesToDevice;
  hostBytesFromDevice += o.hostBytesFromDevice;
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

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string CostJson(const StepCost& c) {
  return absl::StrCat(
      "{\"cycles\":", c.cycles(), ",\"computeCycles\":", c.computeCycles,
      ",\"exchangeCycles\":", c.exchangeCycles, ",\"syncCycles\":",
      c.syncCycles, ",\"interIpuCycles\":", c.interIpuCycles,
      ",\"hostCycles\":", c.hostCycles, ",\"controlCycles\":",
      c.controlCycles, ",\"exchangeBytes\":", c.exchangeBytes,
      ",\"interIpuBytes\":", c.interIpuBytes, ",\"hostBytesToDevice\":",
      c.hostBytesToDevice, ",\"hostBytesFromDevice\":", c.hostBytesFromDevice,
      "}");
}

std::string StatsJson(const RunStats& s) {
  return absl::StrCat("{\"runs\":", s.runs, ",\"cycles\":", s.cycles,
                      ",\"seconds\":", absl::StrFormat("%.9g", s.seconds),
                      ",\"overheadCycles\":", s.overheadCycles,
                      ",\"breakdown\":", CostJson(s.cost), "}");
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

  TileMemory sum;
  uint64_t maxTile = 0;
  unsigned maxTileId = 0, over = 0;
  for (unsigned t = 0; t < p.tileMemory.size(); ++t) {
    const TileMemory& m = p.tileMemory[t];
    sum.variables += m.variables;
    sum.constants += m.constants;
    sum.vertexState += m.vertexState;
    sum.exchange += m.exchange;
    sum.code += m.code;
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
  os << "    run overhead: " << s.overheadCycles << " ("
     << Percent(s.overheadCycles, c) << ")\n";
  os << "  Bytes: exchange " << s.cost.exchangeBytes << ", inter-IPU "
     << s.cost.interIpuBytes << ", host->device " << s.cost.hostBytesToDevice
     << ", device->host " << s.cost.hostBytesFromDevice << "\n";

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

std::string profileToJson(const Profile& p) {
  std::ostringstream os;
  os << "{\"target\":{\"arch\":" << JsonString(p.arch)
     << ",\"chip\":" << JsonString(p.chip) << ",\"numIPUs\":" << p.numIPUs
     << ",\"tilesPerIPU\":" << p.tilesPerIPU
     << ",\"bytesPerTile\":" << p.bytesPerTile
     << ",\"clockHz\":" << absl::StrFormat("%.6g", p.clockHz) << "}";
  os << ",\"memory\":{\"tiles\":[";
  for (size_t t = 0; t < p.tileMemory.size(); ++t) {
    const TileMemory& m = p.tileMemory[t];
    os << (t ? "," : "") << "{\"tile\":" << t << ",\"total\":" << m.total()
       << ",\"variables\":" << m.variables << ",\"constants\":" << m.constants
       << ",\"vertexState\":" << m.vertexState << ",\"exchange\":"
       << m.exchange << ",\"code\":" << m.code << "}";
  }
  os << "]}";
  os << ",\"load\":{\"bytes\":" << p.load.bytes << ",\"cycles\":"
     << p.load.cycles << ",\"seconds\":"
     << absl::StrFormat("%.9g", p.load.seconds) << "}";
  os << ",\"programs\":[";
  for (size_t i = 0; i < p.programRoots.size(); ++i) {
    os << (i ? "," : "") << "{\"index\":" << i << ",\"name\":"
       << JsonString(p.programNames[i]) << ",\"rootStep\":"
       << p.programRoots[i] << "}";
  }
  os << "],\"steps\":[";
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const StepProfile& s = p.steps[i];
    os << (i ? "," : "") << "{\"id\":" << s.id << ",\"parent\":" << s.parent
       << ",\"kind\":" << JsonString(s.kind) << ",\"name\":"
       << JsonString(s.name) << ",\"ipus\":[" << absl::StrJoin(s.ipus, ",")
       << "],\"costPerExecution\":" << CostJson(s.staticCost)
       << ",\"executions\":" << s.executions << ",\"totalCycles\":"
       << s.totalCycles << "}";
  }
  os << "],\"computeSets\":[";
  for (size_t i = 0; i < p.computeSets.size(); ++i) {
    const ComputeSetProfile& c = p.computeSets[i];
    os << (i ? "," : "") << "{\"name\":" << JsonString(c.name)
       << ",\"vertices\":" << c.numVertices << ",\"tiles\":" << c.numTiles
       << ",\"costPerExecution\":" << CostJson(c.staticCost)
       << ",\"maxTileCycles\":" << c.maxTileCycles
       << ",\"meanTileCycles\":" << c.meanTileCycles
       << ",\"slowestTile\":" << c.slowestTile
       << ",\"executions\":" << c.executions
       << ",\"totalCycles\":" << c.totalCycles << "}";
  }
  os << "],\"runs\":[";
  for (size_t i = 0; i < p.runs.size(); ++i) {
    const RunProfile& r = p.runs[i];
    os << (i ? "," : "") << "{\"program\":" << r.program << ",\"name\":"
       << JsonString(r.name) << ",\"startCycle\":" << r.startCycle
       << ",\"stats\":" << StatsJson(r.stats) << "}";
  }
  os << "],\"total\":" << StatsJson(p.total)
     << ",\"droppedTraceEvents\":" << p.droppedTraceEvents << "}";
  return os.str();
}

std::string profileToChromeTrace(const Profile& p) {
  std::ostringstream os;
  const double usPerCycle = 1e6 / p.clockHz;
  const unsigned hostTrack = p.numIPUs;
  os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  os << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
        "\"args\":{\"name\":\"IPU system (simulated)\"}}";
  for (unsigned i = 0; i < p.numIPUs; ++i) {
    os << ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" << i
       << ",\"args\":{\"name\":\"IPU " << i << "\"}}";
  }
  os << ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":"
     << hostTrack << ",\"args\":{\"name\":\"Host\"}}";
  auto event = [&](const std::string& name, const std::string& cat,
                   unsigned tid, uint64_t start, uint64_t cycles) {
    os << ",{\"name\":" << JsonString(name) << ",\"cat\":" << JsonString(cat)
       << ",\"ph\":\"X\",\"pid\":0,\"tid\":" << tid << ",\"ts\":"
       << absl::StrFormat("%.4f", start * usPerCycle) << ",\"dur\":"
       << absl::StrFormat("%.4f", cycles * usPerCycle)
       << ",\"args\":{\"cycles\":" << cycles << "}}";
  };
  for (const RunProfile& r : p.runs) {
    event(absl::StrCat("run ", r.name), "Run", hostTrack, r.startCycle,
          r.stats.cycles);
  }
  for (const TraceEvent& e : p.trace) {
    const StepProfile& s = p.steps[e.step];
    const std::string name = s.name.empty() ? s.kind : s.name;
    for (unsigned ipu : s.ipus) event(name, s.kind, ipu, e.startCycle, e.cycles);
  }
  os << "]}";
  return os.str();
}

}  // namespace poplar_sim
