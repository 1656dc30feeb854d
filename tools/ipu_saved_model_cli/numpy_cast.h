// Converting an array to another element type as numpy's
// np.asarray(value, dtype=...) does, which is how TensorFlow's Python
// session converts a fed value to its placeholder's dtype (and how
// np.array(values, dtype=...) converts its values):
//
//   ASSIGN_OR_RETURN(Tensor x32, CastLikeNumpy(x64, DT_FLOAT, "input 'x'"));
//
// Floats round to the nearest narrower float (overflowing to +-inf, as
// numpy does), floats become integers by truncation toward zero, anything
// becomes bool as `value != 0`, bools become 0 and 1. Where numpy would
// silently produce a value other than the one given, this refuses with
// InvalidArgument naming `what` and the element: an integer that does not
// fit the target integer type (numpy wraps it) and a float that is NaN,
// infinite or out of the target integer type's range (numpy's result is
// undefined).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_NUMPY_CAST_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_NUMPY_CAST_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// `tensor` itself when it already has dtype `to`; a converted copy
// otherwise. InvalidArgument for strings and the values described above.
absl::StatusOr<Tensor> CastLikeNumpy(const Tensor& tensor, DataType to, absl::string_view what);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_NUMPY_CAST_H_
