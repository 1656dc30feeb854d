#include "tools/profile_viewer/view_data.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_replace.h"
#include "nlohmann/json.hpp"
#include "tools/profile_viewer/tile_bins.h"

namespace profile_viewer {
namespace {

using Json = nlohmann::ordered_json;

Json CostJson(const Cost& c) {
  return Json{{"cycles", c.cycles()},         {"compute", c.compute},
              {"exchange", c.exchange},       {"sync", c.sync},
              {"interIpu", c.interIpu},       {"host", c.host},
              {"control", c.control},         {"exchangeBytes", c.exchangeBytes},
              {"interIpuBytes", c.interIpuBytes}, {"hostBytesIn", c.hostBytesIn},
              {"hostBytesOut", c.hostBytesOut}, {"network", c.network},
              {"networkBytes", c.networkBytes}};
}

Json Summary(const Report& r) {
  TileBytes sum;
  uint64_t fullest = 0, fullestBytes = 0, over = 0, used = 0, alwaysLive = 0, flops = 0;
  for (const ComputeSet& c : r.computeSets) flops += c.flops * c.executions;
  for (size_t t = 0; t < r.tiles.size(); ++t) {
    const TileBytes& m = r.tiles[t];
    sum.variables += m.variables;
    sum.constants += m.constants;
    sum.vertexState += m.vertexState;
    sum.exchange += m.exchange;
    sum.code += m.code;
    sum.controlCode += m.controlCode;
    sum.notAlwaysLive += m.notAlwaysLive;
    alwaysLive += m.alwaysLive();
    if (m.total() > fullestBytes) {
      fullestBytes = m.total();
      fullest = t;
    }
    if (m.total() > r.bytesPerTile) ++over;
    // As poplar_sim counts a tile used: data or vertices, not control code.
    if (m.variables + m.constants + m.vertexState + m.vertexCode() > 0) ++used;
  }
  return Json{
      {"arch", r.arch},
      {"chip", r.chip},
      {"ipus", r.numIPUs},
      {"replicas", r.replicationFactor},
      {"tilesPerIpu", r.tilesPerIPU},
      {"tiles", r.tiles.size()},
      {"bytesPerTile", r.bytesPerTile},
      {"clockHz", r.clockHz},
      {"runs", r.runs},
      {"cycles", r.totalCycles},
      {"seconds", r.totalSeconds},
      {"overheadCycles", r.overheadCycles},
      {"cost", CostJson(r.totalCost)},
      {"flops", flops},
      {"loadBytes", r.loadBytes},
      {"loadSeconds", r.loadSeconds},
      {"memory",
       Json{{"total", sum.total()},
            {"capacity", r.bytesPerTile * r.tiles.size()},
            {"alwaysLive", alwaysLive},
            {"notAlwaysLive", sum.notAlwaysLive},
            {"variables", sum.variables},
            {"constants", sum.constants},
            {"vertexCode", sum.vertexCode()},
            {"controlCode", sum.controlCode},
            {"vertexState", sum.vertexState},
            {"exchange", sum.exchange}}},
      {"tilesUsed", used},
      {"tilesOverLimit", over},
      {"fullestTile", fullest},
      {"fullestTileBytes", fullestBytes},
      {"steps", r.steps.size()},
      {"computeSets", r.computeSets.size()},
      {"traceEvents", r.trace.size()},
      {"droppedTraceEvents", r.droppedTraceEvents},
  };
}

// The chart's categories, bottom to top; they add up to a tile's total.
Json CategoryColumns(const std::vector<const TileBytes*>& tiles) {
  Json alwaysLive = Json::array(), notAlwaysLive = Json::array(), vertexCode = Json::array(),
       controlCode = Json::array(), vertexState = Json::array(), exchange = Json::array();
  for (const TileBytes* m : tiles) {
    alwaysLive.push_back(m->alwaysLive());
    notAlwaysLive.push_back(m->notAlwaysLive);
    vertexCode.push_back(m->vertexCode());
    controlCode.push_back(m->controlCode);
    vertexState.push_back(m->vertexState);
    exchange.push_back(m->exchange);
  }
  return Json{{"alwaysLive", std::move(alwaysLive)},   {"notAlwaysLive", std::move(notAlwaysLive)},
              {"vertexCode", std::move(vertexCode)},   {"controlCode", std::move(controlCode)},
              {"vertexState", std::move(vertexState)}, {"exchange", std::move(exchange)}};
}

Json Memory(const Report& r, const ViewOptions& o) {
  std::vector<const TileBytes*> all;
  Json oom = Json::array();
  for (size_t t = 0; t < r.tiles.size(); ++t) {
    all.push_back(&r.tiles[t]);
    if (r.tiles[t].total() > r.bytesPerTile) oom.push_back(t);
  }
  const TileBinning binning = BinTiles(r.tiles, r.tilesPerIPU, r.bytesPerTile, o.maxTileBins);
  std::vector<const TileBytes*> fullest;
  Json first = Json::array(), count = Json::array(), fullestTile = Json::array(),
       mean = Json::array(), over = Json::array();
  for (const TileBin& b : binning.bins) {
    fullest.push_back(&b.fullest);
    first.push_back(b.firstTile);
    count.push_back(b.numTiles);
    fullestTile.push_back(b.fullestTile);
    mean.push_back(b.meanTotal);
    over.push_back(b.tilesOverLimit);
  }
  return Json{{"limit", r.bytesPerTile},
              {"tilesPerIpu", r.tilesPerIPU},
              {"tiles", CategoryColumns(all)},
              {"oomTiles", std::move(oom)},
              {"bins", Json{{"width", binning.width},
                            {"first", std::move(first)},
                            {"count", std::move(count)},
                            {"fullestTile", std::move(fullestTile)},
                            {"meanTotal", std::move(mean)},
                            {"tilesOverLimit", std::move(over)},
                            {"fullest", CategoryColumns(fullest)}}}};
}

Json Liveness(const Report& r) {
  uint64_t alwaysLive = 0;
  for (const TileBytes& m : r.tiles) alwaysLive += m.alwaysLive();
  Json step = Json::array(), bytes = Json::array();
  for (const LivenessPoint& p : r.liveness) {
    step.push_back(p.step);
    bytes.push_back(p.notAlwaysLiveBytes);
  }
  return Json{{"alwaysLiveBytes", alwaysLive}, {"step", std::move(step)}, {"bytes", std::move(bytes)}};
}

Json Steps(const Report& r) {
  const std::vector<std::string> stages = PipelineStages(r);
  Json parent = Json::array(), kind = Json::array(), name = Json::array(), ipus = Json::array(),
       executions = Json::array(), total = Json::array(), stage = Json::array();
  Json perExec = Json::object();
  for (const char* k : {"compute", "exchange", "sync", "interIpu", "host", "control"}) {
    perExec[k] = Json::array();
  }
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const Step& s = r.steps[i];
    parent.push_back(s.parent);
    kind.push_back(s.kind);
    name.push_back(s.name);
    ipus.push_back(s.ipus);
    executions.push_back(s.executions);
    total.push_back(s.totalCycles);
    stage.push_back(stages[i]);
    const Cost& c = s.costPerExecution;
    perExec["compute"].push_back(c.compute);
    perExec["exchange"].push_back(c.exchange);
    perExec["sync"].push_back(c.sync);
    perExec["interIpu"].push_back(c.interIpu);
    perExec["host"].push_back(c.host);
    perExec["control"].push_back(c.control);
  }
  return Json{{"parent", std::move(parent)},       {"kind", std::move(kind)},
              {"name", std::move(name)},           {"ipus", std::move(ipus)},
              {"perExecution", std::move(perExec)}, {"executions", std::move(executions)},
              {"totalCycles", std::move(total)},   {"stage", std::move(stage)}};
}

Json Trace(const Report& r) {
  Json step = Json::array(), start = Json::array(), cycles = Json::array();
  for (const TraceEvent& e : r.trace) {
    step.push_back(e.step);
    start.push_back(e.startCycle);
    cycles.push_back(e.cycles);
  }
  return Json{{"step", std::move(step)},
              {"start", std::move(start)},
              {"cycles", std::move(cycles)},
              {"dropped", r.droppedTraceEvents}};
}

Json Operations(const Report& r) {
  Json rows = Json::array();
  for (const ComputeSet& c : r.computeSets) {
    rows.push_back(Json{{"name", c.name},
                        {"executions", c.executions},
                        {"cyclesPerExecution", c.costPerExecution.cycles()},
                        {"totalCycles", c.totalCycles},
                        {"computeCycles", c.costPerExecution.compute},
                        {"exchangeCycles", c.costPerExecution.exchange},
                        {"syncCycles", c.costPerExecution.sync},
                        {"exchangeBytes", c.costPerExecution.exchangeBytes},
                        {"vertices", c.vertices},
                        {"tiles", c.tiles},
                        {"maxTileCycles", c.maxTileCycles},
                        {"meanTileCycles", c.meanTileCycles},
                        {"vertexStateBytes", c.vertexStateBytes},
                        {"exchangeBufferBytes", c.exchangeBufferBytes},
                        {"memoryBytes", c.vertexStateBytes + c.exchangeBufferBytes},
                        {"flopsPerExecution", c.flops},
                        {"totalFlops", c.flops * c.executions}});
  }
  return rows;
}

Json ReportView(const Report& r, const ViewOptions& o) {
  Json programs = Json::array();
  for (const Program& p : r.programs) {
    programs.push_back(Json{{"name", p.name}, {"rootStep", p.rootStep}});
  }
  return Json{{"source", r.source},         {"name", DisplayName(r.source)},
              {"summary", Summary(r)},     {"memory", Memory(r, o)},
              {"liveness", Liveness(r)},    {"steps", Steps(r)},         {"programs", programs},
              {"trace", Trace(r)},          {"operations", Operations(r)}};
}

}  // namespace

