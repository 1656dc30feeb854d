#include "poplar_sim/option_flags.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace poplar_sim {

const std::string* OptionFlags::get(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

namespace {

class JsonObjectParser {
 public:
  explicit JsonObjectParser(absl::string_view s) : s_(s) {}

  absl::StatusOr<OptionFlags> Parse() {
    OptionFlags out;
    SkipSpace();
    if (!Eat('{')) return Error("expected '{'");
    SkipSpace();
    if (Eat('}')) return Finish(out);
    while (true) {
      SkipSpace();
      std::string key;
      if (!ParseString(&key)) return Error("expected a string key");
      SkipSpace();
      if (!Eat(':')) return Error("expected ':'");
      SkipSpace();
      std::string value;
      if (pos_ < s_.size() && s_[pos_] == '"') {
        if (!ParseString(&value)) return Error("bad string value");
      } else {
        size_t start = pos_;
        while (pos_ < s_.size() && (std::isalnum(s_[pos_]) || s_[pos_] == '.' ||
                                    s_[pos_] == '-' || s_[pos_] == '+')) {
          ++pos_;
        }
        if (start == pos_) return Error("expected a value");
        value = std::string(s_.substr(start, pos_ - start));
      }
      out.set(key, value);
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat('}')) return Finish(out);
      return Error("expected ',' or '}'");
    }
  }

 private:
  absl::StatusOr<OptionFlags> Finish(OptionFlags out) {
    SkipSpace();
    if (pos_ != s_.size()) return Error("trailing characters");
    return out;
  }
  absl::Status Error(absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid options JSON at character ", pos_, ": ", what, " in '", s_,
        "'; expected an object of strings such as "
        "{\"autoReport.all\":\"true\"}"));
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ParseString(std::string* out) {
    if (!Eat('"')) return false;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        char e = s_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          default: c = e;  // \" \\ \/
        }
      }
      out->push_back(c);
    }
    return Eat('"');
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<OptionFlags> parseOptionsJson(absl::string_view json) {
  return JsonObjectParser(json).Parse();
}

absl::StatusOr<bool> parseBoolOption(const std::string& key,
                                     const std::string& value) {
  std::string v = absl::AsciiStrToLower(value);
  if (v == "true") return true;
  if (v == "false") return false;
  return absl::InvalidArgumentError(absl::StrCat(
      "Option '", key, "' must be \"true\" or \"false\", not \"", value,
      "\""));
}

std::string EngineOptions::reportDirectory() const {
  if (autoReportSubdirectory.empty()) return autoReportDirectory;
  return (std::filesystem::path(autoReportDirectory) / autoReportSubdirectory)
      .string();
}

absl::StatusOr<EngineOptions> resolveEngineOptions(const OptionFlags& given) {
  OptionFlags merged = given;
  if (const char* env = std::getenv("POPLAR_ENGINE_OPTIONS")) {
    auto parsed = parseOptionsJson(env);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "POPLAR_ENGINE_OPTIONS: ", parsed.status().message()));
    }
    for (const auto& [k, v] : *parsed) merged.set(k, v);
  }
  EngineOptions o;
  for (const auto& [key, value] : merged) {
    absl::StatusOr<bool> b = false;
    if (key == "autoReport.all") {
      b = parseBoolOption(key, value);
      o.autoReportAll = b.value_or(false);
    } else if (key == "autoReport.outputExecutionProfile") {
      b = parseBoolOption(key, value);
      o.autoReportExecution = b.value_or(false);
    } else if (key == "autoReport.outputGraphProfile") {
      b = parseBoolOption(key, value);
      o.autoReportGraph = b.value_or(false);
    } else if (key == "autoReport.directory") {
      o.autoReportDirectory = value;
    } else if (key == "autoReport.subdirectory") {
      const std::filesystem::path sub(value);
      bool up = false;
      for (const auto& part : sub) up |= part == "..";
      if (sub.is_absolute() || up) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Option 'autoReport.subdirectory' must be a relative path inside "
            "autoReport.directory, not \"", value, "\""));
      }
      o.autoReportSubdirectory = value;
    } else if (key == "debug.allowOutOfMemory") {
      b = parseBoolOption(key, value);
      o.allowOutOfMemory = b.value_or(false);
    } else if (key == "debug.executeVerticesIndividually") {
      b = parseBoolOption(key, value);
      o.executeVerticesIndividually = b.value_or(false);
    } else if (key == "debug.checkVertexFields") {
      b = parseBoolOption(key, value);
      o.checkVertexFields = b.value_or(false);
    } else if (key == "debug.instrument") {
      // Accepted for compatibility: the simulator always counts cycles.
      b = parseBoolOption(key, value);
    } else if (key == "debug.maxTraceEvents") {
      if (!absl::SimpleAtoi(value, &o.maxTraceEvents)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Option 'debug.maxTraceEvents' must be a non-negative integer, "
            "not \"", value, "\""));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "Unrecognised engine option '", key,
          "'. Known options: autoReport.all, autoReport.directory, "
          "autoReport.outputExecutionProfile, autoReport.outputGraphProfile, "
          "autoReport.subdirectory, "
          "debug.allowOutOfMemory, debug.checkVertexFields, "
          "debug.executeVerticesIndividually, debug.instrument, "
          "debug.maxTraceEvents"));
    }
    if (!b.ok()) return b.status();
  }
  return o;
}

}  // namespace poplar_sim
