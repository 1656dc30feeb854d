// `ipu_saved_model_cli show`: what a SavedModel contains, printed as
// TensorFlow 1.15's saved_model_cli prints it:
//
//   show --dir D                        the tag-sets
//   show --dir D --tag_set serve        the SignatureDef keys of that MetaGraphDef
//   show --dir D --tag_set serve --signature_def serving_default
//                                       the signature's inputs, outputs and method
//   show --dir D --all                  every MetaGraphDef and signature
//
// For example, for TensorFlow Serving's half_plus_two:
//
//   The given SavedModel SignatureDef contains the following input(s):
//     inputs['x'] tensor_info:
//         dtype: DT_FLOAT
//         shape: (-1, 1)
//         name: x:0
//   ...
//   Method name is: tensorflow/serving/predict
//
// --tag_set is a comma-separated set (order does not matter). Errors:
// NotFound for a missing saved_model.pb, a tag-set or a signature key that
// is not there (TensorFlow's words, then what there is).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_SHOW_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_SHOW_H_

#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct ShowOptions {
  std::string dir;
  bool all = false;
  std::optional<std::string> tag_set;
  std::optional<std::string> signature_def;
};

// Prints what `options` asks for to `out`. Nothing is printed on error.
absl::Status Show(const ShowOptions& options, std::ostream& out);

// "serve,gpu" -> {"gpu", "serve"}, as TensorFlow's tag_set.split(',').
std::set<std::string> ParseTagSet(const std::string& tag_set);

// The MetaGraphDef of the SavedModel in `dir` with `tag_set`.
absl::StatusOr<MetaGraphDef> ReadMetaGraphDef(const std::string& dir, const std::string& tag_set);

// The signature `key` of `meta`; NotFound in TensorFlow's words
// ("No SignatureDef with key 'k' found in MetaGraphDef.") with the keys
// there are.
absl::StatusOr<SignatureDef> FindSignatureDef(const MetaGraphDef& meta, const std::string& key);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_SHOW_H_
