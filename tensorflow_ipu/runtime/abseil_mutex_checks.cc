#include "tensorflow_ipu/runtime/abseil_mutex_checks.h"

#include "absl/synchronization/mutex.h"

namespace tensorflow_ipu {

void UseReleaseBuildMutexChecks() {
  if constexpr (kReleaseMutexChecks) {
    static const bool switched_off = [] {
      absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
      return true;
    }();
    (void)switched_off;
  }
}

}  // namespace tensorflow_ipu
