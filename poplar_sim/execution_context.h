// ExecutionContext: functional access to tensor data while an engine runs.
//
// Library compute sets may carry a "bulk executor" (Graph::setBulkExecutor):
// one function that computes the result of all the compute set's vertices
// at once (for example one Eigen contraction for a whole matmul), which the
// engine calls instead of running each vertex's compute(). The cost is still
// that of the vertices, tile by tile; only the host execution is batched.
// The engine option "debug.executeVerticesIndividually" runs the vertices
// instead, so tests can check that both give the same numbers.
// A bulk executor reads and writes only the tensors its compute set's
// vertices connect: the engine runs compute sets that share no variable
// side by side (engine_lanes.cc), knowing them by those connections.
//
//   graph.setBulkExecutor(cs, [a, b, out](ExecutionContext& ctx) {
//     ReadView<float> av(ctx, a), bv(ctx, b);
//     WriteView<float> ov(ctx, out);
//     for (size_t i = 0; i < ov.size(); ++i) ov[i] = av[i] + bv[i];
//     return absl::OkStatus();
//   });
#ifndef POPLAR_SIM_EXECUTION_CONTEXT_H_
#define POPLAR_SIM_EXECUTION_CONTEXT_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/target.h"
#include "poplar_sim/tensor.h"

namespace poplar_sim {

class ExecutionContext {
 public:
  virtual ~ExecutionContext() = default;
  virtual const Target& target() const = 0;
  // The tensor's elements in place if it is one stride-1 run of a variable
  // (or empty), else nullptr.
  virtual void* contiguousData(const Tensor& t) = 0;
  // Copies the tensor's elements, in row-major order, to `dst`.
  virtual void read(const Tensor& t, void* dst) = 0;
  // Copies row-major elements from `src` into the tensor's elements.
  virtual void write(const Tensor& t, const void* src) = 0;
  // The engine's host threads (Engine::setHostThreads), or nullptr: a bulk
  // executor with much work may split it with parallelRanges().
  virtual HostThreads* hostThreads() { return nullptr; }
  // The storage of variable `var` (of the running replica), so that a bulk
  // executor can read or write a view's runs in place instead of gathering
  // them (ElementRun positions are elements from here). Every run of a valid
  // view lies within its variable: views are bounds-checked when made.
  virtual char* variableData(uint32_t var) = 0;
  // Whether some step of the engine's programs (a compute set, a copy, a
  // stream, a reduction) writes part of `t`'s storage, so that it may
  // change during a run; true when not known (an invalid tensor, a
  // variable the engine does not have). Constant weights stay in one
  // core's cache from run to run, whichever thread reads them. A hint for
  // where host work runs, never for values; safe from several host
  // threads at once.
  virtual bool writtenDuringRun(const Tensor& t) { return true; }
};

using BulkExecutor = std::function<absl::Status(ExecutionContext&)>;

// The host work of an element-wise compute set, given part by part
// (Graph::setElementwiseExecutor): run(ctx, begin, end) computes elements
// [begin, end) of `out` (in its row-major order) and writes nothing else.
// It may read `out` itself (in place) only at those same positions, and
// any element of the other tensors in `reads`, which must then share no
// variable with `out`; it runs on the calling thread (never splits its
// part) and cannot fail.
//
// The engine runs [0, n) as the compute set's bulk execution, split over
// its host threads when large; and when several such compute sets write
// the same `out` one after another in a Sequence (a product's partial sums,
// then its bias, then its activation), it runs all of them on the first
// few kilobytes of `out`, then all on the next, so that `out` stays in the
// core's cache between them (engine_chains.cc). Values are the same either
// way: every element depends on the same element alone.
struct ElementwiseExecutor {
  Tensor out;  // one stride-1 run of a variable (Tensor::isContiguous)
  std::vector<Tensor> reads;
  std::function<void(ExecutionContext&, size_t begin, size_t end)> run;
};

// Parts of an element-wise compute set's output smaller than this many
// elements are not split over host threads: a hand-over costs about what
// tens of thousands of element operations do.
constexpr size_t kElementwiseSplitGrain = size_t{1} << 15;

// Read access to a tensor as a contiguous array of T, without a copy when
// the tensor is contiguous. T must be the tensor's element type.
template <typename T>
class ReadView {
 public:
  // forceCopy: take a snapshot even if the tensor is contiguous (when the
  // caller is about to overwrite the same storage through another view).
  ReadView(ExecutionContext& ctx, const Tensor& t, bool forceCopy = false)
      : size_(t.numElements()) {
    if (!forceCopy) ptr_ = static_cast<const T*>(ctx.contiguousData(t));
    if (ptr_ == nullptr && size_ > 0) {
      copy_.reset(new T[size_]);
      ctx.read(t, copy_.get());
      ptr_ = copy_.get();
    }
  }
  const T* data() const { return ptr_; }
  size_t size() const { return size_; }
  const T& operator[](size_t i) const { return ptr_[i]; }

 private:
  const T* ptr_ = nullptr;
  size_t size_;
  std::unique_ptr<T[]> copy_;  // not std::vector: vector<bool> has no data()
};

// Write access to a tensor as a contiguous array of T. A non-contiguous
// tensor is written back when the view is destroyed (or on commit()).
template <typename T>
class WriteView {
 public:
  WriteView(ExecutionContext& ctx, const Tensor& t, bool readFirst = false)
      : ctx_(ctx), t_(t), size_(t.numElements()) {
    ptr_ = static_cast<T*>(ctx.contiguousData(t));
    if (ptr_ == nullptr && size_ > 0) {
      copy_.reset(new T[size_]);
      if (readFirst) ctx.read(t, copy_.get());
      ptr_ = copy_.get();
    }
  }
  WriteView(const WriteView&) = delete;
  WriteView& operator=(const WriteView&) = delete;
  ~WriteView() { commit(); }
  void commit() {
    if (copy_) ctx_.write(t_, copy_.get());
  }
  T* data() { return ptr_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return ptr_[i]; }

 private:
  ExecutionContext& ctx_;
  Tensor t_;
  T* ptr_ = nullptr;
  size_t size_;
  std::unique_ptr<T[]> copy_;  // not std::vector: vector<bool> has no data()
};

}  // namespace poplar_sim

#endif  // POPLAR_SIM_EXECUTION_CONTEXT_H_
