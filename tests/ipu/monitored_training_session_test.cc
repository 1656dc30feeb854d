// MonitoredTrainingSession over a training step on the simulated IPU, as a
// ported TF1 IPU program runs it: the step inside ipu::loops::repeat fed by
// an infeed, global_step on the host advanced by the loop's iteration count
// once per run, StopAtStepHook and CheckpointSaverHook counting in those
// steps, and a second program resuming from the checkpoint directory. The
// losses and weights match, bit for bit, the same training run through a
// plain ClientSession without a break.
#include <cstring>
#include <filesystem>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/io/checkpoint.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/basic_session_run_hooks.h"
#include "tensorflow_ipu/train/checkpoint_management.h"
#include "tensorflow_ipu/train/global_step.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tensorflow_ipu/train/monitored_training_session.h"
#include "tests/ipu/ipu_test_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using testing::IpuTest;

constexpr int kStepsPerRun = 5;

// y = x . w_true learnt by a linear model on IPU 0, kStepsPerRun
// GradientDescent steps per run of an on-device loop over one fixed batch,
// each step's loss sent home through an outfeed.
struct LinearModelOnIpu {
  Operation train;  // one run of the loop
  Output losses;    // the losses sent since the last read of them
  Variable global_step;
  Variable w;
  Operation infeed_init;
};

absl::StatusOr<LinearModelOnIpu> BuildModel(const Scope& root, const std::string& feed_name) {
  LinearModelOnIpu m;
  const Scope cpu = root.WithDevice("cpu");
  const Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  // The vendor's advice: global_step on the host.
  ASSIGN_OR_RETURN(m.global_step, train::get_or_create_global_step(cpu));
  ASSIGN_OR_RETURN(m.w, VariableScope(ipu, "linear")
                            .get_variable("w", {4, 1}, DT_FLOAT, initializers::Zeros()));
  Tensor x(DT_FLOAT, TensorShape({8, 4}));
  Tensor y(DT_FLOAT, TensorShape({8, 1}));
  const float w_true[4] = {0.5f, -1.f, 2.f, 0.25f};
  for (int i = 0; i < 8; ++i) {
    float target = 0;
    for (int j = 0; j < 4; ++j) {
      const float v = static_cast<float>((i * 5 + j * 3) % 7) / 7.f - 0.5f;
      x.matrix<float>()(i, j) = v;
      target += v * w_true[j];
    }
    y.matrix<float>()(i, 0) = target;
  }
  ASSIGN_OR_RETURN(data::Dataset batches, data::Dataset::FromTensors({x, y}));
  ASSIGN_OR_RETURN(ipu::IPUInfeedQueue infeed,
                   ipu::IPUInfeedQueue::Create(batches.Repeat(), feed_name));
  ipu::IPUOutfeedQueue outfeed(feed_name + "_losses");
  train::GradientDescentOptimizer opt(0.2);
  ASSIGN_OR_RETURN(
      std::vector<Output> loop,
      ipu::ipu_compiler::compile(
          ipu,
          [&](const Scope& s, const std::vector<Output>&) {
            auto body = [&](const Scope& b, const std::vector<Output>&,
                            const std::vector<Output>& batch) {
              Output err = ops::Sub(b, ops::MatMul(b, batch[0], m.w.value(b)), batch[1]);
              Output loss = ops::Mean(b, ops::Square(b, err), {0, 1});
              absl::Status trained = opt.minimize(b, loss, &m.global_step).status();
              if (!trained.ok()) b.UpdateStatus(trained);
              outfeed.enqueue(b, {loss});
              return std::vector<Output>{};
            };
            absl::StatusOr<std::vector<Output>> out =
                ipu::loops::repeat(s, kStepsPerRun, body, {}, &infeed);
            if (!out.ok()) s.UpdateStatus(out.status());
            return out.ok() ? *out : std::vector<Output>{};
          },
          {}));
  m.train = loop.at(0).op();
  m.losses = outfeed.dequeue(root).at(0);
  m.infeed_init = infeed.initializer(root);
  RETURN_IF_ERROR(root.status());
  return m;
}

bool SameBits(const Tensor& a, const Tensor& b) { return a.BitwiseEquals(b); }

// Appends the losses the outfeed holds.
void ReadLosses(const ClientSession& session, const LinearModelOnIpu& m,
                std::vector<float>* losses) {
  std::vector<Tensor> out;
  absl::Status s = session.Run({m.losses}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out[0].NumElements(), kStepsPerRun);
  losses->insert(losses->end(), out[0].data<float>(), out[0].data<float>() + kStepsPerRun);
}

class MonitoredTrainingSessionOnIpuTest : public IpuTest {
 protected:
  void SetUp() override {
    IpuTest::SetUp();
    Configure(1);
    dir_ = ::testing::TempDir() + "/" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
  }

