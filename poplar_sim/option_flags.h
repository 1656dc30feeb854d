// OptionFlags: string options for engines and libraries (poplar::OptionFlags),
// and the parsing of POPLAR_ENGINE_OPTIONS.
//
//   OptionFlags opts{{"autoReport.all", "true"},
//                    {"autoReport.directory", "./report"}};
//   Engine::create(graph, prog, opts);
//
// As with the vendor's SDK, the environment variable
//   POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"./r"}'
// adds engine options and overrides the ones given in code.
#ifndef POPLAR_SIM_OPTION_FLAGS_H_
#define POPLAR_SIM_OPTION_FLAGS_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace poplar_sim {

class OptionFlags {
 public:
  OptionFlags() = default;
  OptionFlags(std::initializer_list<std::pair<const std::string, std::string>>
                  init)
      : values_(init) {}

  void set(const std::string& key, const std::string& value) {
    values_[key] = value;
  }
  // nullptr if unset.
  const std::string* get(const std::string& key) const;
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  const std::map<std::string, std::string>& values() const { return values_; }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }

 private:
  std::map<std::string, std::string> values_;
};

// Parses a flat JSON object whose values are strings, numbers or booleans
// (non-strings are kept as their JSON text): {"a":"1","b":true}.
// InvalidArgument, saying what is wrong, for text that is not JSON (with the
// line and column of the first error; this includes strings that are not
// UTF-8), a document that is not an object, a value that is null, an object
// or an array (naming its key), a key given twice (naming it) and a number
// out of the range of a double (naming its key).
absl::StatusOr<OptionFlags> parseOptionsJson(absl::string_view json);

// The engine options this simulator understands, after merging `given` with
// POPLAR_ENGINE_OPTIONS (which wins). InvalidArgument for an unknown option
// or a bad value, naming it and the accepted ones.
struct EngineOptions {
  bool autoReportAll = false;
  bool autoReportExecution = false;  // autoReport.outputExecutionProfile
  bool autoReportGraph = false;      // autoReport.outputGraphProfile
  std::string autoReportDirectory = ".";
  // autoReport.subdirectory (not a Poplar option): reports go to
  // <autoReport.directory>/<autoReport.subdirectory>. A framework that builds
  // several engines in one process sets it per engine, so that their reports
  // do not overwrite each other while POPLAR_ENGINE_OPTIONS still chooses the
  // directory. A relative path without "..".
  std::string autoReportSubdirectory;
  bool allowOutOfMemory = false;            // debug.allowOutOfMemory
  bool executeVerticesIndividually = false; // debug.executeVerticesIndividually
  uint64_t maxTraceEvents = 100000;         // debug.maxTraceEvents
  // debug.minLaneWork (not a Poplar option): children of a sequence that
  // do not depend on each other run side by side on the host threads when
  // the work beside their longest chain of dependencies is at least this
  // much (flops of compute sets plus elements copied; below it a hand-off
  // to another thread costs more than it saves). Unset: the engine picks
  // 200,000, or more on a machine where hand-offs are slow or could not be
  // measured (host_handoff.h). Tests lower it to run small programs side by side.
  std::optional<uint64_t> minLaneWork;
  // debug.checkVertexFields: vertex-by-vertex execution bounds-checks
  // indexing of vector fields (see vertex.h). The project's tests turn it
  // on through POPLAR_ENGINE_OPTIONS; off by default (one branch per
  // index).
  bool checkVertexFields = false;

  // Where autoReport writes: the directory, joined with the subdirectory
  // when there is one.
  std::string reportDirectory() const;
};
absl::StatusOr<EngineOptions> resolveEngineOptions(const OptionFlags& given);
// The same for `options` alone, without POPLAR_ENGINE_OPTIONS: for checking
// options given in code before any engine is made.
absl::StatusOr<EngineOptions> parseEngineOptions(const OptionFlags& options);

// "true"/"false" (any case); InvalidArgument otherwise, naming `key`.
absl::StatusOr<bool> parseBoolOption(const std::string& key,
                                     const std::string& value);

}  // namespace poplar_sim

#endif  // POPLAR_SIM_OPTION_FLAGS_H_
