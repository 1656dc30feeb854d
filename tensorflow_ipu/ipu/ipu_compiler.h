// ipu::ipu_compiler::compile: builds a function's ops as one IPU cluster, as
// the vendor's TF1 port spells it.
//
//   Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
//   auto fn = [](const Scope& s, const std::vector<Output>& in) {
//     return std::vector<Output>{ops::Add(s, ops::Add(s, in[0], in[1]),
//                                            ops::Add(s, in[0], in[2]))};
//   };
//   absl::StatusOr<std::vector<Output>> r =
//       ipu::ipu_compiler::compile(ipu, fn, {pa, pb, pc});
//   session.Run(feeds, {(*r)[0]}, &out);
//
// `fn` runs once, with a scope whose ops carry the cluster attr
// "_ipu_compile" (a name per call); its outputs are returned (a single
// output as a one-element list). A function that returns nothing (only side
// effects) gives a one-element list too, as the vendor returns an op to run:
// an Output of a NoOp named after the cluster ("compile_<n>"), in the
// cluster, that runs the function's stateful ops (variable updates,
// enqueues) and what they need, as a TensorFlow function without outputs
// does: a stateless op whose value nothing uses is dead and does not run.
// Run it as a target; it has no value to fetch:
//
//   session.Run(feeds, {}, {(*r)[0].op()}, &out);
//
// Errors:
//  - the scope is not under an IPU device, or fn placed nothing on the IPU:
//    InvalidArgument "A computation has been compiled, however it was not
//    placed on an IPU device ...";
//  - an input or a value inside the function without a fully defined shape:
//    InvalidArgument naming the tensor;
//  - the first error fn recorded on the scope.
#ifndef TENSORFLOW_IPU_IPU_IPU_COMPILER_H_
#define TENSORFLOW_IPU_IPU_IPU_COMPILER_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/ipu_attrs.h"

namespace tensorflow_ipu {
namespace ipu {

namespace ipu_compiler {

using ComputationFn =
    std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;

absl::StatusOr<std::vector<Output>> compile(const Scope& scope,
                                            const ComputationFn& fn,
                                            const std::vector<Output>& inputs);

}  // namespace ipu_compiler
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_IPU_COMPILER_H_
