#include "tools/profile_viewer/report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "tensorflow_ipu/core/status_macros.h"

namespace profile_viewer {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// Reads fields of the parsed report with their types checked first (the
// library's get<T>() throws on a wrong type). The first error is kept and
// later reads return zeros, so that a reader checks once at the end.
class FieldReader {
 public:
  explicit FieldReader(std::string source) : source_(std::move(source)) {}

  const Json* Member(const Json& obj, const char* key, const std::string& where,
                     bool required = true) {
    if (!obj.is_object()) {
      Fail(absl::StrCat(where, " is not a JSON object"));
      return nullptr;
    }
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) Fail(absl::StrCat("field '", where, ".", key, "' is missing"));
      return nullptr;
    }
    return &*it;
  }

  uint64_t U64(const Json& obj, const char* key, const std::string& where,
               bool required = true) {
    const Json* v = Member(obj, key, where, required);
    if (v == nullptr) return 0;
    if (!v->is_number_unsigned()) {
      Fail(absl::StrCat("field '", where, ".", key, "' is ", v->type_name(),
                        ", not a non-negative integer"));
      return 0;
    }
    return v->get<uint64_t>();
  }

  int64_t I64(const Json& obj, const char* key, const std::string& where) {
    const Json* v = Member(obj, key, where);
    if (v == nullptr) return 0;
    if (!v->is_number_integer()) {
      Fail(absl::StrCat("field '", where, ".", key, "' is ", v->type_name(),
                        ", not an integer"));
      return 0;
    }
    return v->get<int64_t>();
  }

  double F64(const Json& obj, const char* key, const std::string& where) {
    const Json* v = Member(obj, key, where);
    if (v == nullptr) return 0;
    if (!v->is_number()) {
      Fail(absl::StrCat("field '", where, ".", key, "' is ", v->type_name(), ", not a number"));
      return 0;
    }
    return v->get<double>();
  }

  std::string Str(const Json& obj, const char* key, const std::string& where) {
    const Json* v = Member(obj, key, where);
    if (v == nullptr) return "";
    if (!v->is_string()) {
      Fail(absl::StrCat("field '", where, ".", key, "' is ", v->type_name(), ", not a string"));
      return "";
    }
    return v->get<std::string>();
  }

  // The array `key` of `obj`, or nullptr (an error unless optional).
  const Json* Array(const Json& obj, const char* key, const std::string& where,
                    bool required = true) {
    const Json* v = Member(obj, key, where, required);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      Fail(absl::StrCat("field '", where, ".", key, "' is ", v->type_name(), ", not an array"));
      return nullptr;
    }
    return v;
  }

  Cost ReadCost(const Json& obj, const char* key, const std::string& where) {
    Cost c;
    const Json* v = Member(obj, key, where);
    if (v == nullptr) return c;
    const std::string w = absl::StrCat(where, ".", key);
    c.compute = U64(*v, "computeCycles", w);
    c.exchange = U64(*v, "exchangeCycles", w);
    c.sync = U64(*v, "syncCycles", w);
    c.interIpu = U64(*v, "interIpuCycles", w);
    c.host = U64(*v, "hostCycles", w);
    c.control = U64(*v, "controlCycles", w);
    c.network = U64(*v, "networkCycles", w, /*required=*/false);
    c.networkBytes = U64(*v, "networkBytes", w, /*required=*/false);
    c.exchangeBytes = U64(*v, "exchangeBytes", w);
    c.interIpuBytes = U64(*v, "interIpuBytes", w);
    c.hostBytesIn = U64(*v, "hostBytesToDevice", w);
    c.hostBytesOut = U64(*v, "hostBytesFromDevice", w);
    return c;
  }

  void Fail(const std::string& message) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat("Report '", source_, "': ", message,
                       "; is it a profile.json written by poplar_sim (autoReport)?"));
    }
  }
  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }

 private:
  std::string source_;
  absl::Status status_;
};

void ReadTarget(FieldReader& f, const Json& root, Report& r) {
  const Json* t = f.Member(root, "target", "report");
  if (t == nullptr) return;
  r.arch = f.Str(*t, "arch", "target");
  r.chip = f.Str(*t, "chip", "target");
  r.numIPUs = static_cast<unsigned>(f.U64(*t, "numIPUs", "target"));
  r.replicationFactor = static_cast<unsigned>(f.U64(*t, "replicationFactor", "target"));
  r.tilesPerIPU = static_cast<unsigned>(f.U64(*t, "tilesPerIPU", "target"));
  r.bytesPerTile = f.U64(*t, "bytesPerTile", "target");
  r.clockHz = f.F64(*t, "clockHz", "target");
}

