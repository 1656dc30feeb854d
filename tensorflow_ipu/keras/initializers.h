// Keras's weight initializers by name, seeded reproducibly.
//
// With keras::utils::set_random_seed(s) every layer's initial weights are a
// function of s and the order in which the layers are built (so a program
// makes the same model every time, on the CPU and the IPU alike); without
// it they differ from run to run, as Keras's unseeded initializers do.
#ifndef TENSORFLOW_IPU_KERAS_INITIALIZERS_H_
#define TENSORFLOW_IPU_KERAS_INITIALIZERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/cc/variables/initializers.h"

namespace tensorflow_ipu {
namespace keras {

namespace utils {
// TensorFlow's tf.keras.utils.set_random_seed (the global seed).
void set_random_seed(int64_t seed);
std::optional<int64_t> random_seed();
// A nonzero seed for one random op of a layer ("kernel", "dropout"): the
// next of the global seed's sequence (the names only label the use); 0
// (fresh values) when no global seed is set.
int64_t DerivedSeed(const std::string& layer, const std::string& purpose);
// The next of a sequence of seeds that restarts at each set_random_seed
// (fit's shuffles), so a program that sets the seed shuffles the same way
// each time it runs; without a global seed, fresh values.
uint64_t NextSequenceSeed();
}  // namespace utils

namespace initializers {

// "glorot_uniform", "zeros",
// "ones", "random_uniform" (-0.05, 0.05), "random_normal" (stddev 0.05).
// `layer` and `weight` name the variable for its seed.
absl::StatusOr<Initializer> Get(const std::string& name, const std::string& layer,
                                const std::string& weight);

}  // namespace initializers
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_INITIALIZERS_H_
