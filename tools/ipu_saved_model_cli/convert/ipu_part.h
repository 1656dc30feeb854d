// The IPU part of a converted graph: the nodes the converters placed on the
// IPU, which merge_subgraphs makes one cluster and the loop-repeat wrapper
// compiles into one application.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_IPU_PART_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_IPU_PART_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// OK when no CPU node sits between IPU nodes (IPU -> CPU -> IPU), so the
// IPU part can be one program: CPU nodes before it (placeholders, excluded
// inputs) and after it (Int64Conversion's host casts of the outputs) are
// fine. Otherwise InvalidArgument naming the CPU node and the IPU nodes
// around it, prefixed with `who` (the option asking for one program).
absl::Status CheckIpuPartIsOneBlock(const GraphDef& graph, absl::string_view who);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_IPU_PART_H_
