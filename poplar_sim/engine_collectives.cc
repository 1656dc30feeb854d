// Engine execution, the collectives: a cross-replica reduction runs when
// every replica of its group has reached it; then each replica goes on.
// Apart from engine_run.cc because the reduction arithmetic (exact,
// in replica order, cache-blocked) is a concern of its own.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "poplar_sim/engine_internal.h"
#include "poplar_sim/status_macros.h"

namespace poplar_sim {
namespace internal {

namespace {

// Element i of the reduction of floating-point or BOOL `values` (one buffer
// per replica of the group), computed in double: exact for float sums of a
// few replicas, in replica order, so deterministic.
double Reduce(program::CollectiveOperator op, Type type,
              const std::vector<std::unique_ptr<char[]>>& values, unsigned first,
              unsigned count, size_t i) {
  double acc = loadAsDouble(type, values[first].get(), i);
  for (unsigned r = first + 1; r < first + count; ++r) {
    const double v = loadAsDouble(type, values[r].get(), i);
    switch (op) {
      case program::CollectiveOperator::ADD:
      case program::CollectiveOperator::MEAN: acc += v; break;
      case program::CollectiveOperator::MUL: acc *= v; break;
      case program::CollectiveOperator::MIN: acc = std::min(acc, v); break;
      case program::CollectiveOperator::MAX: acc = std::max(acc, v); break;
    }
  }
  if (op == program::CollectiveOperator::MEAN) acc /= count;
  return acc;
}

// Element i of the reduction of integer `values` in the integers' own
// arithmetic: sums and products wrap round at T's width (two's
// complement), as the IPU's integer adds and multiplies and the
// element-wise ops do (popops/expr_types.h); minima and maxima are exact;
// a mean is the exact mean (summed in 128 bits) rounded toward zero, as an
// integer division rounds. In double, sums past T's range saturated and
// 64-bit values past 2^53 rounded.
template <typename T>
T ReduceInteger(program::CollectiveOperator op,
                const std::vector<std::unique_ptr<char[]>>& values, unsigned first,
                unsigned count, size_t i) {
  using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
  auto at = [&](unsigned r) { return reinterpret_cast<const T*>(values[r].get())[i]; };
  // Unsigned arithmetic is modular: the low bits of the result are those
  // of the wrapped sum or product whatever the operands' width.
  uint64_t wrapped = static_cast<uint64_t>(at(first));
  Wide exact = at(first);
  T best = at(first);
  for (unsigned r = first + 1; r < first + count; ++r) {
    const T v = at(r);
    switch (op) {
      case program::CollectiveOperator::ADD: wrapped += static_cast<uint64_t>(v); break;
      case program::CollectiveOperator::MEAN: exact += v; break;
      case program::CollectiveOperator::MUL: wrapped *= static_cast<uint64_t>(v); break;
      case program::CollectiveOperator::MIN: best = std::min(best, v); break;
      case program::CollectiveOperator::MAX: best = std::max(best, v); break;
    }
  }
  switch (op) {
    case program::CollectiveOperator::ADD:
    case program::CollectiveOperator::MUL: return static_cast<T>(wrapped);
    case program::CollectiveOperator::MEAN: return static_cast<T>(exact / Wide(count));
    case program::CollectiveOperator::MIN:
    case program::CollectiveOperator::MAX: return best;
  }
  return best;
}

// Element i of the reduction of `values` stored into `out`: integers as
// ReduceInteger, floating point and BOOL through Reduce (in double).
void ReduceElement(program::CollectiveOperator op, Type type,
                   const std::vector<std::unique_ptr<char[]>>& values, unsigned first,
                   unsigned count, size_t i, void* out) {
  auto integer = [&](auto tag) {
    using T = decltype(tag);
    static_cast<T*>(out)[i] = ReduceInteger<T>(op, values, first, count, i);
  };
  switch (type) {
    case Type::INT: return integer(int32_t{});
    case Type::UNSIGNED_INT: return integer(uint32_t{});
    case Type::LONGLONG: return integer(int64_t{});
    case Type::CHAR: return integer(int8_t{});
    case Type::UNSIGNED_CHAR: return integer(uint8_t{});
    case Type::FLOAT:
    case Type::HALF:
    case Type::BOOL:
      storeFromDouble(type, out, i, Reduce(op, type, values, first, count, i));
      return;
  }
}

// Calls f(i) for i in [0, n), in fixed chunks of 16 and then the rest.
// The chunks are what lets the compiler vectorise these loops: at -O2 GCC
// vectorises only loops that need neither a scalar remainder nor a run-time
// check that an output does not overlap an input, and an all-reduce may
// write its own input. Scalar, ReduceFloatRange ran at about one element a
// cycle: 88 us of a replicated MLP step for its 200,704 weight gradients.
template <typename F>
inline void ForEachInChunks(size_t n, F f) {
  constexpr size_t kChunk = 16;
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    for (size_t j = 0; j < kChunk; ++j) f(i + j);
  }
  for (; i < n; ++i) f(i);
}

// x[i] = y[i] = (x[i] + y[i]) x scale for i in [0, n), in double as
// Reduce: the in-place sum of two replicas' buffers (distinct memories, so
// `__restrict` holds, and each element is read before it is written). One
// pass that GCC vectorises, without the local block and its copies.
void SumTwoInPlace(float* __restrict x, float* __restrict y, double scale, size_t n) {
  auto sum = [scale](float a, float b) {
    return static_cast<float>((static_cast<double>(a) + static_cast<double>(b)) * scale);
  };
  constexpr size_t kChunk = 16;
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    float* __restrict xs = x + i;
    float* __restrict ys = y + i;
    for (size_t j = 0; j < kChunk; ++j) {
      const float s = sum(xs[j], ys[j]);
      xs[j] = s;
      ys[j] = s;
    }
  }
  for (; i < n; ++i) x[i] = y[i] = sum(x[i], y[i]);
}

// The same for elements [begin, end) of float buffers, without converting
// through the type per element (gradients are floats, and a step of a
// replicated training loop reduces every one of them): the same values as
// Reduce, computed in double in replica order, a block at a time so that
// the partial sums stay in the L1 cache; the result goes to every one of
// `outs`. Every block is read whole before any output of it is written, so
// an output may be an input (an in-place all-reduce).
void ReduceFloatRange(program::CollectiveOperator op, const std::vector<const float*>& values,
                      unsigned first, unsigned count, size_t begin, size_t end,
                      const std::vector<float*>& outs) {
  // x / count, as a product when that is exact (a power of two).
  const bool exact = (count & (count - 1)) == 0;
  const double inverse = 1.0 / count;
  const bool sum = op == program::CollectiveOperator::ADD ||
                   op == program::CollectiveOperator::MEAN;
  constexpr size_t kBlock = 2048;
  if (sum && count == 2 && (exact || op == program::CollectiveOperator::ADD)) {
    // Two replicas (the common case): one pass over the inputs, the same
    // operations per element as below.
    const double scale = op == program::CollectiveOperator::MEAN ? inverse : 1.0;
    if (outs.size() == 2 && outs[0] == values[first] && outs[1] == values[first + 1] &&
        outs[0] != outs[1]) {
      SumTwoInPlace(outs[0] + begin, outs[1] + begin, scale, end - begin);
      return;
    }
    float result[kBlock];
    for (size_t b = begin; b < end; b += kBlock) {
      const size_t m = std::min(kBlock, end - b);
      const float* x = values[first] + b;
      const float* y = values[first + 1] + b;
      ForEachInChunks(m, [&](size_t i) {
        result[i] = static_cast<float>(
            (static_cast<double>(x[i]) + static_cast<double>(y[i])) * scale);
      });
      for (float* out : outs) std::memcpy(out + b, result, m * sizeof(float));
    }
    return;
  }
  double acc[kBlock];
  for (size_t b = begin; b < end; b += kBlock) {
    const size_t m = std::min(kBlock, end - b);
    const float* in = values[first] + b;
    ForEachInChunks(m, [&](size_t i) { acc[i] = in[i]; });
    for (unsigned r = 1; r < count; ++r) {
      in = values[first + r] + b;
      switch (op) {
        case program::CollectiveOperator::ADD:
        case program::CollectiveOperator::MEAN:
          ForEachInChunks(m, [&](size_t i) { acc[i] += in[i]; });
          break;
        case program::CollectiveOperator::MUL:
          ForEachInChunks(m, [&](size_t i) { acc[i] *= in[i]; });
          break;
        case program::CollectiveOperator::MIN:
          ForEachInChunks(m, [&](size_t i) {
            acc[i] = std::min(acc[i], static_cast<double>(in[i]));
          });
          break;
        case program::CollectiveOperator::MAX:
          ForEachInChunks(m, [&](size_t i) {
            acc[i] = std::max(acc[i], static_cast<double>(in[i]));
          });
          break;
      }
    }
    if (op == program::CollectiveOperator::MEAN) {
      if (exact) {
        ForEachInChunks(m, [&](size_t i) { acc[i] *= inverse; });
      } else {
        ForEachInChunks(m, [&](size_t i) { acc[i] /= count; });
      }
    }
    for (float* out : outs) {
      float* o = out + b;
      ForEachInChunks(m, [&](size_t i) { o[i] = static_cast<float>(acc[i]); });
    }
  }
}

// All `n` elements, split over the host threads (each element's result
// depends on that element alone, so the split changes no value). The
// reduction is bound by memory bandwidth, which two cores have more of.
void ReduceFloats(program::CollectiveOperator op, const std::vector<const float*>& values,
                  unsigned first, unsigned count, size_t n, const std::vector<float*>& outs,
                  HostThreads* threads) {
  constexpr size_t kGrain = 16384;
  parallelRanges(
      threads, n,
      [&](size_t begin, size_t end) {
        ReduceFloatRange(op, values, first, count, begin, end, outs);
      },
      kGrain);
}

// Whether `a` and `b` are the same unit-stride runs in the same order.
bool SameRuns(const std::vector<ElementRun>& a, const std::vector<ElementRun>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].stride != 1 || b[k].stride != 1 || a[k].var != b[k].var ||
        a[k].start != b[k].start || a[k].count != b[k].count) {
      return false;
    }
  }
  return true;
}

