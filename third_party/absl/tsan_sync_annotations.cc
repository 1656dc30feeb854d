// ThreadSanitizer annotations for Debian's prebuilt Abseil, linked only
// under --config=tsan (see //third_party/absl:BUILD).
//
// Debian's libabsl_synchronization is not built with -fsanitize=thread, so
// ThreadSanitizer cannot see that absl::Mutex orders the accesses it guards
// (the lock is an atomic inside an uninstrumented library) and reports
// every guarded access as a race. Abseil annotates its own locks only when
// it is itself compiled under tsan. Here the executable interposes the few
// entry points this project calls (the dynamic linker resolves calls to
// them, also those from inside Abseil, to these definitions first), calls
// the library's own through dlsym(RTLD_NEXT), and tells tsan about the
// happens-before edge each one creates: a release before giving a lock up,
// an acquire after taking it.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

// The library's definition of `mangled`, or an abort naming it: a missing
// symbol means the Abseil ABI changed and these annotations must follow.
template <typename Fn>
Fn Real(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (f == nullptr) {
    std::fprintf(stderr, "tsan_sync_annotations: %s not found in Abseil\n", mangled);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

void* Addr(const void* p) { return const_cast<void*>(p); }

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static auto real = Real<void (*)(Mutex*)>("_ZN4absl7debian35Mutex4LockEv");
  real(this);
  __tsan_acquire(this);
}

bool Mutex::TryLock() {
  static auto real = Real<bool (*)(Mutex*)>("_ZN4absl7debian35Mutex7TryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::Unlock() {
  static auto real = Real<void (*)(Mutex*)>("_ZN4absl7debian35Mutex6UnlockEv");
  __tsan_release(this);
  real(this);
}

void Mutex::ReaderLock() {
  static auto real = Real<void (*)(Mutex*)>("_ZN4absl7debian35Mutex10ReaderLockEv");
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderUnlock() {
  static auto real = Real<void (*)(Mutex*)>("_ZN4absl7debian35Mutex12ReaderUnlockEv");
  __tsan_release(this);
  real(this);
}

void Mutex::LockWhen(const Condition& cond) {
  static auto real = Real<void (*)(Mutex*, const Condition&)>(
      "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE");
  real(this, cond);
  __tsan_acquire(this);
}

// Await gives the lock up while it waits and takes it back.
void Mutex::Await(const Condition& cond) {
  static auto real = Real<void (*)(Mutex*, const Condition&)>(
      "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE");
  __tsan_release(this);
  real(this, cond);
  __tsan_acquire(this);
}

void CondVar::Wait(Mutex* mu) {
  static auto real =
      Real<void (*)(CondVar*, Mutex*)>("_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE");
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

// A notified Notification orders what preceded Notify() before what follows
// a wait that returns, also on the wait's lock-free fast path.
void Notification::Notify() {
  static auto real =
      Real<void (*)(Notification*)>("_ZN4absl7debian312Notification6NotifyEv");
  __tsan_release(this);
  real(this);
}

void Notification::WaitForNotification() const {
  static auto real = Real<void (*)(const Notification*)>(
      "_ZNK4absl7debian312Notification19WaitForNotificationEv");
  real(this);
  __tsan_acquire(Addr(this));
}

ABSL_NAMESPACE_END
}  // namespace absl
