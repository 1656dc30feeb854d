#include "tensorflow_ipu/keras/backend.h"

#include <cctype>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace tensorflow_ipu {
namespace keras {
namespace backend {
namespace {

absl::Mutex mu(absl::kConstInit);
std::map<std::string, int>& Counts() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
  static auto* counts = new std::map<std::string, int>();
  return *counts;
}

}  // namespace

// Keras's to_snake_case: "MaxPooling2D" -> "max_pooling2d".
std::string to_snake_case(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    if (upper && i > 0) {
      const char prev = name[i - 1];
      const bool next_lower_or_digit =
          i + 1 < name.size() && (std::islower(static_cast<unsigned char>(name[i + 1])) ||
                                  std::isdigit(static_cast<unsigned char>(name[i + 1])));
      // An upper-case letter starts a word after a lower-case letter, or
      // when a lower-case run or digit follows it ("Pooling" in MaxPooling).
      if (std::islower(static_cast<unsigned char>(prev)) || next_lower_or_digit) {
        out += '_';
      }
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string unique_object_name(const std::string& base, bool zero_based) {
  absl::MutexLock lock(&mu);
  const int n = Counts()[base]++ + (zero_based ? 0 : 1);
  return n == 0 ? base : absl::StrCat(base, "_", n);
}

void clear_session() {
  absl::MutexLock lock(&mu);
  Counts().clear();
}

}  // namespace backend
}  // namespace keras
}  // namespace tensorflow_ipu
