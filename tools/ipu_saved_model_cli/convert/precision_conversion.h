// PrecisionConversion (--precision_mode FP16|FP32|FP64), the vendor
// converter's fourth rewrite: the model computes in the given precision.
//
// 1. In every node not protected, the float and half type attrs (dtype, T,
//    Tparams, DstT, SrcT) become the target type, and float and half Const
//    values are converted to it. Protected: the nodes matching
//    --precision_conversion_excluded_nodes (regexes matched anywhere), and
//    the signature's input and output nodes, so the model is fed and
//    answers in its original types. A node whose op has no kernel for the
//    target type (its type attr does not allow it) is protected too, rather
//    than converted into a graph that does not load.
// 2. Wherever a node's input now carries another floating type than the
//    input expects (half into float, float into half, ...), a Cast named
//    `<node>/CastInsertion_<input index>` is inserted on the node's device.
//
// Fixed quirks: the original protects the I/O node names as unanchored
// regexes (output "mul" also protected "mul_1"); here only those nodes.
// The original guesses each input's type from attrs and carries one
// input's guess over to the next; here the types come from the ops'
// registered signatures, per input.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PRECISION_CONVERSION_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PRECISION_CONVERSION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class PrecisionConversion : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<PrecisionConversion>> Create(
      const ConvertOptions& options);

  absl::string_view name() const override { return "PrecisionConversion"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  PrecisionConversion() = default;

  DataType target_ = DT_INVALID;  // DT_INVALID: no precision_mode
  NodePatterns excluded_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PRECISION_CONVERSION_H_