// At most this many runs are reduced run by run; a view of more pieces is
// gathered into one buffer first.
constexpr size_t kMaxRunsReducedInPlace = 1024;

// The reduction of the unit-stride runs `src`, concatenated, written into
// the run `dst` (as long as they are together, in a variable none of them
// is in), or, without `dst`, over the runs themselves (an in-place
// all-reduce of gradients that nothing else reads), in every replica's
// memory, for groups of `group` replicas; split over the host threads by
// elements across the runs.
void ReduceFloatRuns(program::CollectiveOperator op, const std::vector<ElementRun>& src,
                     const ElementRun* dst, unsigned group,
                     const std::vector<ReplicaMemory>& memory, HostThreads* threads) {
  const unsigned replicas = static_cast<unsigned>(memory.size());
  std::vector<size_t> offsets(src.size() + 1, 0);
  for (size_t k = 0; k < src.size(); ++k) offsets[k + 1] = offsets[k] + src[k].count;
  auto at = [&](unsigned r, uint32_t var, int64_t start) {
    return reinterpret_cast<float*>(memory[r].base[var]) + start;
  };
  parallelRanges(
      threads, offsets.back(),
      [&](size_t begin, size_t end) {
        std::vector<const float*> ins(replicas);
        std::vector<float*> outs;
        // The first run that ends after `begin`.
        size_t k = std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1;
        for (; k < src.size() && offsets[k] < end; ++k) {
          const size_t lo = std::max(begin, offsets[k]), hi = std::min(end, offsets[k + 1]);
          for (unsigned r = 0; r < replicas; ++r) ins[r] = at(r, src[k].var, src[k].start);
          for (unsigned g = 0; g < replicas; g += group) {
            outs.clear();
            for (unsigned r = g; r < g + group; ++r) {
              outs.push_back(dst == nullptr
                                 ? at(r, src[k].var, src[k].start)
                                 : at(r, dst->var, dst->start + static_cast<int64_t>(offsets[k])));
            }
            ReduceFloatRange(op, ins, g, group, lo - offsets[k], hi - offsets[k], outs);
          }
        }
      },
      16384);
}

}  // namespace

