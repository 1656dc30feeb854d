// Reading and writing the small JSON files of pipelining (the solution
// file, pipeline_cfg) with the project's one JSON library, without
// exceptions: errors come back as absl::Status naming the file.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_JSON_FILE_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_JSON_FILE_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// The JSON value of `text`; InvalidArgument "<what> is not valid JSON" (with
// the byte offset of the error) otherwise. `what` names the source ("solution
// file /a/b.pipeconf").
absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, const std::string& what);

// ParseJson of the file's contents; NotFound if it cannot be read.
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path, const std::string& what);

// Writes `value` indented by 2, creating the parent directories;
// PermissionDenied / Internal naming the path if that fails.
absl::Status WriteJsonFile(const std::string& path, const nlohmann::json& value);

// The JSON type of `value` for messages ("a string", "an array", ...).
std::string JsonTypeName(const nlohmann::json& value);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_JSON_FILE_H_
