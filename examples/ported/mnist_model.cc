#include "examples/ported/mnist_model.h"

#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/initializers.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/train/momentum.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

// splitmix64's finaliser, for the host's dropout draws.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr VariableScopeOptions kAutoReuse = {.use_resource = true, .reuse = Reuse::kAutoReuse};

}  // namespace

absl::StatusOr<Output> dense_layer(const Scope& scope, int64_t hidden_size, Output input,
                                   const std::string& scope_name, int64_t seed) {
  // As TensorFlow's variable scopes, "d1/weight" whatever name scope the
  // layer is built in (each loops::repeat opens one): the training and the
  // test loop share the variables.
  VariableScope vs(scope, scope_name, kAutoReuse);
  const int64_t in = input.shape().dim_size(input.shape().dims() - 1);
  ASSIGN_OR_RETURN(Variable w, vs.get_variable("weight", {in, hidden_size}, DT_FLOAT,
                                               initializers::GlorotUniform(seed)));
  ASSIGN_OR_RETURN(Variable b, vs.get_variable("bias", {hidden_size}, DT_FLOAT,
                                               initializers::Zeros()));
  const Scope s = scope.NewSubScope(scope_name);
  return ops::Relu(s, ops::BiasAdd(s, ops::MatMul(s, input, w.value(s)), b.value(s))).output;
}

data::Dataset::MapFn DropoutMaskAppender(uint64_t seed) {
  auto draws = std::make_shared<uint64_t>(seed << 32);
  return [draws](const data::Element& batch) -> absl::StatusOr<data::Element> {
    if (batch.size() != 2 || batch[0].dims() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DropoutMaskAppender expects batches of (images [b, 784], labels [b]), not ",
          batch.size(), " components"));
    }
    const int64_t b = batch[0].dim_size(0);
    Tensor mask(DT_FLOAT, TensorShape({b, kH1Size}));
    const float keep_scale = static_cast<float>(1.0 / (1.0 - kDropRate));
    const uint64_t threshold = static_cast<uint64_t>(kDropRate * (1ULL << 32));
    for (int64_t k = 0; k < mask.NumElements(); ++k) {
      const bool keep = (Mix((*draws)++) >> 32) >= threshold;
      mask.data<float>()[k] = keep ? keep_scale : 0.f;
    }
    return data::Element{batch[0], batch[1], mask};
  };
}

Output ArgMaxEquals(const Scope& scope, Output logits, Output labels) {
  const int64_t b = logits.shape().dim_size(0), n = logits.shape().dim_size(1);
  Tensor index(DT_INT32, TensorShape({1, n}));
  for (int64_t j = 0; j < n; ++j) index.data<int32_t>()[j] = static_cast<int32_t>(j);
  // The label's logit is the row's maximum, and no column before it
  // reaches that maximum.
  Output label_logit =
      ops::Sum(scope, ops::Mul(scope, logits, ops::OneHot(scope, labels, static_cast<int32_t>(n), 1.f, 0.f)), {1});
  Output row_max = ops::Max(scope, logits, {1});
  Output before_label = ops::Less(scope, ops::Const(scope, index), ops::ExpandDims(scope, labels, 1));
  Output lowest = ops::Fill(scope, {b, n}, std::numeric_limits<float>::lowest());
  Output max_before_label = ops::Max(scope, ops::Select(scope, before_label, logits, lowest), {1});
  return ops::LogicalAnd(scope, ops::GreaterEqual(scope, label_logit, row_max),
                         ops::Greater(scope, label_logit, max_before_label));
}

absl::Status model(const Scope& scope, double lr, ipu::IPUOutfeedQueue* outqueue,
                   bool training, const std::vector<Output>& batch, MnistModelState* state) {
  if (batch.size() != (training ? 3u : 2u)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model expects (inputs, labels", training ? ", dropout mask" : "", "), got ",
        batch.size(), " tensors"));
  }
  Output inputs = batch[0], labels = batch[1];
  ASSIGN_OR_RETURN(Output relu1, dense_layer(scope, kH1Size, inputs, "d1", /*seed=*/1));
  // Use the IPU optimised version of dropout (here: the host's mask).
  Output drop1 = training ? ops::Mul(scope.NewSubScope("dropout"), relu1, batch[2]).output
                          : relu1;
  ASSIGN_OR_RETURN(Output relu2, dense_layer(scope, kH2Size, drop1, "d2", /*seed=*/2));

  // tf.metrics.accuracy(labels, argmax(relu2)) and the loss, in "metrics".
  VariableScope accuracy_vs(scope, "metrics/accuracy", kAutoReuse);
  ASSIGN_OR_RETURN(state->accuracy_total,
                   accuracy_vs.get_variable("total", {}, DT_FLOAT, initializers::Zeros(),
                                            /*trainable=*/false));
  ASSIGN_OR_RETURN(state->accuracy_count,
                   accuracy_vs.get_variable("count", {}, DT_FLOAT, initializers::Zeros(),
                                            /*trainable=*/false));
  const Scope m = scope.NewSubScope("metrics/accuracy");
  Output is_correct = ops::Cast(m, ArgMaxEquals(m, relu2, labels), DT_FLOAT);
  Operation update_total = state->accuracy_total.assign_add(m, ops::Sum(m, is_correct, {0}));
  Operation update_count = state->accuracy_count.assign_add(
      m, static_cast<float>(inputs.shape().dim_size(0)));
  Operation acc_op = ops::NoOp(m.WithControlDependencies({update_total, update_count}));
  Scope after = m.WithControlDependencies({acc_op});
  Output acc = ops::RealDiv(after, state->accuracy_total.value(after),
                            state->accuracy_count.value(after));
  Output loss = ops::SparseSoftmaxCrossEntropyWithLogits(scope.NewSubScope("metrics"), relu2,
                                                         labels)
                    .loss;

  Output mean_loss;
  if (training) {
    Scope t = scope.NewSubScope("training");
    train::MomentumOptimizer optimiser(lr, /*momentum=*/0.0001, /*use_nesterov=*/true);
    ASSIGN_OR_RETURN(Operation train_op, optimiser.minimize(t, loss));
    mean_loss = ops::Mean(t.WithControlDependencies({train_op, acc_op}).WithOpName("train_loss"),
                          loss, {0});
  } else {
    mean_loss = ops::Mean(scope.WithControlDependencies({acc_op}).WithOpName("test_loss"), loss,
                          {0});
  }
  outqueue->enqueue(scope, {mean_loss, acc});
  return scope.status();
}

}  // namespace examples
}  // namespace tensorflow_ipu