absl::Status EngineImpl::reduceAcrossReplicas(std::vector<ReplicaRun>& runs) {
  unsigned first = 0;
  while (runs[first].waitingAt < 0) ++first;  // the caller saw one waiting
  const int at = runs[first].waitingAt;
  const CompiledStep& st = steps[at];
  const program::ProgramNode& n = *st.node;
  for (unsigned r = 0; r < runs.size(); ++r) {
    if (runs[r].waitingAt == at) continue;
    const std::string where =
        runs[r].done() ? std::string("finished the program")
                       : absl::StrCat("waits at step ", runs[r].waitingAt, " ('",
                                      steps[runs[r].waitingAt].node->debugName, "')");
    return absl::FailedPreconditionError(absl::StrCat(
        "CrossReplicaReduce '", n.debugName, "' (step ", at, "): replica ", first,
        " waits here but replica ", r, " ", where, "; every replica must reach the same cross-replica "
        "reductions in the same order (control flow that depends on one replica's "
        "data must not skip or repeat a reduction)"));
  }
  // The reduction starts when the IPUs it involves are free in every
  // replica: the earlier ones wait.
  const std::vector<unsigned>& ipus = profile.steps[at].ipus;
  uint64_t latest = 0;
  for (const ReplicaRun& r : runs) latest = std::max(latest, r.timeline.clock(ipus));
  for (ReplicaRun& r : runs) r.timeline.waitUntil(ipus, latest);
  const Type type = n.src.elementType();
  const size_t count = n.src.numElements();
  const size_t bytes = count * typeSize(type);
  if (distributed()) return reduceAcrossInstances(runs, at);
  const unsigned group = n.replicaGroupSize == 0 ? replicationFactor : n.replicaGroupSize;
  if (group > replicationFactor) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CrossReplicaReduce '", n.debugName, "': a replica group of ", group,
        " spans more than the engine's ", replicationFactor,
        " replicas, but no runtime replica subset says where the others run "
        "(Engine::setRuntimeReplicaSubset)"));
  }
  // Floats whose source and destination are each one run of consecutive
  // elements, the same run or in different variables (the usual gradient
  // all-reduce): reduced straight from each replica's memory into each
  // replica's memory, without copies.
  if (type == FLOAT && n.src.isContiguous() && n.dst.isContiguous() && count > 0) {
    const ElementRun& s0 = n.src.runs()[0];
    const ElementRun& d0 = n.dst.runs()[0];
    if (s0.var != d0.var || s0.start == d0.start) {
      auto at_replica = [&](unsigned r, const ElementRun& run) {
        return reinterpret_cast<float*>(memory[r].base[run.var]) + run.start;
      };
      std::vector<const float*> ins(runs.size());
      for (unsigned r = 0; r < runs.size(); ++r) ins[r] = at_replica(r, s0);
      for (unsigned g = 0; g < runs.size(); g += group) {
        std::vector<float*> outs;
        for (unsigned r = g; r < g + group; ++r) outs.push_back(at_replica(r, d0));
        ReduceFloats(n.collectiveOp, ins, g, group, count, outs, hostThreads);
      }
      return finishReduction(runs, at);
    }
  }
  // A concatenation of unit-stride runs (the combined reduction of several
  // gradients, each its own variable) into one run of a variable none of
  // them is in: each run reduced straight into its place in one split over
  // the host threads, as one tensor of them would be.
  if (type == FLOAT && n.dst.isContiguous() && count > 0 &&
      n.src.runs().size() <= kMaxRunsReducedInPlace) {
    const ElementRun& d0 = n.dst.runs()[0];
    bool direct = true;
    for (const ElementRun& s : n.src.runs()) direct &= s.stride == 1 && s.var != d0.var;
    if (direct) {
      ReduceFloatRuns(n.collectiveOp, n.src.runs(), &d0, group, memory, hostThreads);
      return finishReduction(runs, at);
    }
  }
  // The same reduced over the runs themselves (an in-place all-reduce of
  // a concatenation): each run read and written by the same piece of work.
  if (type == FLOAT && count > 0 && n.src.runs().size() <= kMaxRunsReducedInPlace &&
      SameRuns(n.src.runs(), n.dst.runs()) && !n.dst.containsAliases()) {
    ReduceFloatRuns(n.collectiveOp, n.src.runs(), nullptr, group, memory, hostThreads);
    return finishReduction(runs, at);
  }
  // Scratch buffers kept by the engine: a training loop reduces every
  // gradient every step, and fresh buffers of that size would be pages
  // mapped and faulted in each time.
  std::vector<std::unique_ptr<char[]>>& in = reduceScratch;
  if (reduceScratchBytes < bytes || in.size() != runs.size() + 1) {
    in.clear();
    for (size_t r = 0; r <= runs.size(); ++r) in.emplace_back(new char[std::max<size_t>(bytes, 1)]);
    reduceScratchBytes = std::max<size_t>(bytes, 1);
  }
  for (unsigned r = 0; r < runs.size(); ++r) gather(memory[r], n.src, in[r].get());
  std::unique_ptr<char[]>& out = in[runs.size()];
  for (unsigned g = 0; g < runs.size(); g += group) {
    if (type == FLOAT) {
      std::vector<const float*> ins;
      for (const auto& b : in) ins.push_back(reinterpret_cast<const float*>(b.get()));
      ReduceFloats(n.collectiveOp, ins, g, group, count, {reinterpret_cast<float*>(out.get())},
                   hostThreads);
    } else {
      for (size_t i = 0; i < count; ++i) {
        ReduceElement(n.collectiveOp, type, in, g, group, i, out.get());
      }
    }
    for (unsigned r = g; r < g + group; ++r) scatter(memory[r], n.dst, out.get());
  }
  return finishReduction(runs, at);
}

