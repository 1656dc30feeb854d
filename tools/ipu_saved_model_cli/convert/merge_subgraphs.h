// MergeSubgraphs (--merge_subgraphs), the vendor converter's sixth rewrite
// (its IPUCompilerWrapper): all the IPU nodes become one compiled cluster,
// as if the IPU part had been built inside one ipu_compiler::compile call:
// they get the project's `_ipu_compile` attr (core/ipu_attrs.h) with one
// value, so the runtime compiles them into one engine instead of cutting
// the graph into clusters wherever it likes. As in the original, each
// signature output node n computed on the IPU is renamed `n/wrapped` and an
// IPU Identity named n (in the same cluster) reads it, so the signature
// still names n. No CPU node may sit between IPU nodes (IPU -> CPU -> IPU
// cannot be one cluster): such a node is refused, naming it and the IPU
// nodes around it; CPU nodes before the IPU part (excluded inputs) and
// after it (Int64Conversion's host casts of the outputs) are fine.
// Skipped when an embedded runtime is configured (the loop-repeat wrapper
// compiles the IPU part then).
//
// Fixed defect: the original's command line drops --merge_subgraphs (only
// a config file sets it); here the flag works.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MERGE_SUBGRAPHS_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MERGE_SUBGRAPHS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// The `_ipu_compile` value of the merged cluster.
inline constexpr char kMergedClusterName[] = "merged_ipu_subgraphs";

class MergeSubgraphs : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<MergeSubgraphs>> Create(const ConvertOptions& options);

  absl::string_view name() const override { return "IPUCompilerWrapper"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

 private:
  MergeSubgraphs() = default;
  bool enabled_ = false;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_MERGE_SUBGRAPHS_H_
