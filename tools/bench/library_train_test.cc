// The library's training contestants learn, and the IPU loop computes what
// the CPU executor computes, step by step, including a final loop shorter
// than steps_per_run. (train_mlp checks this over a whole epoch against
// the peers; this test keeps it true between benchmark runs, without
// libtorch.)
#include "tools/bench/library_train.h"

#include <cstdlib>
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_system.h"

namespace tfipu_bench {
namespace {

constexpr int kPixels = 12;
constexpr int kClasses = 3;
constexpr int kBatch = 4;
constexpr int kSteps = 20;

// Images whose class lights up its own third of the pixels: a tiny MLP
// learns it within a few steps.
ImageSet SyntheticSet(int64_t count) {
  ImageSet set;
  set.count = count;
  set.pixels = kPixels;
  set.classes = kClasses;
  SplitMix64 rng(3);
  for (int64_t i = 0; i < count; ++i) {
    const int label = static_cast<int>(rng.Next() % kClasses);
    set.labels.push_back(label);
    for (int p = 0; p < kPixels; ++p) {
      const bool lit = p / (kPixels / kClasses) == label;
      set.images.push_back(lit ? 0.5f + 0.5f * rng.NextUnitFloat()
                               : 0.3f * rng.NextUnitFloat());
    }
  }
  return set;
}

LibraryTrainOptions Options(LibraryTrainDevice device) {
  LibraryTrainOptions options;
  options.device = device;
  options.batch = kBatch;
  options.learning_rate = 0.1;
  // 20 = 8 + 8 + 4: two full loops and a shorter one.
  options.steps_per_run = 8;
  options.warmup_steps = 3;
  options.num_threads = 1;
  return options;
}

void ConfigureIpu() {
  setenv("TF_POPLAR_FLAGS", "--use_ipu_model --ipu_model_tiles=16", 1);
  tensorflow_ipu::ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
}

struct Trained {
  std::vector<float> losses;
  MlpWeights weights;
  double simulated_seconds = 0;
};

// Warm-up (which must leave no trace), then kSteps steps.
Trained Train(LibraryTrainDevice device, const ImageSet& set, const MlpWeights& initial,
              int replicas = 1, int pipeline_micro_batches = 0,
              int accumulation_micro_batches = 0) {
  LibraryTrainOptions options = Options(device);
  options.replicas = replicas;
  options.pipeline_micro_batches = pipeline_micro_batches;
  options.accumulation_micro_batches = accumulation_micro_batches;
  absl::StatusOr<std::unique_ptr<LibraryTrainer>> t =
      LibraryTrainer::Create(initial, set, kSteps, options);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  absl::Status warm = (*t)->WarmUp();
  EXPECT_TRUE(warm.ok()) << warm;
  absl::StatusOr<std::vector<float>> losses = (*t)->Train();
  EXPECT_TRUE(losses.ok()) << losses.status();
  absl::StatusOr<MlpWeights> weights = (*t)->Weights();
  EXPECT_TRUE(weights.ok()) << weights.status();
  if (!losses.ok() || !weights.ok()) return {};
  return {*losses, *weights, (*t)->simulated_seconds()};
}

double Mean(const float* begin, const float* end) {
  return std::accumulate(begin, end, 0.0) / (end - begin);
}

TEST(LibraryTrainTest, CpuAndIpuLoopLearnTheSameSteps) {
  ConfigureIpu();
  const ImageSet set = SyntheticSet(kBatch * kSteps);
  const MlpWeights initial = GlorotUniformMlp({kPixels, 8, 6, kClasses}, 11);
  const Trained cpu = Train(LibraryTrainDevice::kCpu, set, initial);
  const Trained ipu = Train(LibraryTrainDevice::kIpuLoop, set, initial);
  ASSERT_EQ(cpu.losses.size(), static_cast<size_t>(kSteps));
  ASSERT_EQ(ipu.losses.size(), static_cast<size_t>(kSteps));
  // The IPU trainer ran on the (simulated) device, the CPU one did not.
  EXPECT_GT(ipu.simulated_seconds, 0);
  EXPECT_EQ(cpu.simulated_seconds, 0);

  const float* l = cpu.losses.data();
  EXPECT_LT(Mean(l + kSteps - 5, l + kSteps), Mean(l, l + 5) - 0.1) << "the loss must fall";
  for (int s = 0; s < kSteps; ++s) {
    EXPECT_NEAR(ipu.losses[s], cpu.losses[s], 1e-4) << "step " << s;
  }
  ASSERT_EQ(ipu.weights.layers.size(), cpu.weights.layers.size());
  for (size_t k = 0; k < cpu.weights.layers.size(); ++k) {
    const DenseLayer& a = cpu.weights.layers[k];
    const DenseLayer& b = ipu.weights.layers[k];
    ASSERT_EQ(a.w.size(), b.w.size());
    ASSERT_EQ(a.b.size(), b.b.size());
    for (size_t i = 0; i < a.w.size(); ++i) EXPECT_NEAR(a.w[i], b.w[i], 1e-4) << k << " w" << i;
    for (size_t i = 0; i < a.b.size(); ++i) EXPECT_NEAR(a.b[i], b.b[i], 1e-4) << k << " b" << i;
    // Trained: the weights moved from where they started.
    EXPECT_NE(a.w, initial.layers[k].w);
  }
}

void ExpectSameTraining(const Trained& a, const Trained& b) {
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t s = 0; s < a.losses.size(); ++s) {
    EXPECT_NEAR(a.losses[s], b.losses[s], 1e-5) << "step " << s;
  }
  ASSERT_EQ(a.weights.layers.size(), b.weights.layers.size());
  for (size_t k = 0; k < a.weights.layers.size(); ++k) {
    for (size_t i = 0; i < a.weights.layers[k].w.size(); ++i) {
      EXPECT_NEAR(a.weights.layers[k].w[i], b.weights.layers[k].w[i], 1e-5) << k << " w" << i;
    }
  }
}

// The contestants on 2 IPUs train what the one-IPU loop trains.
TEST(LibraryTrainTest, ReplicatedAndPipelinedLoopsLearnTheSameSteps) {
  ConfigureIpu();
  const ImageSet set = SyntheticSet(kBatch * kSteps);
  const MlpWeights initial = GlorotUniformMlp({kPixels, 8, 6, kClasses}, 11);
  const Trained one = Train(LibraryTrainDevice::kIpuLoop, set, initial);
  // The pipeline's computation on one IPU: 4 accumulated micro-batches.
  const Trained accumulated = Train(LibraryTrainDevice::kIpuLoop, set, initial, 1, 0,
                                    /*accumulation_micro_batches=*/4);
  ExpectSameTraining(one, accumulated);
  tensorflow_ipu::ipu::IpuSystem::Get().Reset();
  tensorflow_ipu::ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 2;
  {
    absl::Status status = cfg.configure_ipu_system();
    ASSERT_TRUE(status.ok()) << status;
  }
  const Trained replicated = Train(LibraryTrainDevice::kIpuLoop, set, initial, /*replicas=*/2);
  ExpectSameTraining(one, replicated);
  const Trained pipelined = Train(LibraryTrainDevice::kIpuLoop, set, initial, 1,
                                  /*pipeline_micro_batches=*/4);
  ExpectSameTraining(one, pipelined);
  EXPECT_GT(pipelined.simulated_seconds, 0);
  tensorflow_ipu::ipu::IpuSystem::Get().Reset();
}

TEST(LibraryTrainTest, RejectsMoreStepsThanBatches) {
  const ImageSet set = SyntheticSet(kBatch * 3);
  absl::StatusOr<std::unique_ptr<LibraryTrainer>> t = LibraryTrainer::Create(
      GlorotUniformMlp({kPixels, 4, kClasses}, 1), set, 4, Options(LibraryTrainDevice::kCpu));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
}

TEST(LibraryTrainTest, RejectsAnInputWidthThatIsNotThePixels) {
  const ImageSet set = SyntheticSet(kBatch * 3);
  absl::StatusOr<std::unique_ptr<LibraryTrainer>> t = LibraryTrainer::Create(
      GlorotUniformMlp({kPixels + 1, 4, kClasses}, 1), set, 2, Options(LibraryTrainDevice::kCpu));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
}

// Micro-batch counts: negative, not dividing the batch, or pipelined and
// accumulated at once are refused before anything is built.
TEST(LibraryTrainTest, RejectsMicroBatchCountsThatDoNotFit) {
  const ImageSet set = SyntheticSet(kBatch * 3);
  const MlpWeights weights = GlorotUniformMlp({kPixels, 4, kClasses}, 1);
  struct Case {
    int pipelined, accumulated;
    const char* message;
  };
  for (const Case& c : {Case{0, -1, "does not split"}, Case{0, 3, "does not split"},
                        Case{-2, 0, "does not split"}, Case{4, 4, "exclude each other"}}) {
    LibraryTrainOptions options = Options(LibraryTrainDevice::kIpuLoop);
    options.pipeline_micro_batches = c.pipelined;
    options.accumulation_micro_batches = c.accumulated;
    absl::StatusOr<std::unique_ptr<LibraryTrainer>> t =
        LibraryTrainer::Create(weights, set, 2, options);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
    EXPECT_THAT(std::string(t.status().message()), ::testing::HasSubstr(c.message))
        << c.pipelined << " " << c.accumulated;
  }
}

}  // namespace
}  // namespace tfipu_bench
