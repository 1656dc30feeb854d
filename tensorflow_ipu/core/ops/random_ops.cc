// Random tensors, as TensorFlow's random_ops: `shape` is an int32 vector
// (which must be a constant for the output shape to be known); `seed` and
// `seed2` make the sequence reproducible: the same seeds give the same values
// in every process, whatever the thread count.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/op_registry.h"

namespace tensorflow_ipu {
namespace {

absl::Status RandomShape(InferenceContext* c) {
  const Tensor* shape = c->input_tensor(0);
  if (shape == nullptr) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (shape->dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be a vector, got ", shape->shape().DebugString()));
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < shape->NumElements(); ++i) {
    const int64_t d = shape->dtype() == DT_INT64 ? shape->data<int64_t>()[i]
                                                 : shape->data<int32_t>()[i];
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape has a negative dimension ", d));
    }
    dims.push_back(d);
  }
  c->set_output(0, TensorShape(dims));
  return absl::OkStatus();
}

OpDefBuilder RandomOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("shape", "T")
      .Output("output", "dtype")
      .Attr("seed", "int", MakeAttrValue(int64_t{0}))
      .Attr("seed2", "int", MakeAttrValue(int64_t{0}))
      .TypeAttr("dtype", {DT_FLOAT, DT_DOUBLE, DT_HALF})
      .TypeAttr("T", {DT_INT32, DT_INT64}, DT_INT32)
      .SetIsStateful()
      .SetShapeFn(RandomShape);
  return b;
}

// Uniform in [0, 1).
REGISTER_OP(RandomOp("RandomUniform"));
// Mean 0, standard deviation 1.
REGISTER_OP(RandomOp("RandomStandardNormal"));
// Mean 0, standard deviation 1, values beyond two deviations redrawn.
REGISTER_OP(RandomOp("TruncatedNormal"));

}  // namespace
}  // namespace tensorflow_ipu
