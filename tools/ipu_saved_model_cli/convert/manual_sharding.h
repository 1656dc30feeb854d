// ManualSharding (--manual_sharding), the vendor converter's fifth rewrite:
// one list of regexes per IPU; every node on the IPU whose name one of list
// i's regexes matches (anywhere) goes on shard i, a later list winning over
// an earlier one, and the other IPU nodes on shard 0.
//
// The shard is this project's `_ipu_shard` attr (core/ipu_attrs.h, what
// ipu::scopes::ipu_shard sets), not the XLA sharding proto the original
// writes: the runtime places each shard's ops on its IPU of the
// /device:IPU:0 device configured with num_ipus IPUs.
//
// Errors: `The length of manual_sharding (N) should be equal to num_ipus
// (M).` (at creation); `No ops placed on IPU device to shard.`
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MANUAL_SHARDING_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MANUAL_SHARDING_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class ManualSharding : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<ManualSharding>> Create(const ConvertOptions& options);

  absl::string_view name() const override { return "ManualSharding"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  ManualSharding() = default;
  std::vector<NodePatterns> shards_;  // empty: no sharding
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MANUAL_SHARDING_H_
