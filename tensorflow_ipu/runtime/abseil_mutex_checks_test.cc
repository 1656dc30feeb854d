#include "tensorflow_ipu/runtime/abseil_mutex_checks.h"

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/runtime/direct_session.h"

namespace tensorflow_ipu {
namespace {

// Two mutexes taken in one order, then in the other, on one thread: no
// deadlock happens, but Abseil's lock-order checks report the cycle and
// abort the process.
void TakeInBothOrders() {
  absl::Mutex a, b;
  {
    absl::MutexLock la(&a);
    absl::MutexLock lb(&b);
  }
  {
    absl::MutexLock lb(&b);
    absl::MutexLock la(&a);
  }
}

// A session switches the checks off in an optimised build; sanitizer and
// debug builds keep them (Debian's Abseil does them in every build).
TEST(AbseilMutexChecksTest, ASessionSwitchesThemOffOnlyInOptimisedBuilds) {
  DirectSession session{SessionOptions()};
  if (kReleaseMutexChecks) {
    TakeInBothOrders();  // would abort with the checks on
    SUCCEED();
  } else {
    EXPECT_DEATH(TakeInBothOrders(), "Potential Mutex deadlock");
  }
}

}  // namespace
}  // namespace tensorflow_ipu