absl::Status EngineImpl::reduceAcrossInstances(std::vector<ReplicaRun>& runs, int at) {
  const program::ProgramNode& n = *steps[at].node;
  const Type type = n.src.elementType();
  const size_t count = n.src.numElements();
  const size_t bytes = count * typeSize(type);
  const unsigned global = replicaSubset.globalReplicationFactor;
  const unsigned group = n.replicaGroupSize == 0 ? global : n.replicaGroupSize;
  if (global % group != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CrossReplicaReduce '", n.debugName, "': replica groups of ", group,
        " do not divide the job's ", global, " replicas"));
  }
  // This engine's replicas' values, in order, then everyone's.
  std::vector<char> local(bytes * runs.size());
  for (unsigned r = 0; r < runs.size(); ++r) gather(memory[r], n.src, local.data() + r * bytes);
  std::vector<char> all(bytes * global);
  POPLAR_SIM_RETURN_IF_ERROR(replicaSubset.exchange->allGather(
      absl::MakeConstSpan(local), absl::MakeSpan(all),
      absl::StrCat("cross-replica reduction '", n.debugName, "'")));
  // Each local replica gets its group's reduction, computed as one engine
  // with every replica computes it (same functions, same order).
  std::vector<char> out(std::max<size_t>(bytes, 1));
  std::vector<std::unique_ptr<char[]>> replicaValues;
  for (unsigned r = 0; r < runs.size(); ++r) {
    const unsigned first = globalReplica(r) / group * group;
    if (type == FLOAT) {
      std::vector<const float*> ins(global);
      for (unsigned g = 0; g < global; ++g) {
        ins[g] = reinterpret_cast<const float*>(all.data() + g * bytes);
      }
      ReduceFloats(n.collectiveOp, ins, first, group, count,
                   {reinterpret_cast<float*>(out.data())}, hostThreads);
    } else {
      if (replicaValues.empty()) {
        for (unsigned g = 0; g < global; ++g) {
          replicaValues.emplace_back(new char[std::max<size_t>(bytes, 1)]);
          if (bytes > 0) std::memcpy(replicaValues.back().get(), all.data() + g * bytes, bytes);
        }
      }
      for (size_t i = 0; i < count; ++i) {
        ReduceElement(n.collectiveOp, type, replicaValues, first, group, i, out.data());
      }
    }
    scatter(memory[r], n.dst, out.data());
  }
  return finishReduction(runs, at, steps[at].networkCost);
}

