#include "tensorflow_ipu/train/mlp_test_model.h"

#include <cmath>

#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/train/global_step.h"
#include "tensorflow_ipu/train/gradient_descent.h"

namespace tensorflow_ipu {
namespace train {

absl::StatusOr<MlpTestModel> BuildMlpTestModel(const Scope& root,
                                               const Scope& device) {
  MlpTestModel m;
  const Scope cpu = root.WithDevice("cpu");
  ASSIGN_OR_RETURN(m.global_step, get_or_create_global_step(cpu));
  m.x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT, ops::Placeholder::Shape({4, 3}));
  m.y = ops::Placeholder(cpu.WithOpName("y"), DT_FLOAT, ops::Placeholder::Shape({4, 2}));

  VariableScope vs(device, "mlp");
  // Seeded: both builds start from the same weights (the restored run does
  // not depend on it, but the uninterrupted one is then reproducible too).
  ASSIGN_OR_RETURN(Variable w1, vs.get_variable("w1", {3, 5}, DT_FLOAT,
                                                initializers::GlorotUniform(11)));
  ASSIGN_OR_RETURN(Variable b1, vs.get_variable("b1", {5}, DT_FLOAT,
                                                initializers::Constant(0.1)));
  ASSIGN_OR_RETURN(Variable w2, vs.get_variable("w2", {5, 2}, DT_FLOAT,
                                                initializers::GlorotUniform(12)));
  ASSIGN_OR_RETURN(Variable b2, vs.get_variable("b2", {2}, DT_FLOAT,
                                                initializers::Zeros()));
  m.weights = {w1, b1, w2, b2};

  const Scope& s = vs.scope();
  Output hidden = ops::Relu(
      s, ops::BiasAdd(s, ops::MatMul(s, m.x, w1.value(s)), b1.value(s)));
  Output out = ops::BiasAdd(s, ops::MatMul(s, hidden, w2.value(s)), b2.value(s));
  m.loss = ops::Mean(s.WithOpName("loss"), ops::Square(s, ops::Sub(s, out, m.y)),
                     {0, 1});
  GradientDescentOptimizer opt(0.05);
  ASSIGN_OR_RETURN(m.train, opt.minimize(s, m.loss, &m.global_step));
  m.init = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());
  return m;
}

ClientSession::FeedType MlpTestFeeds(const MlpTestModel& model, int64_t step) {
  Tensor x(DT_FLOAT, TensorShape({4, 3}));
  Tensor y(DT_FLOAT, TensorShape({4, 2}));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      x.data<float>()[i * 3 + j] =
          static_cast<float>(std::sin(0.7 * step + 1.3 * i + 0.4 * j));
    }
    y.data<float>()[i * 2] = static_cast<float>(std::cos(0.3 * step + i));
    y.data<float>()[i * 2 + 1] = static_cast<float>(0.5 * ((step + i) % 3) - 0.5);
  }
  return {{model.x, x}, {model.y, y}};
}

absl::StatusOr<std::vector<float>> TrainMlpTestModel(const ClientSession& session,
                                                     const MlpTestModel& model,
                                                     int64_t first_step, int steps) {
  std::vector<float> losses;
  for (int64_t step = first_step; step < first_step + steps; ++step) {
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session.Run(MlpTestFeeds(model, step), {model.loss},
                                {model.train}, &out));
    losses.push_back(out[0].data<float>()[0]);
  }
  return losses;
}

}  // namespace train
}  // namespace tensorflow_ipu
