#include "tensorflow_ipu/keras/layers/dropout.h"


#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/random_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/keras/initializers.h"

namespace tensorflow_ipu {
namespace keras {
namespace layers {

DropoutLayer::DropoutLayer(double rate, DropoutOptions options)
    : Layer("Dropout", options.name), rate_(rate), options_(std::move(options)) {}

absl::Status DropoutLayer::Build(const Shape&) {
  if (!(rate_ >= 0 && rate_ < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid value received for argument `rate` of layer \"", name(),
        "\". Expected a float value between 0 and 1 (1 excluded). Received: rate=", rate_));
  }
  return absl::OkStatus();
}

absl::StatusOr<Output> DropoutLayer::Call(const Scope& scope, const Output& input,
                                          const std::vector<Output>&, bool training) const {
  if (!training || rate_ == 0) return input;
  // A static shape where known (the IPU's programs have one), else the
  // input's shape at run time (the CPU's batches may end short).
  const TensorShape& s = input.shape();
  Output shape;
  if (s.IsFullyDefined()) {
    std::vector<int32_t> dims(s.dim_sizes().begin(), s.dim_sizes().end());
    shape = ops::Const(scope, Tensor::FromVector<int32_t>(dims, TensorShape({s.dims()})));
  } else {
    shape = ops::Shape(scope, input);
  }
  const int64_t seed =
      options_.seed != 0 ? options_.seed : utils::DerivedSeed(name(), "dropout");
  Output uniform =
      ops::RandomUniform(scope, shape, input.type(), ops::RandomUniform::Seed(seed));
  Output keep = ops::Cast(scope, ops::GreaterEqual(scope, uniform, static_cast<float>(rate_)),
                          input.type());
  return Output(ops::Mul(scope, input,
                         ops::Mul(scope, keep, static_cast<float>(1.0 / (1.0 - rate_)))));
}

}  // namespace layers
}  // namespace keras
}  // namespace tensorflow_ipu