StepCost EngineImpl::networkCost(unsigned group, unsigned localReplicas, size_t bytes) const {
  StepCost c;
  // The processes one group spans: its replicas are consecutive global
  // replicas, localReplicas of them per process.
  const unsigned processes = (group + localReplicas - 1) / localReplicas;
  if (processes <= 1) return c;  // the group is local: IPU-Links only
  // A ring over the processes: reduce-scatter, then all-gather, each
  // process sending (n - 1) / n of the buffer in each, one message per
  // hop (IPU_FACTS.md, "Replicated all-reduce as a ring").
  const double n = processes;
  const double sent = 2.0 * (n - 1.0) / n * static_cast<double>(bytes);
  const HostNetwork& net = replicaSubset.network;
  c.networkBytes = static_cast<uint64_t>(sent);
  c.networkCycles = target.secondsToCycles(sent / net.bytesPerSecond +
                                           2.0 * (n - 1.0) * net.latencySeconds);
  return c;
}

void EngineImpl::costNetworkSteps() {
  for (unsigned id = 0; id < steps.size(); ++id) {
    CompiledStep& st = steps[id];
    if (st.kind != Kind::CROSS_REPLICA_REDUCE) continue;
    st.networkCost = StepCost();
    if (distributed()) {
      const program::ProgramNode& n = *st.node;
      const unsigned global = replicaSubset.globalReplicationFactor;
      const unsigned group = n.replicaGroupSize == 0 ? global : n.replicaGroupSize;
      st.networkCost = networkCost(group, replicationFactor,
                                   n.src.numElements() * typeSize(n.src.elementType()));
    }
    StepCost perExecution = st.cost;
    perExecution += st.networkCost;
    profile.steps[id].staticCost = perExecution;
  }
}

absl::Status EngineImpl::finishReduction(std::vector<ReplicaRun>& runs, int at,
                                         const StepCost& network) {
  const CompiledStep& st = steps[at];
  StepCost cost = st.cost;
  cost += network;
  for (unsigned r = 0; r < runs.size(); ++r) {
    record(static_cast<unsigned>(at), cost, runs[r]);
    runs[r].stack.pop_back();
    runs[r].waitingAt = -1;
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace poplar_sim
