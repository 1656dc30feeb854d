// ipu::application_compile_op: compiling a program ahead of time into an
// application executable that the embedded application runtime serves
// (ipu/embedded_runtime.h), as the vendor's
// ipu.ops.application_compile_op.experimental_application_compile_op.
//
//   ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed, ipu::IPUInfeedQueue::Create(shapes_only, "in"));
//   ipu::IPUOutfeedQueue outfeed("out");
//   auto program = [&](const Scope& s) -> ipu::ComputationOutputs {
//     auto body = [&](const Scope& b, const std::vector<Output>&,
//                     const std::vector<Output>& x) -> ipu::ComputationOutputs {
//       return {outfeed.enqueue(b, {ops::Mul(b, x[0], 2.f)})};
//     };
//     Scope ipu = ipu::scopes::ipu_scope(s, "/device:IPU:0");
//     absl::StatusOr<std::vector<Output>> loop = ipu::loops::repeat(ipu, 8, body, {}, &infeed);
//     if (!loop.ok()) { s.UpdateStatus(loop.status()); return {}; }
//     return {(*loop)[0].op()};
//   };
//   ASSIGN_OR_RETURN(std::string path,
//       ipu::application_compile_op::experimental_application_compile_op(program, "app.poplar_exec"));
//
// The program is one ipu::loops::repeat reading one infeed (its element is
// what each call gives) and writing one outfeed (what each call gets back);
// its placeholders outside the loop become the runtime's start inputs. The
// dataset the infeed was made with only gives the element's dtypes and
// shapes.
//
// Unlike the vendor's, which returns an op that compiles when a session runs
// it, this writes the file at once and returns its path. The file holds the
// program; an engine compiles it for the attached simulated IPUs when it
// starts (runtime/ipu/application_executable.proto).
//
// Errors (InvalidArgument unless said): the program has no loop, more than
// one, or its infeed or outfeed is missing or not unique; a value with an
// unknown shape crosses a feed; the program holds a variable (Unimplemented:
// freeze it into a constant first; freeze_variables is not supported);
// writing the file fails (the I/O error, naming the path).
#ifndef TENSORFLOW_IPU_IPU_APPLICATION_COMPILE_OP_H_
#define TENSORFLOW_IPU_IPU_APPLICATION_COMPILE_OP_H_

#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.pb.h"

namespace tensorflow_ipu {
namespace ipu {
namespace application_compile_op {

absl::StatusOr<std::string> experimental_application_compile_op(
    const ipu_compiler::ScopeComputationFn& fn, const std::string& output_path,
    bool freeze_variables = false);

// The executable of `graph`, whose node `run_target` runs the program's loop
// once: what experimental_application_compile_op writes, for tools that
// build the program themselves (ipu_saved_model_cli's loop-repeat wrapper).
absl::StatusOr<ApplicationExecutableProto> MakeApplicationExecutable(
    const Graph& graph, const std::string& run_target);

}  // namespace application_compile_op
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_APPLICATION_COMPILE_OP_H_
