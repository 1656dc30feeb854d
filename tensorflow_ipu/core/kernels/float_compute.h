// ComputeFloating: runs a kernel body written for float and double on a
// half, float or double node, computing half in float and rounding the
// result once, as MatMul does.
//
//   return ComputeFloating(ctx, {&input, &filter}, out,
//       [&](auto t, const std::vector<const Tensor*>& in, Tensor* o) {
//         using T = decltype(t);   // float or double
//         ...
//         return absl::OkStatus();
//       });
#ifndef TENSORFLOW_IPU_CORE_KERNELS_FLOAT_COMPUTE_H_
#define TENSORFLOW_IPU_CORE_KERNELS_FLOAT_COMPUTE_H_

#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/kernels/cwise_ops_util.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {

// `inputs` are the node's inputs of out's dtype; fn(T{}, inputs', out')
// gets them (for half: float copies) and an output of T (for half: a float
// tensor of out's shape, rounded into `out` afterwards). Other dtypes are
// Unimplemented, naming the op.
template <typename Fn>
absl::Status ComputeFloating(OpKernelContext* ctx, std::vector<const Tensor*> inputs,
                             Tensor* out, Fn fn) {
  switch (out->dtype()) {
    case DT_FLOAT:
      return fn(float{}, inputs, out);
    case DT_DOUBLE:
      return fn(double{}, inputs, out);
    case DT_HALF: {
      std::vector<Tensor> copies;
      copies.reserve(inputs.size());
      for (const Tensor*& in : inputs) {
        ASSIGN_OR_RETURN(Tensor f, Tensor::Create(DT_FLOAT, in->shape()));
        cwise::Vec<half> hv = cwise::FlatVec<half>(*in);
        cwise::Assign(ctx, cwise::FlatVec<float>(f), hv.cast<float>());
        copies.push_back(std::move(f));
        in = &copies.back();
      }
      ASSIGN_OR_RETURN(Tensor of, Tensor::Create(DT_FLOAT, out->shape()));
      RETURN_IF_ERROR(fn(float{}, inputs, &of));
      cwise::Vec<float> ov = cwise::FlatVec<float>(of);
      cwise::Assign(ctx, cwise::FlatVec<half>(*out), ov.cast<half>());
      return absl::OkStatus();
    }
    default:
      return absl::UnimplementedError(absl::StrCat("no CPU kernel of ", ctx->node().op(),
                                                   " for type ",
                                                   DataTypeString(out->dtype())));
  }
}

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_FLOAT_COMPUTE_H_
