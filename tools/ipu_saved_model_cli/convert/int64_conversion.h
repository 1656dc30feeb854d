// Int64Conversion (--int64_to_int32_conversion), the vendor converter's
// third rewrite: the IPU has no 64-bit integers, so every INT64 type attr
// (T, SrcT, DstT, Tindices, TI, dtype, and here also Tidx, Tshape, out_type
// and type lists, so that producers and consumers keep agreeing) becomes
// INT32, and INT64 constants are re-encoded as INT32 (a value int32 cannot
// hold is refused, naming the node and the value).
//
// Fixed defect: the original leaves the signature at INT64 while the graph
// expects INT32, so the converted model cannot be fed what the original
// was. Here the signature keeps its INT64 inputs and outputs, and the
// graph converts at its edges on the host: an int64 input placeholder
// keeps its type and feeds a Cast `<input>/ToInt32`; an int64 output gets
// a Cast `<output>/ToInt64` the signature then names. So the converted
// model runs with exactly the inputs the original model took and gives
// outputs of the same types, while everything between is INT32.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_INT64_CONVERSION_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_INT64_CONVERSION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class Int64Conversion : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<Int64Conversion>> Create(const ConvertOptions& options);

  absl::string_view name() const override { return "Int64Conversion"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  Int64Conversion() = default;
  bool enabled_ = false;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_INT64_CONVERSION_H_
