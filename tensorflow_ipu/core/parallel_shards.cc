#include "tensorflow_ipu/core/parallel_shards.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace tensorflow_ipu {
namespace {

// Shared with the helper tasks, which may start after RunShards returned
// (when every shard was taken by then): they then only find no shard left.
struct ShardState {
  explicit ShardState(int n) : num_shards(n) {}
  const int num_shards;
  std::atomic<int> next{0};
  std::atomic<int> finished{0};
  absl::Notification all_finished;  // by whoever finishes the last shard

  // Runs unclaimed shards until none is left. `fn` is only called for a
  // claimed shard, and RunShards waits for those, so it is still alive.
  void RunClaimed(const std::function<void(int)>* fn) {
    for (int i = next.fetch_add(1); i < num_shards; i = next.fetch_add(1)) {
      (*fn)(i);
      if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == num_shards) {
        all_finished.Notify();
      }
    }
  }
};

// How long the caller polls for the other shards before it sleeps.
constexpr absl::Duration kPollBeforeSleeping = absl::Microseconds(500);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

void RunShards(const Eigen::ThreadPoolDevice& device, int num_shards,
               const std::function<void(int)>& fn) {
  if (num_shards <= 0) return;
  const int helpers = std::min(num_shards, device.numThreads()) - 1;
  if (helpers <= 0) {
    for (int i = 0; i < num_shards; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ShardState>(num_shards);
  const std::function<void(int)>* f = &fn;
  for (int h = 0; h < helpers; ++h) {
    device.enqueueNoNotification([state, f] { state->RunClaimed(f); });
  }
  state->RunClaimed(f);
  // The shards still running elsewhere are about as long as the ones just
  // run here: poll for them before sleeping. A futex wake-up from another
  // core cost tens of microseconds on the KVM machines, as long as a half
  // of the products split here. Polled: the count, which the last shard
  // raises before it notifies; once all are counted nobody uses `fn`.
  // The clock is read only once the poll goes on (most shards finish
  // within a few hundred pauses), not on every call.
  absl::Time poll_until = absl::InfiniteFuture();
  for (int i = 0; state->finished.load(std::memory_order_acquire) < num_shards; ++i) {
    if ((i & 63) == 63) {
      const absl::Time now = absl::Now();
      if (poll_until == absl::InfiniteFuture()) {
        poll_until = now + kPollBeforeSleeping;
      } else if (now >= poll_until) {
        state->all_finished.WaitForNotification();
        return;
      }
    }
    CpuRelax();
  }
}

void RunRanges(const Eigen::ThreadPoolDevice& device, int64_t extent, int64_t grain,
               int max_shards, const std::function<void(int64_t, int64_t)>& fn) {
  grain = std::max<int64_t>(1, grain);
  const int64_t shards = std::max<int64_t>(1, std::min<int64_t>(max_shards, extent / grain));
  if (shards == 1) {
    fn(0, extent);
    return;
  }
  auto boundary = [&](int64_t s) {
    return s == shards ? extent : (extent * s + shards * grain / 2) / (shards * grain) * grain;
  };
  RunShards(device, static_cast<int>(shards),
            [&](int s) { fn(boundary(s), boundary(s + 1)); });
}

}  // namespace tensorflow_ipu
