#include "tools/ipu_saved_model_cli/scan.h"

#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/unknown_field_set.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tools/ipu_saved_model_cli/show.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

const std::set<std::string>& Blacklist() {
  static const auto* ops = new std::set<std::string>{"WriteFile", "ReadFile", "PrintV2"};
  return *ops;
}

// TensorFlow's GraphDef.library, a field this project's proto does not
// declare, so it arrives as an unknown field.
constexpr int kTensorFlowLibraryField = 2;

// ['serve', 'gpu'], as Python prints the tags' list.
std::string PythonList(const MetaGraphDef& meta) {
  std::vector<std::string> tags;
  for (const std::string& t : meta.meta_info_def().tags()) tags.push_back("'" + t + "'");
  return "[" + absl::StrJoin(tags, ", ") + "]";
}

absl::Status ScanOne(const MetaGraphDef& meta, std::ostream& out) {
  const GraphDef& graph = meta.graph_def();
  const google::protobuf::UnknownFieldSet& unknown =
      graph.GetReflection()->GetUnknownFields(graph);
  for (int i = 0; i < unknown.field_count(); ++i) {
    if (unknown.field(i).number() == kTensorFlowLibraryField) {
      return absl::FailedPreconditionError(absl::StrCat(
          "MetaGraph with tag set ", PythonList(meta),
          " holds a TensorFlow function library, whose ops this scan cannot read; it cannot be "
          "called free of blacklisted ops"));
    }
  }
  std::set<std::string> found;
  auto check = [&](const NodeDef& n) {
    if (Blacklist().count(n.op())) found.insert(n.op());
  };
  for (const NodeDef& n : graph.node()) check(n);
  for (const FunctionGraphDef& f : graph.function()) {
    for (const NodeDef& n : f.node()) check(n);
  }
  if (found.empty()) {
    out << "MetaGraph with tag set " << PythonList(meta) << " does not contain blacklisted ops.\n";
  } else {
    std::vector<std::string> quoted;
    for (const std::string& op : found) quoted.push_back("'" + op + "'");
    out << "MetaGraph with tag set " << PythonList(meta)
        << " contains the following blacklisted ops: {" << absl::StrJoin(quoted, ", ") << "}\n";
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Scan(const ScanOptions& options, std::ostream& out) {
  std::ostringstream s;
  if (options.tag_set.has_value()) {
    ASSIGN_OR_RETURN(MetaGraphDef meta, ReadMetaGraphDef(options.dir, *options.tag_set));
    RETURN_IF_ERROR(ScanOne(meta, s));
  } else {
    ASSIGN_OR_RETURN(SavedModel saved_model, ReadSavedModel(options.dir));
    for (const MetaGraphDef& meta : saved_model.meta_graphs()) RETURN_IF_ERROR(ScanOne(meta, s));
  }
  out << s.str();
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