void ReadMemory(FieldReader& f, const Json& root, Report& r) {
  const Json* m = f.Member(root, "memory", "report");
  if (m == nullptr) return;
  const Json* tiles = f.Array(*m, "tiles", "memory");
  if (tiles == nullptr) return;
  r.tiles.reserve(tiles->size());
  for (size_t i = 0; i < tiles->size() && f.ok(); ++i) {
    const Json& t = (*tiles)[i];
    const std::string w = absl::StrCat("memory.tiles[", i, "]");
    TileBytes b;
    b.variables = f.U64(t, "variables", w);
    b.constants = f.U64(t, "constants", w);
    b.vertexState = f.U64(t, "vertexState", w);
    b.exchange = f.U64(t, "exchange", w);
    b.code = f.U64(t, "code", w);
    b.controlCode = f.U64(t, "controlCode", w);
    b.notAlwaysLive = f.U64(t, "notAlwaysLive", w, /*required=*/false);
    if (f.ok() && (b.controlCode > b.code || b.notAlwaysLive > b.variables)) {
      f.Fail(absl::StrCat(w, " has a part larger than its whole (controlCode > code or "
                             "notAlwaysLive > variables)"));
    }
    r.tiles.push_back(b);
  }
  if (f.ok() && r.tiles.size() != uint64_t{r.numIPUs} * r.tilesPerIPU) {
    f.Fail(absl::StrCat("memory.tiles has ", r.tiles.size(), " tiles, but the target has ",
                        r.numIPUs, " IPUs x ", r.tilesPerIPU, " tiles"));
  }
}

void ReadSteps(FieldReader& f, const Json& root, Report& r) {
  if (const Json* programs = f.Array(root, "programs", "report")) {
    for (size_t i = 0; i < programs->size() && f.ok(); ++i) {
      const std::string w = absl::StrCat("programs[", i, "]");
      Program p;
      p.name = f.Str((*programs)[i], "name", w);
      p.rootStep = static_cast<unsigned>(f.U64((*programs)[i], "rootStep", w));
      r.programs.push_back(std::move(p));
    }
  }
  const Json* steps = f.Array(root, "steps", "report");
  if (steps == nullptr) return;
  r.steps.reserve(steps->size());
  for (size_t i = 0; i < steps->size() && f.ok(); ++i) {
    const Json& s = (*steps)[i];
    const std::string w = absl::StrCat("steps[", i, "]");
    Step st;
    st.id = static_cast<unsigned>(f.U64(s, "id", w));
    st.parent = static_cast<int>(f.I64(s, "parent", w));
    st.kind = f.Str(s, "kind", w);
    st.name = f.Str(s, "name", w);
    if (const Json* ipus = f.Array(s, "ipus", w)) {
      for (const Json& ipu : *ipus) {
        if (!ipu.is_number_unsigned() || ipu.get<uint64_t>() >= r.numIPUs) {
          f.Fail(absl::StrCat(w, ".ipus holds ", ipu.dump(), ", not an IPU below ", r.numIPUs));
          break;
        }
        st.ipus.push_back(ipu.get<unsigned>());
      }
    }
    st.costPerExecution = f.ReadCost(s, "costPerExecution", w);
    st.executions = f.U64(s, "executions", w);
    st.totalCycles = f.U64(s, "totalCycles", w);
    if (f.ok() && (st.id != i || st.parent >= static_cast<int>(i) || st.parent < -1)) {
      f.Fail(absl::StrCat(w, " has id ", st.id, " and parent ", st.parent,
                          "; steps must be in id order, each after its parent"));
    }
    r.steps.push_back(std::move(st));
  }
  for (const Program& p : r.programs) {
    if (f.ok() && p.rootStep >= r.steps.size()) {
      f.Fail(absl::StrCat("program '", p.name, "' has root step ", p.rootStep, " of ",
                          r.steps.size()));
    }
  }
}

void ReadComputeSets(FieldReader& f, const Json& root, Report& r) {
  const Json* sets = f.Array(root, "computeSets", "report");
  if (sets == nullptr) return;
  for (size_t i = 0; i < sets->size() && f.ok(); ++i) {
    const Json& c = (*sets)[i];
    const std::string w = absl::StrCat("computeSets[", i, "]");
    ComputeSet cs;
    cs.name = f.Str(c, "name", w);
    cs.vertices = f.U64(c, "vertices", w);
    cs.tiles = f.U64(c, "tiles", w);
    cs.costPerExecution = f.ReadCost(c, "costPerExecution", w);
    cs.maxTileCycles = f.U64(c, "maxTileCycles", w);
    cs.meanTileCycles = f.U64(c, "meanTileCycles", w);
    cs.executions = f.U64(c, "executions", w);
    cs.totalCycles = f.U64(c, "totalCycles", w);
    cs.vertexStateBytes = f.U64(c, "vertexStateBytes", w, /*required=*/false);
    cs.exchangeBufferBytes = f.U64(c, "exchangeBufferBytes", w, /*required=*/false);
    cs.flops = f.U64(c, "flops", w, /*required=*/false);
    r.computeSets.push_back(std::move(cs));
  }
}

