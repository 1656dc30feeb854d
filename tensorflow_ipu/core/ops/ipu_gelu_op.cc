// IpuGelu: the GELU activation of the vendor's IPU port (ipu.nn_ops.gelu, the
// op ipu_saved_model_cli's GELU replacement inserts), in its tanh
// approximation:
//   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// Its type attr is `dtype` (not `T`), as the vendor names it, so that graphs
// written by the vendor's converter import unchanged.
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace {

bool RegisterIpuGelu() {
  internal::OpRegistrar(OpDefBuilder("IpuGelu")
                            .Input("input", "dtype")
                            .Output("output", "dtype")
                            .TypeAttr("dtype", {DT_HALF, DT_FLOAT})
                            .SetShapeFn(shape_fns::UnchangedShape));
  return true;
}

const bool kRegistered = RegisterIpuGelu();

}  // namespace
}  // namespace tensorflow_ipu
