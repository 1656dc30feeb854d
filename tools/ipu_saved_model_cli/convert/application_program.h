// The loop-repeat wrapper's program: the IPU part of a converted graph,
// imported into an ipu::loops::repeat over an infeed of the tensors the
// CPU part gives it, sending the tensors it gives back to an outfeed, and
// compiled into an application executable (ipu/application_compile_op.h).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_APPLICATION_PROGRAM_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_APPLICATION_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.pb.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// Where the IPU part meets the rest: tensor names ("n:k").
struct IpuPartInterface {
  // Tensors of the CPU part the IPU part reads, in the order first read.
  std::vector<std::string> inputs;
  // Tensors of the IPU part that the CPU part or the signature reads.
  std::vector<std::string> outputs;
};

// True for the nodes the application computes: placed on the IPU and not a
// host-only op (a placeholder stays a placeholder).
bool InIpuPart(const Node& node);

absl::StatusOr<IpuPartInterface> FindIpuPartInterface(const Graph& graph,
                                                      const SignatureDef& signature);

// The application of `graph`'s IPU part, its loop running `iterations`
// times; a part the pipelining converter split into N >= 2 stages (its
// nodes carry their stage and IPU) becomes an inference pipeline
// (ipu::pipelining_ops::pipeline) over iterations x N micro-batches, the
// vendor's gradient_accumulation_count, each stage handing the next the
// tensors later stages read. An input's unknown first dimension becomes `batch_size`; another
// unknown dimension, or an unknown rank, is InvalidArgument naming the
// tensor. The signature's streamed tensors are named as `interface` names
// them.
absl::StatusOr<ApplicationExecutableProto> CompileIpuPart(const Graph& graph,
                                                         const IpuPartInterface& interface,
                                                         int64_t batch_size, int64_t iterations);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_APPLICATION_PROGRAM_H_
