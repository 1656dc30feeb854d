#include "tools/ipu_saved_model_cli/show.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/saved_model/loader.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// TensorFlow prints the enum's name: DT_FLOAT, DT_INT64, ...
std::string DataTypeEnumName(DataType dtype) {
  const std::string name = DataType_Name(dtype);
  return name.empty() ? absl::StrCat(static_cast<int>(dtype)) : name;
}

// (-1, 1), as TensorFlow 1.15 joins the dims: a 1-D shape is "(3)" and a
// scalar "()".
std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "unknown_rank";
  std::vector<int64_t> dims;
  for (const auto& d : shape.dim()) dims.push_back(d.size());
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

std::string Indent(int indent) { return std::string(2 * indent, ' '); }

void PrintTensorInfo(const TensorInfo& info, int indent, std::ostream& out) {
  const std::string in = Indent(indent);
  out << in << "    dtype: " << DataTypeEnumName(info.dtype()) << "\n";
  out << in << "    shape: " << ShapeString(info.tensor_shape()) << "\n";
  out << in << "    name: " << info.name() << "\n";
}

template <typename Map>
std::map<std::string, TensorInfo> Sorted(const Map& m) {
  return std::map<std::string, TensorInfo>(m.begin(), m.end());
}

void PrintInputsOutputs(const SignatureDef& sig, int indent, std::ostream& out) {
  const std::string in = Indent(indent);
  out << in << "The given SavedModel SignatureDef contains the following input(s):\n";
  for (const auto& [key, info] : Sorted(sig.inputs())) {
    out << in << "  inputs['" << key << "'] tensor_info:\n";
    PrintTensorInfo(info, indent + 1, out);
  }
  out << in << "The given SavedModel SignatureDef contains the following output(s):\n";
  for (const auto& [key, info] : Sorted(sig.outputs())) {
    out << in << "  outputs['" << key << "'] tensor_info:\n";
    PrintTensorInfo(info, indent + 1, out);
  }
  out << in << "Method name is: " << sig.method_name() << "\n";
}

std::vector<std::string> SortedSignatureKeys(const MetaGraphDef& meta) {
  std::vector<std::string> keys;
  for (const auto& [key, unused] : meta.signature_def()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

std::set<std::string> ParseTagSet(const std::string& tag_set) {
  std::vector<std::string> tags = absl::StrSplit(tag_set, ',');
  return std::set<std::string>(tags.begin(), tags.end());
}

absl::StatusOr<MetaGraphDef> ReadMetaGraphDef(const std::string& dir, const std::string& tag_set) {
  ASSIGN_OR_RETURN(SavedModel saved_model, ReadSavedModel(dir));
  return FindMetaGraphDef(saved_model, ParseTagSet(tag_set), dir);
}

absl::StatusOr<SignatureDef> FindSignatureDef(const MetaGraphDef& meta, const std::string& key) {
  auto it = meta.signature_def().find(key);
  if (it != meta.signature_def().end()) return it->second;
  const std::vector<std::string> keys = SortedSignatureKeys(meta);
  return absl::NotFoundError(absl::StrCat(
      "No SignatureDef with key '", key, "' found in MetaGraphDef. Its keys are: ",
      keys.empty() ? "none" : "\"" + absl::StrJoin(keys, "\", \"") + "\""));
}

absl::Status Show(const ShowOptions& options, std::ostream& out) {
  // Everything is gathered before printing, so an error prints nothing.
  std::ostringstream s;
  if (options.all) {
    ASSIGN_OR_RETURN(SavedModel saved_model, ReadSavedModel(options.dir));
    // Sorted as Python sorts the lists of tags; each printed in its order.
    std::vector<const MetaGraphDef*> metas;
    for (const MetaGraphDef& m : saved_model.meta_graphs()) metas.push_back(&m);
    auto tags = [](const MetaGraphDef* m) {
      return std::vector<std::string>(m->meta_info_def().tags().begin(),
                                      m->meta_info_def().tags().end());
    };
    std::stable_sort(metas.begin(), metas.end(),
                     [&](const MetaGraphDef* a, const MetaGraphDef* b) { return tags(a) < tags(b); });
    for (const MetaGraphDef* meta : metas) {
      s << "\nMetaGraphDef with tag-set: '" << absl::StrJoin(tags(meta), ", ")
        << "' contains the following SignatureDefs:\n";
      for (const std::string& key : SortedSignatureKeys(*meta)) {
        s << "\nsignature_def['" << key << "']:\n";
        PrintInputsOutputs(meta->signature_def().at(key), 1, s);
      }
    }
  } else if (!options.tag_set.has_value()) {
    ASSIGN_OR_RETURN(SavedModel saved_model, ReadSavedModel(options.dir));
    std::vector<std::string> tag_sets;
    for (const MetaGraphDef& m : saved_model.meta_graphs()) {
      std::vector<std::string> tags(m.meta_info_def().tags().begin(),
                                    m.meta_info_def().tags().end());
      std::sort(tags.begin(), tags.end());
      tag_sets.push_back(absl::StrJoin(tags, ", "));
    }
    std::sort(tag_sets.begin(), tag_sets.end());
    s << "The given SavedModel contains the following tag-sets:\n";
    for (const std::string& t : tag_sets) s << t << "\n";
  } else {
    ASSIGN_OR_RETURN(MetaGraphDef meta, ReadMetaGraphDef(options.dir, *options.tag_set));
    if (!options.signature_def.has_value()) {
      s << "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n";
      for (const std::string& key : SortedSignatureKeys(meta)) {
        s << "SignatureDef key: \"" << key << "\"\n";
      }
    } else {
      ASSIGN_OR_RETURN(SignatureDef sig, FindSignatureDef(meta, *options.signature_def));
      PrintInputsOutputs(sig, 0, s);
    }
  }
  out << s.str();
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
