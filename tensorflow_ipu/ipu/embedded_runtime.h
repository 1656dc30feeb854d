// ipu::embedded_runtime: serving an application executable
// (ipu/application_compile_op.h) from a graph, as the vendor's
// ipu.embedded_runtime.
//
//   ASSIGN_OR_RETURN(ipu::embedded_runtime::RuntimeContext ctx,
//                    ipu::embedded_runtime::embedded_runtime_start(
//                        root, "app.poplar_exec", {}, "my_app"));
//   Output x = ops::Placeholder(root, DT_FLOAT, ...);
//   ASSIGN_OR_RETURN(std::vector<Output> y,
//                    ipu::embedded_runtime::embedded_runtime_call(root, {x}, ctx));
//   session.Run({{x, batch}}, {y[0]}, &out);  // from as many threads as you like
//
// Each Run of the call hands one element to the application; runs from
// concurrent threads are batched into one run of its loop on the simulated
// IPUs (runtime/ipu/application_engine.h), a lone run waits at most
// `timeout_us` for company. The engine starts on the first run of the start
// op (the call depends on it) and lives as long as the session.
//
// Both functions read the executable when the graph is built, as the
// vendor's do, and check the inputs against its signature in the vendor's
// words ("Mismatched input shape at position 0 ('x'). Expected [2], but
// input 0 has shape [3]."; a wrong count: "... expects 1 inputs, but 2 were
// provided."); runs check the values again. A file that is not an
// application executable: the reader's error (NotFound, InvalidArgument
// "... is not a TensorFlow Poplar binary.", DataLoss).
#ifndef TENSORFLOW_IPU_IPU_EMBEDDED_RUNTIME_H_
#define TENSORFLOW_IPU_IPU_EMBEDDED_RUNTIME_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.pb.h"

namespace tensorflow_ipu {
namespace ipu {
namespace embedded_runtime {

// The vendor's default wait for the next call, in microseconds.
inline constexpr int64_t kDefaultTimeoutUs = 5000;

class RuntimeContext {
 public:
  // The op that starts the engine (ApplicationRuntime's anchor).
  Output start_op() const { return anchor_; }
  const std::string& name() const { return name_; }
  const ApplicationSignature& signature() const {
    return exe_.embedded_runtime_config().signature();
  }
  std::vector<DataType> output_types() const;

 private:
  friend absl::StatusOr<RuntimeContext> embedded_runtime_start(
      const Scope&, const std::string&, const std::vector<Output>&, const std::string&, int64_t);
  Output anchor_;
  std::string name_;
  ApplicationExecutableProto exe_;
};

// Starts engine `name` for `executable_file`, whose non-streamed inputs
// (the program's placeholders, in their argument order) are `inputs`.
absl::StatusOr<RuntimeContext> embedded_runtime_start(const Scope& scope,
                                                      const std::string& executable_file,
                                                      const std::vector<Output>& inputs,
                                                      const std::string& name,
                                                      int64_t timeout_us = kDefaultTimeoutUs);
// The same with the inputs by name; a missing one is InvalidArgument
// "Failed to find input tensor with name 'n' in input dictionary.".
absl::StatusOr<RuntimeContext> embedded_runtime_start(const Scope& scope,
                                                      const std::string& executable_file,
                                                      const std::map<std::string, Output>& inputs,
                                                      const std::string& name,
                                                      int64_t timeout_us = kDefaultTimeoutUs);

// One call: `inputs` are one element of the application's infeed; the
// results are one element of its outfeed, with the executable's shapes.
absl::StatusOr<std::vector<Output>> embedded_runtime_call(const Scope& scope,
                                                          const std::vector<Output>& inputs,
                                                          const RuntimeContext& context);

// The vendor's embedded_runtime_stop: Unimplemented ("Embedded runtime
// doesn't support stopping an engine."); an engine stops with its session.
absl::Status embedded_runtime_stop(const RuntimeContext& context);

}  // namespace embedded_runtime
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_EMBEDDED_RUNTIME_H_
