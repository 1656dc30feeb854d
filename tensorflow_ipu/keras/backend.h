// keras::backend: the process-wide naming of Keras objects.
//
// Layers and models without a given name are named after their class, as
// Keras names them ("conv2d", "conv2d_1", "max_pooling2d", "model",
// "input_1"), counted per name across the process;
// keras::backend::clear_session() restarts the counts, as
// tf.keras.backend.clear_session() does.
#ifndef TENSORFLOW_IPU_KERAS_BACKEND_H_
#define TENSORFLOW_IPU_KERAS_BACKEND_H_

#include <string>

namespace tensorflow_ipu {
namespace keras {
namespace backend {

// Keras's to_snake_case: "MaxPooling2D" -> "max_pooling2d".
std::string to_snake_case(const std::string& name);
// `base` the first time, then base_1, base_2, ... With `zero_based` false
// the first is base_1 (Keras's inputs: input_1, input_2).
std::string unique_object_name(const std::string& base, bool zero_based = true);
void clear_session();

}  // namespace backend
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_BACKEND_H_
