#include "tools/ipu_saved_model_cli/convert/convert.h"

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/io/durable_file.h"
#include "tensorflow_ipu/saved_model/freeze.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tools/ipu_saved_model_cli/convert/converter_pipeline.h"
#include "tools/ipu_saved_model_cli/convert/graph_edit.h"
#include "tools/ipu_saved_model_cli/convert/md5sum.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// Writes `bytes` to `path` through a temporary file renamed into place, so
// a reader never sees half a file.
absl::Status WriteFile(const std::string& path, absl::string_view bytes) {
  ASSIGN_OR_RETURN(NewFile f, NewFile::Create(absl::StrCat(path, ".tmp-", UniqueFileSuffix())));
  RETURN_IF_ERROR(f.Append(bytes));
  RETURN_IF_ERROR(f.Finish());
  return RenameDurably(f.path(), path);
}

absl::Status CheckOutputDir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return absl::OkStatus();
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "--output_dir ", dir, " exists and is not a directory; choose another output directory"));
  }
  if (!std::filesystem::is_empty(dir, ec)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "Export directory already exists, and isn't empty. Please choose a different export "
        "directory, or delete all the contents of the specified directory: ", dir));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvertResult> Convert(const ConvertOptions& options, std::ostream& out) {
  RETURN_IF_ERROR(ValidateConvertOptions(options));
  if (options.dir.empty()) {
    return absl::InvalidArgumentError("convert needs --dir: the SavedModel to convert");
  }
  if (options.output_dir.empty()) {
    return absl::InvalidArgumentError(
        "convert needs --output_dir: where to write the converted SavedModel");
  }
  ASSIGN_OR_RETURN(ConverterList converters, BuildConverters(options));
  RETURN_IF_ERROR(CheckOutputDir(options.output_dir));

  std::set<std::string> tags;
  for (absl::string_view t : absl::StrSplit(options.tag_set, ',', absl::SkipEmpty())) {
    tags.insert(std::string(t));
  }
  SavedModelBundle loaded;
  RETURN_IF_ERROR(LoadSavedModel(SessionOptions(), RunOptions(), options.dir, tags, &loaded));
  FreezeOptions freeze;
  freeze.signature_key = kDefaultServingSignatureDefKey;
  freeze.device = "";  // IPUPlacement decides
  freeze.batch_size = options.batch_size;
  ASSIGN_OR_RETURN(SavedModelBundle frozen, FreezeSignature(loaded, SessionOptions(), freeze));

  MetaGraphDef meta = std::move(frozen.meta_graph_def);
  GraphDef graph = meta.graph_def();
  SignatureDef signature = meta.signature_def().at(kDefaultServingSignatureDefKey);
  RETURN_IF_ERROR(ApplyConverters(converters, &graph, &signature));
  {
    absl::StatusOr<std::unique_ptr<Graph>> check = Graph::FromGraphDef(graph);
    if (!check.ok()) {
      return absl::Status(check.status().code(),
                          absl::StrCat("the converted graph does not load: ",
                                       check.status().message()));
    }
  }

  SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  MetaGraphDef* converted = saved_model.add_meta_graphs();
  *converted->mutable_meta_info_def() = meta.meta_info_def();
  // The op list of the original graph no longer describes this one.
  converted->mutable_meta_info_def()->clear_stripped_op_list();
  *converted->mutable_graph_def() = std::move(graph);
  (*converted->mutable_signature_def())[kDefaultServingSignatureDefKey] = std::move(signature);
  // Deterministic (map entries sorted by key), so that converting the same
  // model twice gives the same file and the same md5sum.
  const std::string bytes = DeterministicBytes(saved_model);
  if (bytes.empty()) return absl::InternalError("the converted SavedModel does not serialize");

  ConvertResult result;
  result.saved_model_path = absl::StrCat(options.output_dir, "/", kSavedModelFilenamePb);
  result.params_path = absl::StrCat(options.output_dir, "/", kConversionParamsFilename);
  ASSIGN_OR_RETURN(result.md5sum, Md5Hex(bytes));
  nlohmann::json params = ConvertOptionsToJson(options);
  params["md5sum"] = result.md5sum;

  std::error_code ec;
  std::filesystem::create_directories(options.output_dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot create --output_dir ", options.output_dir, ": ", ec.message()));
  }
  RETURN_IF_ERROR(WriteFile(result.saved_model_path, bytes));
  RETURN_IF_ERROR(WriteFile(
      result.params_path,
      params.dump(4, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  out << "SavedModel written to: " << result.saved_model_path << "\n";
  out << "Conversion parameters written to: " << result.params_path << "\n";
  return result;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
