// LoopRepeatWrapper (--embedded_runtime_save_config), the vendor
// converter's seventh rewrite: the IPU part of the graph is compiled into an
// application executable, `<embedded_runtime_exec_cachedir>/
// application.poplar_exec`, whose loop runs the part `batch_per_step` times
// (0 means 1) over an infeed; the graph then calls it through the embedded
// application runtime (ipu/embedded_runtime.h):
//
//   <CPU head> -> ApplicationCall(streamed inputs, ApplicationRuntime) -> <CPU tail>
//
// The CPU part stays as it is (placeholders, excluded nodes, the host casts
// of Int64Conversion); every tensor it gives the IPU part is a streamed
// input, every tensor of the IPU part that it or the signature reads a
// streamed output. A signature output computed on the IPU is an Identity
// named after its node (n, or n/output_k for output k > 0), so the
// signature's keys, dtypes and shapes are unchanged. Concurrent Runs of the
// converted model share runs of the loop; a lone Run waits at most
// `runtime_api_timeout_us` for company.
//
// The config must be a JSON object with "embedded_runtime_exec_cachedir"
// (a string) and "runtime_api_timeout_us" (an integer > 0); as in the
// original, merge_subgraphs must be off and int64_to_int32_conversion on
// (the errors are the original's). The engine name is "application-" and
// 16 hex digits of an MD5 of the graph converted, the executable's path,
// batch_size and batch_per_step, so converting twice gives the same graph
// (the original draws a uuid4). The executable's path is stored as
// given: a relative cachedir is relative to where the model is served.
//
// With pipeline_cfg, the pipelining converter runs first and this wraps its
// result: the stages run one after another on their IPUs for each element
// (sharded), not overlapped as a compiled pipeline would run them.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_LOOP_REPEAT_WRAPPER_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_LOOP_REPEAT_WRAPPER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tools/ipu_saved_model_cli/convert/convert_options.h"
#include "tools/ipu_saved_model_cli/convert/converter.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

class LoopRepeatWrapper : public Converter {
 public:
  static absl::StatusOr<std::unique_ptr<LoopRepeatWrapper>> Create(const ConvertOptions& options);

  absl::string_view name() const override { return "LoopRepeatWrapper"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

  // Where Apply writes the executable.
  const std::string& executable_path() const { return executable_path_; }

 private:
  LoopRepeatWrapper() = default;

  bool enabled_ = false;
  std::string cachedir_;
  std::string executable_path_;
  int64_t timeout_us_ = 0;
  int64_t batch_size_ = 1;
  int64_t batch_per_step_ = 1;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_LOOP_REPEAT_WRAPPER_H_
