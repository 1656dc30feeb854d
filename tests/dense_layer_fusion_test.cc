// The CPU executor computes a dense layer's MatMul -> BiasAdd -> Relu chain
// in one kernel run when nothing else reads the intermediate tensors
// (runtime/bias_activation_fusion.h), as TensorFlow's CPU graph optimizer
// makes a _FusedMatMul. What a user relies on: the same bits as the three
// kernels (a traced run, which times every node, runs them one by one),
// intermediate tensors still fetchable (the chain is then not fused past
// them), for any number of threads, and the kernels' own errors.
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/gradients/gradients.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"

namespace tensorflow_ipu {
namespace {

// Values that round differently in different summation orders, with
// negative sums for the Relu to clip.
Tensor Values(int64_t rows, int64_t cols, int salt) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  float* p = t.data<float>();
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = float((i * (7 + salt)) % 23) * 0.173f - 1.9f;
  return t;
}

Tensor Vector(int64_t n, float start) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = start + 0.37f * float(i % 9);
  return t;
}

struct Layer {
  explicit Layer(const Scope& root, int64_t batch = 32, int64_t in = 784, int64_t out = 256)
      : x(ops::Placeholder(root.WithOpName("x"), DT_FLOAT)),
        w(ops::Const(root.WithOpName("w"), Values(in, out, 1))),
        b(ops::Const(root.WithOpName("b"), Vector(out, -1.3f))),
        product(ops::MatMul(root.WithOpName("product"), x, w)),
        biased(ops::BiasAdd(root.WithOpName("biased"), product, b)),
        relu(ops::Relu(root.WithOpName("relu"), biased)),
        batch(Values(batch, in, 3)) {}
  ops::Placeholder x;
  ops::Const w, b;
  ops::MatMul product;
  ops::BiasAdd biased;
  ops::Relu relu;
  Tensor batch;
};

std::vector<Tensor> RunLayer(int threads, bool traced,
                             const std::vector<std::string>& fetch_names) {
  Scope root = Scope::NewRootScope();
  Layer layer(root);
  SessionOptions options;
  options.num_threads = threads;
  ClientSession session(root, options);
  std::vector<Output> fetches;
  for (const std::string& name : fetch_names) {
    fetches.push_back(name == "relu"     ? Output(layer.relu)
                      : name == "biased" ? Output(layer.biased)
                                         : Output(layer.product));
  }
  RunOptions run_options;
  if (traced) run_options.trace_level = RunOptions::FULL_TRACE;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = session.Run(run_options, {{layer.x, layer.batch}}, fetches, {}, &out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

void ExpectSameBits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    ASSERT_EQ(got.data<float>()[i], want.data<float>()[i]) << what << ", element " << i;
  }
}

TEST(DenseLayerFusionTest, FusedChainHasTheKernelsBitsForAnyThreadCount) {
  const Tensor want = RunLayer(1, /*traced=*/true, {"relu"})[0];
  int clipped = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) clipped += want.data<float>()[i] == 0.f;
  EXPECT_GT(clipped, 0) << "the test's values should give the Relu something to clip";
  for (int threads : {1, 2, 3}) {
    ExpectSameBits(RunLayer(threads, /*traced=*/false, {"relu"})[0], want,
                   "fused, " + std::to_string(threads) + " threads");
    ExpectSameBits(RunLayer(threads, /*traced=*/true, {"relu"})[0], want,
                   "traced, " + std::to_string(threads) + " threads");
  }
}

// Fetching an intermediate tensor keeps it (and the fusion stops before it).
TEST(DenseLayerFusionTest, IntermediateTensorsStayFetchable) {
  const std::vector<Tensor> traced = RunLayer(2, /*traced=*/true, {"product", "biased", "relu"});
  const std::vector<Tensor> biased = RunLayer(2, /*traced=*/false, {"biased", "relu"});
  ExpectSameBits(biased[0], traced[1], "BiasAdd fetched");
  ExpectSameBits(biased[1], traced[2], "Relu beside a fetched BiasAdd");
  const std::vector<Tensor> all = RunLayer(2, /*traced=*/false, {"product", "biased", "relu"});
  for (int k = 0; k < 3; ++k) ExpectSameBits(all[k], traced[k], "all fetched");
}

// In training the chain is fused too (Relu's gradient reads the Relu's
// output, so the pre-activation has the Relu as its only reader): the
// loss and the weight and bias gradients have the bits of the kernels run
// one by one, for any number of threads.
TEST(DenseLayerFusionTest, TrainingGradientsHaveTheKernelsBits) {
  auto run = [](int threads, bool traced) {
    Scope root = Scope::NewRootScope();
    Layer layer(root);
    auto loss = ops::Sum(root.WithOpName("loss"), layer.relu, {0, 1});
    std::vector<Output> grads;
    absl::Status s = AddSymbolicGradients(root, {loss}, {layer.w, layer.b}, &grads);
    EXPECT_TRUE(s.ok()) << s;
    SessionOptions options;
    options.num_threads = threads;
    ClientSession session(root, options);
    RunOptions run_options;
    if (traced) run_options.trace_level = RunOptions::FULL_TRACE;
    RunMetadata metadata;
    std::vector<Tensor> out;
    s = session.Run(run_options, {{layer.x, layer.batch}}, {loss, grads[0], grads[1]}, {}, &out,
                    &metadata);
    EXPECT_TRUE(s.ok()) << s;
    return out;
  };
  const std::vector<Tensor> want = run(1, /*traced=*/true);
  ASSERT_EQ(want.size(), 3u);
  for (int threads : {1, 2}) {
    const std::vector<Tensor> got = run(threads, /*traced=*/false);
    ASSERT_EQ(got.size(), 3u);
    const std::string where = ", " + std::to_string(threads) + " threads";
    ExpectSameBits(got[0], want[0], "loss" + where);
    ExpectSameBits(got[1], want[1], "weight gradient" + where);
    ExpectSameBits(got[2], want[2], "bias gradient" + where);
  }
}

// A bias of the wrong length is the BiasAdd kernel's error, by name.
TEST(DenseLayerFusionTest, ABadBiasIsTheBiasAddKernelsError) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto bias = ops::Placeholder(root.WithOpName("bias"), DT_FLOAT);
  auto product = ops::MatMul(root.WithOpName("product"), x, ops::Const(root, Values(3, 4, 0)));
  auto relu =
      ops::Relu(root.WithOpName("relu"), ops::BiasAdd(root.WithOpName("biased"), product, bias));
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, Values(2, 3, 1)}, {bias, Vector(5, 0.5f)}}, {relu}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "biased")) << s;
  // The session keeps working.
  s = session.Run({{x, Values(2, 3, 1)}, {bias, Vector(4, 0.5f)}}, {relu}, &out);
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace tensorflow_ipu
