#include "examples/tutorial/global_step_training.h"

#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/global_step.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace examples {

absl::StatusOr<GlobalStepRun> TrainWithGlobalStep(bool global_step_on_ipu,
                                                   int steps) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("cpu");
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  // The tutorial's advice: create global_step in the CPU context first.
  ASSIGN_OR_RETURN(Variable global_step, train::get_or_create_global_step(
                                             global_step_on_ipu ? ipu : cpu));

  // y = x . w_true, learnt by a linear model from a fixed batch.
  auto x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({32, 16}));
  auto y = ops::Placeholder(cpu.WithOpName("y"), DT_FLOAT,
                            ops::Placeholder::Shape({32, 1}));
  VariableScope vs(ipu, "model");
  ASSIGN_OR_RETURN(Variable w, vs.get_variable("w", {16, 1}, DT_FLOAT,
                                               initializers::Zeros()));
  train::GradientDescentOptimizer opt(0.05);
  Output loss;
  Operation train_op;
  ASSIGN_OR_RETURN(
      std::vector<Output> step,
      ipu::ipu_compiler::compile(
          ipu,
          [&](const Scope& s, const std::vector<Output>& in) {
            Output err = ops::Sub(s, ops::MatMul(s, in[0], w.value(s)), in[1]);
            loss = ops::Mean(s, ops::Square(s, err), {0, 1});
            absl::StatusOr<Operation> train = opt.minimize(s, loss, &global_step);
            if (train.ok()) {
              train_op = *train;
            } else {
              s.UpdateStatus(train.status());
            }
            return std::vector<Output>{loss};
          },
          {x, y}));
  Operation init = global_variables_initializer(root);
  RETURN_IF_ERROR(root.status());

  Tensor xs(DT_FLOAT, TensorShape({32, 16})), ys(DT_FLOAT, TensorShape({32, 1}));
  for (int i = 0; i < 32; ++i) {
    float target = 0;
    for (int j = 0; j < 16; ++j) {
      const float v = static_cast<float>((i * 7 + j * 3) % 11) / 11.0f - 0.5f;
      xs.matrix<float>()(i, j) = v;
      target += v * static_cast<float>(j % 4 - 1.5);
    }
    ys.matrix<float>()(i, 0) = target;
  }

  ClientSession session(root);
  RETURN_IF_ERROR(session.Run({}, {}, {init}, nullptr));
  GlobalStepRun result;
  result.steps = steps;
  double seconds = 0;
  for (int i = 0; i < steps; ++i) {
    std::vector<Tensor> out;
    RunMetadata metadata;
    RETURN_IF_ERROR(session.Run(RunOptions(), {{x, xs}, {y, ys}}, {step[0]},
                                {train_op}, &out, &metadata));
    result.final_loss = out[0].data<float>()[0];
    if (i == 0) continue;  // compiling and first loads are not steady state
    const IpuRunProfile& p = metadata.ipu_profile;
    result.engine_switches += p.engine_switches;
    seconds += p.total_seconds;
  }
  result.seconds_per_step = steps > 1 ? seconds / (steps - 1) : 0;
  std::vector<Tensor> gs;
  RETURN_IF_ERROR(session.Run({global_step.value(root)}, &gs));
  result.global_step = gs[0].data<int64_t>()[0];
  return result;
}

}  // namespace examples
}  // namespace tensorflow_ipu
