#include "poplar_sim/option_flags.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace poplar_sim {

const std::string* OptionFlags::get(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

namespace {

using Json = nlohmann::json;

// `s` with control characters and bytes outside ASCII as \xNN, so that an
// error message stays printable whatever the options held.
std::string Printable(absl::string_view s) {
  std::string out;
  for (const char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      absl::StrAppend(&out, "\\x", absl::Hex(u, absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Echoes (the start of) the options in an error.
std::string Quoted(absl::string_view json) {
  constexpr size_t kMaxEcho = 200;
  std::string echo = Printable(json.substr(0, kMaxEcho));
  if (json.size() > kMaxEcho) echo += "...";
  return absl::StrCat("'", echo, "'");
}

// Builds the flat map of options while nlohmann/json's parser reads the
// text, so that what the library accepts as JSON but the options do not
// (nested values, null, a key given twice, a number no double holds) is
// refused with the key that is wrong. The parser stops at the first false.
class OptionsSaxHandler : public nlohmann::json_sax<Json> {
 public:
  OptionFlags& flags() { return flags_; }
  const std::string& error() const { return error_; }

  bool null() override { return Refuse("null"); }
  bool boolean(bool v) override { return Value(v ? "true" : "false", "a boolean"); }
  bool number_integer(number_integer_t v) override {
    return Value(std::to_string(v), "a number");
  }
  bool number_unsigned(number_unsigned_t v) override {
    return Value(std::to_string(v), "a number");
  }
  // Kept as written: "1.50" stays "1.50". A number no double holds never
  // gets here: the parser refuses it ("number overflow").
  bool number_float(number_float_t, const string_t& text) override {
    return Value(text, "a number");
  }
  bool string(string_t& v) override { return Value(v, "a string"); }
  bool binary(binary_t&) override { return Refuse("binary data"); }
  bool start_object(std::size_t) override {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    return Refuse("an object");
  }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return Refuse("an array"); }
  bool end_array() override { return true; }
  bool key(string_t& k) override {
    if (flags_.has(k)) {
      error_ = absl::StrCat("option '", Printable(k),
                            "' is given twice; give each option once");
      return false;
    }
    key_ = k;
    inValue_ = true;
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& e) override {
    // what() is "[json.exception.parse_error.101] parse error at line 1,
    // column 6: ..."; the bracketed id means nothing to a user.
    absl::string_view what = e.what();
    const size_t close = what.find("] ");
    if (close != absl::string_view::npos) what.remove_prefix(close + 2);
    error_ = std::string(what);
    if (inValue_) {
      absl::StrAppend(&error_, " (the value of option '", Printable(key_), "')");
    }
    return false;
  }

 private:
  bool Value(const std::string& v, absl::string_view kind) {
    if (depth_ == 0) {
      error_ = absl::StrCat("the options are ", kind, ", not an object");
      return false;
    }
    flags_.set(key_, v);
    inValue_ = false;
    return true;
  }
  bool Refuse(absl::string_view kind) {
    error_ = depth_ == 0
                 ? absl::StrCat("the options are ", kind, ", not an object")
                 : absl::StrCat("option '", Printable(key_), "' is ",
                                kind, "; give a string, number or boolean");
    return false;
  }

  OptionFlags flags_;
  std::string key_;
  int depth_ = 0;
  bool inValue_ = false;  // after a key, until its value is read
  std::string error_;
};

}  // namespace

absl::StatusOr<OptionFlags> parseOptionsJson(absl::string_view json) {
  OptionsSaxHandler handler;
  if (!Json::sax_parse(json.begin(), json.end(), &handler)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid options JSON: ", handler.error(), ", in ", Quoted(json),
        "; expected an object of strings such as {\"autoReport.all\":\"true\"}"));
  }
  return std::move(handler.flags());
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
  const char* env = std::getenv("POPLAR_ENGINE_OPTIONS");
  // Set but empty (`POPLAR_ENGINE_OPTIONS= ./program`, the shell's way to
  // clear a variable for one command) means no options, as unset does.
  if (env != nullptr && !absl::StripAsciiWhitespace(env).empty()) {
    auto parsed = parseOptionsJson(env);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "POPLAR_ENGINE_OPTIONS: ", parsed.status().message()));
    }
    for (const auto& [k, v] : *parsed) merged.set(k, v);
  }
  return parseEngineOptions(merged);
}

absl::StatusOr<EngineOptions> parseEngineOptions(const OptionFlags& options) {
  EngineOptions o;
  for (const auto& [key, value] : options) {
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
    } else if (key == "debug.minLaneWork") {
      uint64_t work = 0;
      if (!absl::SimpleAtoi(value, &work)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Option 'debug.minLaneWork' must be a non-negative integer, "
            "not \"", value, "\""));
      }
      o.minLaneWork = work;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "Unrecognised engine option '", key,
          "'. Known options: autoReport.all, autoReport.directory, "
          "autoReport.outputExecutionProfile, autoReport.outputGraphProfile, "
          "autoReport.subdirectory, "
          "debug.allowOutOfMemory, debug.checkVertexFields, "
          "debug.executeVerticesIndividually, debug.instrument, "
          "debug.maxTraceEvents, debug.minLaneWork"));
    }
    if (!b.ok()) return b.status();
  }
  return o;
}

}  // namespace poplar_sim
