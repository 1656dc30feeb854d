// Ops for testing the graph, session and executor without depending on the
// real op libraries: elementwise add of equal shapes, a two-output op, and an
// op whose kernel always fails.
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/op_registry.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace {

absl::Status SameShape(InferenceContext* c) {
  const TensorShape& a = c->input_shape(0);
  const TensorShape& b = c->input_shape(1);
  if (!a.IsCompatibleWith(b)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shapes must be equal, but are ", a.DebugString(),
                     " and ", b.DebugString()));
  }
  c->set_output(0, *a.Merge(b));
  return absl::OkStatus();
}

REGISTER_OP(OpDefBuilder("TestAdd")
                .Input("x", "T")
                .Input("y", "T")
                .Output("z", "T")
                .TypeAttr("T", {DT_FLOAT, DT_INT32})
                .SetShapeFn(SameShape));

REGISTER_OP(OpDefBuilder("TestSplitSign")
                .Input("x", DT_FLOAT)
                .Output("positive", DT_FLOAT)
                .Output("negative", DT_FLOAT)
                .SetShapeFn([](InferenceContext* c) {
                  c->set_output(0, c->input_shape(0));
                  c->set_output(1, c->input_shape(0));
                  return absl::OkStatus();
                }));

REGISTER_OP(OpDefBuilder("TestFail")
                .Input("x", DT_FLOAT)
                .Output("y", DT_FLOAT)
                .Attr("message", "string", MakeAttrValue("test failure"))
                .SetShapeFn(shape_fns::UnchangedShape));

class TestAddKernel : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (x.shape() != y.shape()) {
      return ctx->InvalidArgument(absl::StrCat("shapes differ: ",
                                               x.shape().DebugString(), " vs ",
                                               y.shape().DebugString()));
    }
    absl::StatusOr<Tensor*> z = ctx->allocate_output(0, x.shape());
    if (!z.ok()) return z.status();
    if (x.dtype() == DT_FLOAT) {
      (*z)->flat<float>() = x.flat<float>() + y.flat<float>();
    } else {
      (*z)->flat<int32_t>() = x.flat<int32_t>() + y.flat<int32_t>();
    }
    return absl::OkStatus();
  }
};

class TestSplitSignKernel : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* pos = *ctx->allocate_output(0, x.shape());
    Tensor* neg = *ctx->allocate_output(1, x.shape());
    pos->flat<float>() = x.flat<float>().cwiseMax(0.f);
    neg->flat<float>() = x.flat<float>().cwiseMin(0.f);
    return absl::OkStatus();
  }
};

class TestFailKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    absl::StatusOr<std::string> m = ctx->GetAttr<std::string>("message");
    if (!m.ok()) return m.status();
    message_ = *m;
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) override {
    return ctx->InvalidArgument(message_);
  }

 private:
  std::string message_;
};

REGISTER_KERNEL("TestAdd", kDeviceTypeCpu, TestAddKernel);
REGISTER_KERNEL("TestSplitSign", kDeviceTypeCpu, TestSplitSignKernel);
REGISTER_KERNEL("TestFail", kDeviceTypeCpu, TestFailKernel);

}  // namespace
}  // namespace tensorflow_ipu
