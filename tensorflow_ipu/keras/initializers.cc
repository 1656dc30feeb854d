#include "tensorflow_ipu/keras/initializers.h"

#include <atomic>
#include <chrono>
#include <functional>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {
namespace {
std::atomic<bool> has_seed{false};
std::atomic<int64_t> global_seed{0};
std::atomic<uint64_t> sequence{0};
}  // namespace

void set_random_seed(int64_t seed) {
  global_seed = seed;
  has_seed = true;
  sequence = 0;
}

uint64_t NextSequenceSeed() {
  const uint64_t n = ++sequence;
  const uint64_t base = has_seed ? static_cast<uint64_t>(global_seed.load())
                                 : static_cast<uint64_t>(
                                       std::chrono::steady_clock::now().time_since_epoch().count());
  return base * 6364136223846793005ull + 1442695040888963407ull * n;
}

std::optional<int64_t> random_seed() {
  if (!has_seed) return std::nullopt;
  return global_seed.load();
}

// As TensorFlow derives op seeds from the global seed and the order in
// which ops are made: a program that sets the seed and builds the same
// model gets the same weights and dropout streams, whatever the layers'
// names (which count up across models in one process).
int64_t DerivedSeed(const std::string&, const std::string&) {
  if (!has_seed) return 0;  // fresh values
  return static_cast<int64_t>(NextSequenceSeed() & 0x7fffffffffffffffull) | 1;
}

}  // namespace utils

namespace initializers {

absl::StatusOr<Initializer> Get(const std::string& name, const std::string& layer,
                                const std::string& weight) {
  const int64_t seed = utils::DerivedSeed(layer, weight);
  if (name == "glorot_uniform") return tensorflow_ipu::initializers::GlorotUniform(seed);
  if (name == "zeros") return tensorflow_ipu::initializers::Zeros();
  if (name == "ones") return tensorflow_ipu::initializers::Ones();
  if (name == "random_uniform") {
    return tensorflow_ipu::initializers::RandomUniform(-0.05, 0.05, seed);
  }
  if (name == "random_normal") {
    return tensorflow_ipu::initializers::RandomNormal(0.0, 0.05, seed);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown initializer: '", name, "' for the ", weight, " of layer \"", layer,
      "\". Please use one of \"glorot_uniform\", \"zeros\", \"ones\", "
      "\"random_uniform\", \"random_normal\""));
}

}  // namespace initializers
}  // namespace keras
}  // namespace tensorflow_ipu
