// Abseil's lock-order checks, off in optimised builds as Abseil's own
// release builds have them.
//
// Debian's Abseil is built without NDEBUG, so every absl::Mutex operation
// does the bookkeeping of Abseil's debug builds: it records which mutexes
// were held together in one global graph, under a spin lock that every
// thread shares, to report lock-order cycles. On the project's VMs a lock
// and unlock took 40 ns instead of 16, a Notification 102 instead of 35,
// and a session's threads queued on that one spin lock: a Run of a small
// graph cost 0.77 us on the CPU and 2.32 on the IPU path instead of 0.64
// and 2.0 (docs/PERFORMANCE.md).
//
// DirectSession calls this when it is made. In an optimised build of the
// project (NDEBUG), the first call switches the checks off for the process
// (absl::SetMutexDeadlockDetectionMode); debug builds and sanitizer builds
// (which CI runs on every multi-threaded test) keep them, so lock-order
// cycles are still reported there.
#ifndef TENSORFLOW_IPU_RUNTIME_ABSEIL_MUTEX_CHECKS_H_
#define TENSORFLOW_IPU_RUNTIME_ABSEIL_MUTEX_CHECKS_H_

namespace tensorflow_ipu {

// Whether this build switches Abseil's lock-order checks off.
constexpr bool kReleaseMutexChecks =
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    true;
#else
    false;
#endif

// Switches them off once per process when kReleaseMutexChecks; else
// does nothing. Safe from any thread.
void UseReleaseBuildMutexChecks();

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_ABSEIL_MUTEX_CHECKS_H_
