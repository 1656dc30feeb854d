#include "tools/ipu_saved_model_cli/convert/pipeline/json_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// Records the first parse error instead of throwing it.
class ErrorRecordingSax : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  explicit ErrorRecordingSax(nlohmann::json& result)
      : nlohmann::detail::json_sax_dom_parser<nlohmann::json>(result, /*allow_exceptions=*/false) {}
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*ex*/) {
    if (error_position_ == std::string::npos) error_position_ = position;
    return false;
  }
  size_t error_position() const { return error_position_; }

 private:
  size_t error_position_ = std::string::npos;
};

}  // namespace

absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, const std::string& what) {
  nlohmann::json result;
  ErrorRecordingSax sax(result);
  const bool ok = nlohmann::json::sax_parse(text, &sax, nlohmann::json::input_format_t::json,
                                            /*strict=*/true);
  if (!ok || sax.error_position() != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is not valid JSON (error at byte ", sax.error_position(), ")"));
  }
  return result;
}

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat(what, " is not a readable file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(what, " is not a readable file"));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseJson(text.str(), what);
}

absl::Status WriteJsonFile(const std::string& path, const nlohmann::json& value) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create directory ", parent.string(), ": ", ec.message()));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

std::string JsonTypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_float:
      return "a number with a fraction";
    default:
      return "a number";
  }
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