  // A MonitoredTrainingSession that trains until global_step reaches
  // `last_step`, saving every 10 global steps. Appends each run's loss and
  // the global_step after it.
  void TrainUntil(int64_t last_step, const std::string& feed_name, std::vector<float>* losses,
                  std::vector<int64_t>* steps, Tensor* final_w) {
    Scope root = Scope::NewRootScope();
    absl::StatusOr<LinearModelOnIpu> m = BuildModel(root, feed_name);
    ASSERT_TRUE(m.ok()) << m.status();
    auto scaffold = std::make_shared<train::Scaffold>();
    scaffold->local_init_op = m->infeed_init;  // the infeed starts in every session
    train::MonitoredTrainingSessionOptions options;
    options.checkpoint_dir = dir_;
    options.scaffold = scaffold;
    options.save_checkpoint_steps = 10;
    options.hooks = {train::StopAtStepHook::Create({.last_step = last_step}).value()};
    auto session = train::MonitoredTrainingSession(root, options);
    ASSERT_TRUE(session.ok()) << session.status();
    int runs = 0;
    while (!(*session)->should_stop()) {
      RunMetadata metadata;
      TF_ASSERT_OK((*session)->run(RunOptions(), {}, {}, {m->train}, nullptr, &metadata));
      ReadLosses((*session)->raw_session(), *m, losses);
      // Reading global_step for the hooks and saving checkpoints between
      // runs never swaps the training engine out.
      if (runs++ > 0) {
        EXPECT_EQ(metadata.ipu_profile.engine_switches, 0u) << "run " << runs;
      }
      std::vector<Tensor> step;
      TF_ASSERT_OK((*session)->raw_session().Run({m->global_step.value(root)}, &step));
      steps->push_back(step[0].data<int64_t>()[0]);
    }
    std::vector<Tensor> w;
    TF_ASSERT_OK((*session)->raw_session().Run({m->w.value(root)}, &w));
    *final_w = w[0];
    TF_ASSERT_OK((*session)->close());
  }

  std::set<int64_t> SavedSteps() const {
    std::set<int64_t> saved;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      const size_t index = name.rfind(".index");
      if (name.rfind("model.ckpt-", 0) == 0 && index + 6 == name.size()) {
        saved.insert(std::stoll(name.substr(11, index - 11)));
      }
    }
    return saved;
  }

  std::string dir_;
};

TEST_F(MonitoredTrainingSessionOnIpuTest, TrainsStopsSavesAndResumesLikeOneUnbrokenRun) {
  // The reference: 4 runs (20 steps) through a plain session.
  std::vector<float> reference_losses;
  Tensor reference_w;
  {
    Scope root = Scope::NewRootScope();
    absl::StatusOr<LinearModelOnIpu> m = BuildModel(root, "mts_reference_feed");
    ASSERT_TRUE(m.ok()) << m.status();
    Operation init = global_variables_initializer(root);
    ClientSession session(root);
    TF_ASSERT_OK(session.Run({}, {}, {init, m->infeed_init}, nullptr));
    for (int run = 0; run < 4; ++run) {
      TF_ASSERT_OK(session.Run({}, {}, {m->train}, nullptr));
      ReadLosses(session, *m, &reference_losses);
      if (HasFatalFailure()) return;
    }
    std::vector<Tensor> out;
    TF_ASSERT_OK(session.Run({m->w.value(root), m->global_step.value(root)}, &out));
    reference_w = out[0];
    ASSERT_EQ(out[1].data<int64_t>()[0], 4 * kStepsPerRun);
  }
  // Training goes down, every step.
  ASSERT_EQ(reference_losses.size(), 20u);
  for (int step = 1; step < 20; ++step) {
    EXPECT_LT(reference_losses[step], reference_losses[step - 1]) << "step " << step;
  }

  // The first program stops at step 10: two runs of 5 steps.
  std::vector<float> losses;
  std::vector<int64_t> steps;
  Tensor w;
  TrainUntil(10, "mts_first_feed", &losses, &steps, &w);
  if (HasFatalFailure()) return;
  EXPECT_THAT(steps, ElementsAre(5, 10));
  EXPECT_EQ(SavedSteps(), (std::set<int64_t>{0, 10}));
  auto latest = train::latest_checkpoint(dir_);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->value_or(""), dir_ + "/model.ckpt-10");

  // The second restores step 10 and its weights and trains to step 20.
  TrainUntil(20, "mts_second_feed", &losses, &steps, &w);
  if (HasFatalFailure()) return;
  EXPECT_THAT(steps, ElementsAre(5, 10, 15, 20));
  EXPECT_EQ(SavedSteps(), (std::set<int64_t>{0, 10, 20}));
  ASSERT_EQ(losses.size(), 20u);
  EXPECT_EQ(std::memcmp(losses.data(), reference_losses.data(), 20 * sizeof(float)), 0)
      << ::testing::PrintToString(losses) << " vs "
      << ::testing::PrintToString(reference_losses);
  EXPECT_TRUE(SameBits(w, reference_w)) << w.DebugString() << " vs " << reference_w.DebugString();

  // The final checkpoint holds the final state.
  absl::StatusOr<NamedTensors> saved = ReadCheckpoint(dir_ + "/model.ckpt-20");
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->at("global_step").data<int64_t>()[0], 20);
  EXPECT_TRUE(SameBits(saved->at("linear/w"), reference_w));

  // A third program over the finished directory runs nothing.
  std::vector<float> none;
  std::vector<int64_t> no_steps;
  TrainUntil(20, "mts_third_feed", &none, &no_steps, &w);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(SameBits(w, reference_w));
}

}  // namespace
}  // namespace tensorflow_ipu
