#include "poplar_sim/popops/elementwise_host.h"

#include "absl/container/inlined_vector.h"

namespace poplar_sim {
namespace popops {
namespace internal {
namespace {

// The distinct variables a view's runs touch, sorted.
absl::InlinedVector<uint32_t, 4> VariablesOf(const Tensor& t) {
  absl::InlinedVector<uint32_t, 4> vars;
  for (const ElementRun& r : t.runs()) {
    if (vars.empty() || vars.back() != r.var) vars.push_back(r.var);
  }
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  return vars;
}

bool SharesVariables(const Tensor& a, const Tensor& b) {
  const auto va = VariablesOf(a), vb = VariablesOf(b);
  auto i = va.begin(), j = vb.begin();
  while (i != va.end() && j != vb.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

// Whether reading `in` while writing `out` needs a snapshot of `in`: it
// shares storage with `out` in a way a pointer walk could see
// already-written values (a reversed or shifted view of the output). Views
// are fixed when a program is built, so this is decided then, not per run.
bool NeedsSnapshot(const Tensor& in, const Tensor& out) {
  const bool same = in.runs().size() == out.runs().size() &&
                    std::equal(in.runs().begin(), in.runs().end(),
                               out.runs().begin(),
                               [](const ElementRun& x, const ElementRun& y) {
                                 return x.var == y.var && x.start == y.start &&
                                        x.count == y.count && x.stride == y.stride;
                               });
  return !same && SharesVariables(in, out);
}

// The length of the block of `t`'s elements that repeats when `t` is
// broadcast to `shape`: t's shape, after leading 1s, is a suffix of `shape`
// (a bias [n] over [m,n], a scalar over anything). numElements of `shape`
// when t is not broadcast at all; 0 when the broadcast is of another kind
// (a column [m,1] over [m,n]).
size_t RepeatPeriod(const Tensor& t, const std::vector<size_t>& shape) {
  const size_t rank = shape.size();
  if (t.rank() > rank) return 0;
  const size_t lead = rank - t.rank();
  size_t k = lead;
  while (k < rank && t.dim(unsigned(k - lead)) == 1) ++k;
  size_t period = 1;
  for (size_t i = k; i < rank; ++i) {
    if (t.dim(unsigned(i - lead)) != shape[i]) return 0;
    period *= shape[i];
  }
  return period;
}

// True if every run of `t` is stride 1 (single elements are stride 1 in a
// view's canonical form), so that it can be read or written in place, run
// by run.
bool UnitStrideRuns(const Tensor& t) {
  for (const ElementRun& r : t.runs()) {
    if (r.count > 1 && r.stride != 1) return false;
  }
  return true;
}

}  // namespace internal
}  // namespace popops
}  // namespace poplar_sim