void ReadExecution(FieldReader& f, const Json& root, Report& r) {
  if (const Json* load = f.Member(root, "load", "report")) {
    r.loadBytes = f.U64(*load, "bytes", "load");
    r.loadSeconds = f.F64(*load, "seconds", "load");
  }
  if (const Json* runs = f.Array(root, "runs", "report")) r.runs = runs->size();
  if (const Json* total = f.Member(root, "total", "report")) {
    r.runs = f.U64(*total, "runs", "total");
    r.totalCycles = f.U64(*total, "cycles", "total");
    r.totalSeconds = f.F64(*total, "seconds", "total");
    r.overheadCycles = f.U64(*total, "overheadCycles", "total");
    r.totalCost = f.ReadCost(*total, "breakdown", "total");
  }
  if (const Json* live = f.Array(root, "liveness", "report", /*required=*/false)) {
    r.liveness.reserve(live->size());
    for (size_t i = 0; i < live->size() && f.ok(); ++i) {
      const std::string w = absl::StrCat("liveness[", i, "]");
      LivenessPoint p;
      p.step = static_cast<unsigned>(f.U64((*live)[i], "step", w));
      p.notAlwaysLiveBytes = f.U64((*live)[i], "notAlwaysLiveBytes", w);
      if (f.ok() && p.step >= r.steps.size()) f.Fail(absl::StrCat(w, " names unknown step ", p.step));
      r.liveness.push_back(p);
    }
  }
  if (const Json* trace = f.Array(root, "trace", "report", /*required=*/false)) {
    r.trace.reserve(trace->size());
    for (size_t i = 0; i < trace->size() && f.ok(); ++i) {
      const std::string w = absl::StrCat("trace[", i, "]");
      TraceEvent e;
      e.step = static_cast<unsigned>(f.U64((*trace)[i], "step", w));
      e.startCycle = f.U64((*trace)[i], "startCycle", w);
      e.cycles = f.U64((*trace)[i], "cycles", w);
      if (f.ok() && e.step >= r.steps.size()) f.Fail(absl::StrCat(w, " names unknown step ", e.step));
      r.trace.push_back(e);
    }
  }
  r.droppedTraceEvents = f.U64(root, "droppedTraceEvents", "report", /*required=*/false);
}

}  // namespace

absl::StatusOr<Report> ParseReport(const std::string& text, const std::string& source) {
  // parse() with allow_exceptions = false returns a discarded value instead
  // of throwing.
  const Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Report '", source, "' is not valid JSON (is the file complete? the engine rewrites "
        "profile.json after every run)"));
  }
  FieldReader f(source);
  Report r;
  r.source = source;
  ReadTarget(f, root, r);
  ReadMemory(f, root, r);
  ReadSteps(f, root, r);
  ReadComputeSets(f, root, r);
  ReadExecution(f, root, r);
  if (!f.ok()) return f.status();
  return r;
}

absl::StatusOr<std::string> FindReportFile(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_regular_file(p, ec)) return path;
  if (!fs::is_directory(p, ec)) {
    return absl::NotFoundError(absl::StrCat(
        "No report at '", path, "': give a profile.json or the autoReport directory holding it"));
  }
  if (fs::is_regular_file(p / "profile.json", ec)) return (p / "profile.json").string();
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator(p, ec)) {
    if (e.is_directory(ec) && fs::is_regular_file(e.path() / "profile.json", ec)) {
      found.push_back((e.path() / "profile.json").string());
    }
  }
  std::sort(found.begin(), found.end());
  if (found.size() == 1) return found[0];
  if (found.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "No profile.json in '", path, "' or its subdirectories; run the program with "
        "POPLAR_ENGINE_OPTIONS='{\"autoReport.all\":\"true\",\"autoReport.directory\":\"",
        path, "\"}' first"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", path, "' holds ", found.size(), " reports (one per cluster): ",
      absl::StrJoin(found, ", "), "; pass one of them"));
}

absl::StatusOr<Report> LoadReport(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string file, FindReportFile(path));
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in.is_open()) text << in.rdbuf();
  if (!in.is_open() || in.bad()) {
    return absl::NotFoundError(absl::StrCat("Cannot read report '", file, "'"));
  }
  return ParseReport(text.str(), file);
}

}  // namespace profile_viewer
