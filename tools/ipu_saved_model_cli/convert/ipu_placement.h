// IPUPlacement, the vendor converter's second rewrite: every node but the
// Placeholders and the excluded nodes (--excluded_nodes, regexes matched
// anywhere in the name) goes on /device:IPU:0, with the XLA attrs the
// original sets. --no_ipu_placement turns it off.
//
// With --remove_excluded_nodes the graph keeps only its IPU part: the
// excluded nodes must form a complete CPU head (no CPU node may read an IPU
// node: "Please place <n> on CPU, a complete CPU head is required."), and
// each tensor going from the CPU part to the IPU part becomes a Placeholder
// named after it ("x:0" -> "x", "x:1" -> "x_1"), typed and shaped as the
// tensor, which together replace the signature's inputs (keyed by their
// names). A signature output the CPU part computes cannot be kept and is
// refused, naming it.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_IPU_PLACEMENT_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_IPU_PLACEMENT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class IpuPlacement : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<IpuPlacement>> Create(const ConvertOptions& options);

  absl::string_view name() const override { return "IPUPlacement"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  IpuPlacement() = default;

  bool enabled_ = true;
  bool remove_excluded_nodes_ = false;
  NodePatterns excluded_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_IPU_PLACEMENT_H_
