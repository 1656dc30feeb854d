// Element-wise work on an engine's memory, as popops' bulk executors do
// it: when an operand must be snapshotted because it aliases the output,
// splitting [0, n) over the host threads (every element depends on itself
// alone, so no value changes), operands that repeat a block (a bias), and
// views made of stride-1 runs computed run by run in place. Internal to
// popops (elementwise.cc).
#ifndef POPLAR_SIM_POPOPS_ELEMENTWISE_HOST_H_
#define POPLAR_SIM_POPOPS_ELEMENTWISE_HOST_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/popops/expr_types.h"
#include "poplar_sim/tensor.h"

namespace poplar_sim {
namespace popops {
namespace internal {

// Whether reading `in` while writing `out` needs a snapshot of `in`: it
// shares storage with `out` in a way a pointer walk could see
// already-written values (a reversed or shifted view of the output). Views
// are fixed when a program is built, so this is decided then, not per run.
bool NeedsSnapshot(const Tensor& in, const Tensor& out);

// Read access to `in`, a snapshot when `snapshot` (NeedsSnapshot).
template <typename T>
std::unique_ptr<ReadView<T>> SafeRead(ExecutionContext& ctx, const Tensor& in,
                                      bool snapshot) {
  return std::make_unique<ReadView<T>>(ctx, in, /*forceCopy=*/snapshot);
}

// The length of the block of `t`'s elements that repeats when `t` is
// broadcast to `shape`: t's shape, after leading 1s, is a suffix of `shape`
// (a bias [n] over [m,n], a scalar over anything). numElements of `shape`
// when t is not broadcast at all; 0 when the broadcast is of another kind
// (a column [m,1] over [m,n]).
size_t RepeatPeriod(const Tensor& t, const std::vector<size_t>& shape);

// Element-wise work on [0, n), split over the host threads when each part
// has at least `grain` elements (by default tens of microseconds of work,
// where a hand-off costs a few). Every element depends on itself alone, so
// the split changes no value.
constexpr size_t kSplitGrain = kElementwiseSplitGrain;
template <typename F>
void ForRanges(HostThreads* threads, size_t n, F&& f, size_t grain = kSplitGrain) {
  parallelRanges(threads, n, [&](size_t begin, size_t end) { f(begin, end); }, grain);
}
template <typename F>
void ForRanges(ExecutionContext& ctx, size_t n, F&& f) {
  ForRanges(ctx.hostThreads(), n, std::forward<F>(f));
}

// Repeating blocks of at least this many elements are read in place, a
// block at a time; shorter ones (a scalar) are first tiled into a buffer of
// about kRepeatChunk elements, so that loops stay vector-length.
constexpr size_t kDirectRepeatPeriod = 64;
constexpr size_t kRepeatChunk = 1024;

// out[begin, end) = op(a, b), where an operand whose period is 0 has all of
// out's elements (read at out's positions; it may be out itself) and one
// whose period is p > 0 is a block of p elements repeated to out's length
// (read at position % p, a bias over a batch) and shares no storage with
// out. At most one operand repeats. Element by element, so any split of
// out's positions gives the same values.
template <typename T, typename OutT>
void ApplyBinaryRange(BinaryOpType op, const T* a, size_t aPeriod, const T* b,
                      size_t bPeriod, OutT* out, size_t begin, size_t end) {
  if (aPeriod == 0 && bPeriod == 0) {
    internal::applyBinary(op, a + begin, b + begin, out + begin, end - begin);
    return;
  }
  const bool repFirst = aPeriod != 0;
  const T* rep = repFirst ? a : b;
  const T* full = repFirst ? b : a;
  const size_t period = repFirst ? aPeriod : bPeriod;
  auto apply = [&](const T* block, size_t i, size_t len) {
    if (repFirst) {
      internal::applyBinary(op, block, full + i, out + i, len);
    } else {
      internal::applyBinary(op, full + i, block, out + i, len);
    }
  };
  if (period >= kDirectRepeatPeriod) {
    for (size_t i = begin; i < end;) {
      const size_t phase = i % period, len = std::min(period - phase, end - i);
      apply(rep + phase, i, len);
      i += len;
    }
    return;
  }
  // Whole blocks long, starting at begin's phase, so that every stretch of
  // `length` from begin starts at that phase too (a modulo per element
  // would cost more than the operation).
  T tiled[kRepeatChunk + kDirectRepeatPeriod];
  const size_t blocks = std::min((kRepeatChunk + period - 1) / period,
                                 (end - begin + period - 1) / period);
  const size_t length = blocks * period;
  for (size_t j = 0, from = begin % period; j < length; from = 0) {
    const size_t len = std::min(period - from, length - j);
    std::copy_n(rep + from, len, tiled + j);
    j += len;
  }
  for (size_t i = begin; i < end; i += length) apply(tiled, i, std::min(length, end - i));
}

// Run by run pays a call per stretch: worth it from a few elements a run
// (a gather copies an element in about a nanosecond).
constexpr size_t kMinElementsPerRun = 8;

// True if every run of `t` is stride 1 (single elements are stride 1 in a
// view's canonical form), so that it can be read or written in place, run
// by run.
bool UnitStrideRuns(const Tensor& t);

// A position in a view's runs, in the engine's memory.
struct RunCursor {
  const std::vector<ElementRun>& runs;
  size_t i = 0;
  int64_t k = 0;  // elements of runs[i] already passed
  int64_t left() const { return runs[i].count - k; }
  char* at(ExecutionContext& ctx, size_t elementBytes) const {
    return ctx.variableData(runs[i].var) + (runs[i].start + k) * elementBytes;
  }
  void advance(int64_t n) {
    k += n;
    if (k == runs[i].count) {
      ++i;
      k = 0;
    }
  }
  // Moves to element `e` of the view (from its start).
  void seek(size_t e) {
    i = 0;
    k = 0;
    while (i < runs.size() && static_cast<size_t>(runs[i].count) <= e) {
      e -= static_cast<size_t>(runs[i].count);
      ++i;
    }
    k = static_cast<int64_t>(e);
  }
};

// out = op(a, b) computed run by run in the engine's memory, for views of
// one element count made of stride-1 runs: each stretch where the three
// views' current runs overlap is one applyBinary call, with no gather into
// a copy and no scatter back. Element-wise, so the values are those of the
// whole-array call. The caller has ruled out operands that alias the output
// other than exactly (NeedsSnapshot) and outputs that repeat an element
// (which would be read after an earlier stretch wrote it).
// Split over the host threads by element ranges, each walking the runs
// from where its range starts.
template <typename T, typename OutT>
void ApplyBinaryInPlace(ExecutionContext& ctx, BinaryOpType op, const Tensor& a,
                        const Tensor& b, const Tensor& out) {
  ForRanges(ctx, out.numElements(), [&](size_t begin, size_t end) {
    RunCursor ca{a.runs()}, cb{b.runs()}, co{out.runs()};
    if (begin > 0) {
      ca.seek(begin);
      cb.seek(begin);
      co.seek(begin);
    }
    for (size_t done = begin; done < end;) {
      const int64_t n = std::min({ca.left(), cb.left(), co.left(),
                                  static_cast<int64_t>(end - done)});
      internal::applyBinary(op, reinterpret_cast<const T*>(ca.at(ctx, sizeof(T))),
                            reinterpret_cast<const T*>(cb.at(ctx, sizeof(T))),
                            reinterpret_cast<OutT*>(co.at(ctx, sizeof(OutT))),
                            static_cast<size_t>(n));
      ca.advance(n);
      cb.advance(n);
      co.advance(n);
      done += static_cast<size_t>(n);
    }
  });
}


}  // namespace internal
}  // namespace popops
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPOPS_ELEMENTWISE_HOST_H_