std::string DisplayName(const std::string& source) {
  size_t at = source.size();
  for (int parts = 0; parts < 3 && at != std::string::npos && at > 0; ++parts) {
    at = source.rfind('/', at - 1);
  }
  return at == std::string::npos ? source : source.substr(at + 1);
}

std::vector<std::string> PipelineStages(const Report& r) {
  // Steps come after their parents (report.h), so one pass in id order sees
  // each parent's stage before its children.
  std::vector<std::string> stage(r.steps.size());
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const Step& s = r.steps[i];
    const size_t at = s.name.find("pass of stage ");
    if (at != std::string::npos) {
      const size_t slash = s.name.rfind('/', at);
      stage[i] = s.name.substr(slash == std::string::npos ? 0 : slash + 1);
    } else if (s.parent >= 0) {
      stage[i] = stage[s.parent];
    }
  }
  return stage;
}

std::string ViewDataJson(const std::vector<Report>& reports, const ViewOptions& options) {
  Json views = Json::array();
  for (const Report& r : reports) views.push_back(ReportView(r, options));
  const std::string text =
      Json{{"reports", std::move(views)}}.dump(-1, ' ', false, Json::error_handler_t::replace);
  // Inside <script>, "</script" would end the element; "<\/" is the same
  // JSON string.
  return absl::StrReplaceAll(text, {{"</", "<\\/"}});
}

}  // namespace profile_viewer
