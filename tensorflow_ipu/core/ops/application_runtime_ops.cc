// The embedded application runtime's ops, with the vendor's names and
// signatures (ipu.embedded_runtime): a graph that serves a precompiled IPU
// application calls it through them.
//
//   ApplicationRuntime(inputs) -> anchor
//     loads the application executable `filename` and starts its engine
//     `engine_name` (once per session: later runs find it started); its
//     inputs are the application's non-streamed inputs.
//   ApplicationCall(infeeds, anchor) -> outfeeds
//     hands one element to the engine's infeed and returns what the
//     application's outfeed gave for it. Calls from concurrent runs are
//     batched into one run of the application's loop; `timeout_us` is how
//     long the engine waits for the next call before it runs the loop with
//     the batch it has.
//
// The kernels belong to the runtime's IPU path
// (runtime/ipu/application_runtime_kernels.cc); both ops run on the host.
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor_shape.h"

namespace tensorflow_ipu {
namespace {

absl::Status CallShapes(InferenceContext* c) {
  std::vector<TensorShape> shapes(c->num_outputs(), TensorShape::Unknown());
  if (c->node().attr().count("_output_shapes")) {
    ASSIGN_OR_RETURN(shapes, c->GetAttr<std::vector<TensorShape>>("_output_shapes"));
    if (static_cast<int>(shapes.size()) != c->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat("_output_shapes has ", shapes.size(),
                                                     " shapes for ", c->num_outputs(),
                                                     " outputs; give one per output"));
    }
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
  return absl::OkStatus();
}

bool RegisterApplicationRuntimeOps() {
  internal::OpRegistrar(OpDefBuilder("ApplicationRuntime")
                            .InputTypeList("inputs", "input_types")
                            .Output("anchor", DT_INT32)
                            .Attr("filename", "string")
                            .Attr("engine_name", "string")
                            .Attr("timeout_us", "int", MakeAttrValue(int64_t{5000}))
                            .SetIsStateful()
                            .SetIsHostOnly()
                            .SetShapeFn([](InferenceContext* c) {
                              c->set_output(0, TensorShape({}));
                              return absl::OkStatus();
                            }));
  // Output shapes are the executable's: the vendor's op declares only the
  // types, so they are unknown, unless the internal attr `_output_shapes`
  // (which ipu::embedded_runtime::embedded_runtime_call sets from the
  // executable's signature) gives one shape per output.
  internal::OpRegistrar(OpDefBuilder("ApplicationCall")
                            .InputTypeList("infeeds", "infeed_types")
                            .Input("anchor", DT_INT32)
                            .OutputTypeList("outfeeds", "outfeed_types")
                            .Attr("engine_name", "string")
                            .SetIsStateful()
                            .SetIsHostOnly()
                            .SetShapeFn(CallShapes));
  return true;
}

const bool kRegistered = RegisterApplicationRuntimeOps();

}  // namespace
}  // namespace tensorflow_ipu
