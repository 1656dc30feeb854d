#include "poplar_sim/tensor.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "poplar_sim/element_run_overlap.h"

namespace poplar_sim {

// Where each run of a view starts in the view's flat order, for finding the
// run that holds an element (TensorViewBuilder::Affine).
struct RunIndex {
  // Every run but the last holds this many elements (0 if they differ):
  // the run holding flat position p is then p / uniform.
  int64_t uniform = 0;
  // Otherwise cum[i] is the flat position of run i's first element, and
  // cum.back() the element count.
  std::vector<int64_t> cum;
};

struct Tensor::Rep {
  Type type = FLOAT;
  std::vector<size_t> shape;
  std::vector<ElementRun> runs;
  uint64_t graphId = 0;
  std::shared_ptr<const std::string> name;
  absl::Status status;
  // The RunIndex of `runs`, built on first use by a view of this view and
  // then shared by the reps that copy this one with the same runs: the
  // lowerings slice the same large view (an im2col matrix of tens of
  // thousands of runs) once per tile, and each slice had rebuilt it.
  // Accessed with std::atomic_load/store, also when a rep is copied: views
  // may be made on several threads.
  struct CachedIndex {
    mutable std::shared_ptr<const RunIndex> ptr;
    CachedIndex() = default;
    CachedIndex(const CachedIndex& o) : ptr(std::atomic_load(&o.ptr)) {}
    CachedIndex& operator=(const CachedIndex& o) {
      std::atomic_store(&ptr, std::atomic_load(&o.ptr));
      return *this;
    }
  };
  CachedIndex runIndex;

  std::shared_ptr<const RunIndex> index() const {
    std::shared_ptr<const RunIndex> idx = std::atomic_load(&runIndex.ptr);
    if (idx) return idx;
    auto built = std::make_shared<RunIndex>();
    const size_t n = runs.size();
    built->uniform = n > 0 ? runs[0].count : 0;
    for (size_t i = 0; i + 1 < n && built->uniform > 0; ++i) {
      if (runs[i].count != built->uniform) built->uniform = 0;
    }
    if (built->uniform == 0) {
      built->cum.resize(n + 1, 0);
      for (size_t i = 0; i < n; ++i) built->cum[i + 1] = built->cum[i] + runs[i].count;
    }
    idx = std::move(built);
    std::atomic_store(&runIndex.ptr, idx);
    return idx;
  }
};

namespace {

const std::string& EmptyName() {
  static const std::string* s = new std::string();
  return *s;
}

// Appends `r` to `runs`, merging it into the last run when the two form one
// arithmetic progression over the same variable.
void AppendRun(std::vector<ElementRun>& runs, ElementRun r) {
  if (r.count <= 0) return;
  if (r.count == 1) r.stride = 1;  // canonical form for single elements
  if (!runs.empty()) {
    ElementRun& p = runs.back();
    if (p.var == r.var) {
      int64_t s = p.count > 1 ? p.stride
                              : (r.count > 1 ? r.stride : r.start - p.start);
      if ((r.count == 1 || r.stride == s) && (p.count == 1 || p.stride == s) &&
          r.start == p.start + p.count * s) {
        p.stride = s;
        p.count += r.count;
        return;
      }
    }
  }
  runs.push_back(r);
}

// A few entries (one per dimension, or per run of a small view), mostly
// without a heap allocation.
template <typename T>
using Small = absl::InlinedVector<T, 6>;

// For source dimension d: its index is offset + step * r[resDim] of the
// result multi-index r, or the constant `offset` when resDim < 0.
struct DimMap {
  int resDim;
  int64_t offset;
  int64_t step;
};

}  // namespace

// Builds views as affine maps from result indices to source indices.
struct TensorViewBuilder {
  // The temporaries are inlined vectors: views are made per vertex (slices
  // of every operand), so heap traffic here is a large part of building a
  // graph.
  static Tensor Affine(const Tensor& src, std::vector<size_t> resShape,
                       absl::Span<const DimMap> map) {
    const Tensor::Rep& s = *src.rep_;
    const size_t srcRank = s.shape.size();
    Small<int64_t> srcStride(srcRank, 1);
    for (int d = static_cast<int>(srcRank) - 2; d >= 0; --d) {
      srcStride[d] = srcStride[d + 1] * static_cast<int64_t>(s.shape[d + 1]);
    }
    const size_t resRank = resShape.size();
    Small<int64_t> coef(resRank, 0);
    int64_t base = 0;
    // Checked: a step (subSample) or offset times a large stride can
    // overflow even for a valid shape.
    bool overflow = false;
    for (size_t d = 0; d < srcRank; ++d) {
      int64_t term;
      overflow |= __builtin_mul_overflow(map[d].offset, srcStride[d], &term) ||
                  __builtin_add_overflow(base, term, &base);
      if (map[d].resDim >= 0) {
        overflow |= __builtin_mul_overflow(map[d].step, srcStride[d], &term) ||
                    __builtin_add_overflow(coef[map[d].resDim], term, &coef[map[d].resDim]);
      }
    }
    if (overflow) {
      return Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
          "A view of tensor '", src.getDebugName(), "' ", src.shapeToString(),
          " with shape ", poplar_sim::shapeToString(resShape),
          " has element positions that overflow 64 bits")));
    }
    const std::shared_ptr<const RunIndex> runIndex = s.index();
    const std::vector<int64_t>& cum = runIndex->cum;
    auto rep = std::make_shared<Tensor::Rep>();
    rep->type = s.type;
    rep->graphId = s.graphId;
    rep->name = s.name;
    std::vector<ElementRun>& out = rep->runs;
    // The source run holding flat position pos: the last i with cum[i] <=
    // pos. Views of views are mostly runs of one length (a row, a channel
    // vector), found by a division; otherwise the run of the previous
    // lookup or the one after it usually holds pos, else a binary search.
    const size_t numRuns = s.runs.size();
    const int64_t uniform = runIndex->uniform;
    size_t hint = 0;
    auto runAt = [&](int64_t pos) -> size_t {
      if (uniform > 0) {
        const int64_t h = static_cast<int64_t>(hint) * uniform;
        if (pos >= h && pos - h < uniform) return hint;  // no division
        hint = std::min(static_cast<size_t>(pos / uniform), numRuns - 1);
        return hint;
      }
      if (cum[hint] <= pos) {
        if (pos < cum[hint + 1]) return hint;
        if (hint + 2 <= numRuns && pos < cum[hint + 2]) return ++hint;
      }
      hint = std::upper_bound(cum.begin(), cum.end(), pos) - cum.begin() - 1;
      return hint;
    };
    // Emits source flat positions pos, pos+step, ... (len of them).
    auto emit = [&](int64_t pos, int64_t step, int64_t len) {
      while (len > 0) {
        const size_t i = runAt(pos);
        const ElementRun& r = s.runs[i];
        const int64_t off = pos - (uniform > 0 ? static_cast<int64_t>(i) * uniform : cum[i]);
        int64_t n;
        if (step == 0) {
          n = len;
        } else if (step > 0) {
          // Without a division when the next position is past the run (a
          // transposed view of short runs: one element per piece).
          n = off + step >= r.count ? 1 : std::min(len, (r.count - 1 - off) / step + 1);
        } else {
          n = std::min(len, off / (-step) + 1);
        }
        AppendRun(out, ElementRun{r.var, r.at(off), n, step * r.stride});
        pos += n * step;
        len -= n;
      }
    };
    size_t total = shapeNumElements(resShape);
    if (total > 0) {
      if (resRank == 0) {
        emit(base, 0, 1);
      } else {
        const int64_t len = static_cast<int64_t>(resShape.back());
        Small<size_t> idx(resRank - 1, 0);
        size_t rows = total / resShape.back();
        if (rows > kMaxViewRuns) {
          return Tensor::makeError(absl::ResourceExhaustedError(absl::StrCat(
              "A view of tensor '", src.getDebugName(), "' ", src.shapeToString(),
              " with shape ", poplar_sim::shapeToString(resShape), " would need ",
              rows, " element runs, more than ", kMaxViewRuns,
              "; copy the tensor into the layout you need instead")));
        }
        for (size_t row = 0; row < rows; ++row) {
          int64_t pos = base;
          for (size_t j = 0; j + 1 < resRank; ++j) pos += coef[j] * idx[j];
          emit(pos, coef[resRank - 1], len);
          for (int j = static_cast<int>(resRank) - 2; j >= 0; --j) {
            if (++idx[j] < resShape[j]) break;
            idx[j] = 0;
          }
        }
      }
    }
    rep->shape = std::move(resShape);
    return Tensor(std::move(rep));
  }

  static Tensor WithShape(const Tensor& src, std::vector<size_t> shape) {
    auto rep = std::make_shared<Tensor::Rep>(*src.rep_);
    rep->shape = std::move(shape);
    return Tensor(std::move(rep));
  }
};

size_t shapeNumElements(absl::Span<const size_t> shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

std::optional<size_t> checkedNumElements(absl::Span<const size_t> shape,
                                         size_t elementBytes) {
  // The product of the non-zero dimensions must fit too: views compute
  // strides from them even when another dimension is 0 ({0, 2^62, 5}).
  uint64_t nonZero = 1;
  bool empty = false;
  for (size_t d : shape) {
    if (d == 0) {
      empty = true;
    } else if (__builtin_mul_overflow(nonZero, uint64_t{d}, &nonZero)) {
      return std::nullopt;
    }
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(nonZero, uint64_t{std::max<size_t>(elementBytes, 1)}, &bytes) ||
      bytes > kMaxTensorBytes) {
    return std::nullopt;
  }
  return empty ? 0 : nonZero;
}

std::string shapeToString(absl::Span<const size_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

Tensor::Tensor() : Tensor(EmptyRep()) {}

// One shared representation for every empty tensor: programs hold several
// empty tensors per node, and 200,000-node programs are built in a loop.
const std::shared_ptr<const Tensor::Rep>& Tensor::EmptyRep() {
  static const std::shared_ptr<const Rep>* const empty =
      new std::shared_ptr<const Rep>(std::make_shared<Rep>(Rep{
          FLOAT, {}, {}, 0, nullptr,
          absl::FailedPreconditionError(
              "Use of an empty (default-constructed) Tensor")}));
  return *empty;
}

Tensor Tensor::makeVariable(uint64_t graphId, uint32_t var, Type type,
                            std::vector<size_t> shape,
                            std::shared_ptr<const std::string> debugName) {
  auto rep = std::make_shared<Rep>();
  rep->type = type;
  rep->graphId = graphId;
  rep->name = std::move(debugName);
  const int64_t n = static_cast<int64_t>(shapeNumElements(shape));
  if (n > 0) rep->runs.push_back(ElementRun{var, 0, n, 1});
  rep->shape = std::move(shape);
  return Tensor(std::move(rep));
}

Tensor Tensor::makeError(absl::Status status) {
  auto rep = std::make_shared<Rep>();
  rep->status = std::move(status);
  return Tensor(std::move(rep));
}

bool Tensor::valid() const { return rep_->status.ok(); }
const absl::Status& Tensor::status() const { return rep_->status; }
Type Tensor::elementType() const { return rep_->type; }
const std::vector<size_t>& Tensor::shape() const { return rep_->shape; }
size_t Tensor::numElements() const { return shapeNumElements(rep_->shape); }
std::string Tensor::shapeToString() const {
  return poplar_sim::shapeToString(rep_->shape);
}
const std::string& Tensor::getDebugName() const {
  return rep_->name ? *rep_->name : EmptyName();
}
const std::vector<ElementRun>& Tensor::runs() const { return rep_->runs; }
uint64_t Tensor::graphId() const { return rep_->graphId; }

bool Tensor::isContiguous() const {
  return rep_->runs.size() <= 1 &&
         (rep_->runs.empty() || rep_->runs[0].count <= 1 ||
          rep_->runs[0].stride == 1);
}

bool Tensor::containsAliases() const {
  return internal::AnyElementRepeats(rep_->runs);
}

Tensor Tensor::invalidArg(const std::string& what) const {
  return makeError(absl::InvalidArgumentError(absl::StrCat(
      what, " (tensor '", getDebugName(), "' view of shape ", shapeToString(),
      ")")));
}

Tensor Tensor::slice(size_t begin, size_t end, unsigned d) const {
  if (!valid()) return *this;
  if (d >= rank()) {
    return invalidArg(absl::StrCat("slice: dimension ", d, " out of range"));
  }
  // A piece of a vector that is one run (what libraries cut per tile, per
  // vertex) is one shorter run: made directly, it is the run the general
  // path below makes.
  const Rep& r = *rep_;
  if (r.shape.size() == 1 && r.runs.size() == 1 && begin <= end && end <= r.shape[0]) {
    auto rep = std::make_shared<Rep>();
    rep->type = r.type;
    rep->graphId = r.graphId;
    rep->name = r.name;
    rep->shape = {end - begin};
    AppendRun(rep->runs, ElementRun{r.runs[0].var, r.runs[0].at(static_cast<int64_t>(begin)),
                                    static_cast<int64_t>(end - begin), r.runs[0].stride});
    return Tensor(std::move(rep));
  }
  Small<size_t> b(rank(), 0), e(shape().begin(), shape().end());
  b[d] = begin;
  e[d] = end;
  return slice(b, e);
}

Tensor Tensor::slice(absl::Span<const size_t> begin,
                     absl::Span<const size_t> end) const {
  if (!valid()) return *this;
  if (begin.size() != rank() || end.size() != rank()) {
    return invalidArg("slice: begin and end need one entry per dimension");
  }
  std::vector<size_t> resShape(rank());
  Small<DimMap> map(rank());
  for (unsigned d = 0; d < rank(); ++d) {
    if (begin[d] > end[d] || end[d] > shape()[d]) {
      return invalidArg(absl::StrCat("slice: [", begin[d], ", ", end[d],
                                     ") is not within dimension ", d,
                                     " of size ", shape()[d]));
    }
    resShape[d] = end[d] - begin[d];
    map[d] = DimMap{static_cast<int>(d), static_cast<int64_t>(begin[d]), 1};
  }
  return TensorViewBuilder::Affine(*this, std::move(resShape), map);
}

Tensor Tensor::index(absl::Span<const size_t> indices) const {
  if (!valid()) return *this;
  if (indices.size() > rank()) {
    return invalidArg(absl::StrCat("index: ", indices.size(),
                                   " indices for a tensor of rank ", rank()));
  }
  Small<DimMap> map(rank());
  std::vector<size_t> resShape;
  for (unsigned d = 0; d < rank(); ++d) {
    if (d < indices.size()) {
      if (indices[d] >= shape()[d]) {
        return invalidArg(absl::StrCat("index: ", indices[d],
                                       " out of range for dimension ", d,
                                       " of size ", shape()[d]));
      }
      map[d] = DimMap{-1, static_cast<int64_t>(indices[d]), 0};
    } else {
      map[d] = DimMap{static_cast<int>(resShape.size()), 0, 1};
      resShape.push_back(shape()[d]);
    }
  }
  return TensorViewBuilder::Affine(*this, std::move(resShape), map);
}

Tensor Tensor::reshape(std::vector<size_t> newShape) const {
  if (!valid()) return *this;
  const std::optional<size_t> n = checkedNumElements(newShape, typeSize(elementType()));
  if (!n.has_value() || *n != numElements()) {
    return invalidArg(absl::StrCat("reshape to ",
                                   poplar_sim::shapeToString(newShape),
                                   " changes the number of elements"));
  }
  // Views never change: the same shape is the same view (flattening a
  // vector, as libraries do for every vertex field).
  if (newShape == shape()) return *this;
  return TensorViewBuilder::WithShape(*this, std::move(newShape));
}

Tensor Tensor::flatten() const { return reshape({numElements()}); }

Tensor Tensor::flatten(unsigned dimBegin, unsigned dimEnd) const {
  if (!valid()) return *this;
  if (dimBegin >= dimEnd || dimEnd > rank()) {
    return invalidArg(absl::StrCat("flatten: bad dimension range [", dimBegin,
                                   ", ", dimEnd, ")"));
  }
  std::vector<size_t> s(shape().begin(), shape().begin() + dimBegin);
  size_t n = 1;
  for (unsigned d = dimBegin; d < dimEnd; ++d) n *= shape()[d];
  s.push_back(n);
  s.insert(s.end(), shape().begin() + dimEnd, shape().end());
  return reshape(s);
}

Tensor Tensor::dimShuffle(absl::Span<const unsigned> perm) const {
  if (!valid()) return *this;
  std::vector<bool> seen(rank(), false);
  if (perm.size() != rank()) {
    return invalidArg("dimShuffle: the permutation needs one entry per "
                      "dimension");
  }
  std::vector<size_t> resShape(rank());
  Small<DimMap> map(rank());
  for (unsigned i = 0; i < rank(); ++i) {
    if (perm[i] >= rank() || seen[perm[i]]) {
      return invalidArg(absl::StrCat("dimShuffle: [",
                                     absl::StrJoin(perm, ","),
                                     "] is not a permutation"));
    }
    seen[perm[i]] = true;
    resShape[i] = shape()[perm[i]];
    map[perm[i]] = DimMap{static_cast<int>(i), 0, 1};
  }
  return TensorViewBuilder::Affine(*this, std::move(resShape), map);
}

Tensor Tensor::dimRoll(unsigned dimIdx, unsigned newIdx) const {
  if (!valid()) return *this;
  if (dimIdx >= rank() || newIdx >= rank()) {
    return invalidArg("dimRoll: dimension out of range");
  }
  std::vector<unsigned> perm;
  for (unsigned d = 0; d < rank(); ++d) {
    if (d != dimIdx) perm.push_back(d);
  }
  perm.insert(perm.begin() + newIdx, dimIdx);
  return dimShuffle(perm);
}

Tensor Tensor::transpose() const {
  if (!valid()) return *this;
  if (rank() < 2) return invalidArg("transpose needs a rank of at least 2");
  std::vector<unsigned> perm(rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank() - 1], perm[rank() - 2]);
  return dimShuffle(perm);
}

Tensor Tensor::broadcast(unsigned N, unsigned d) const {
  if (!valid()) return *this;
  if (d >= rank()) return invalidArg("broadcast: dimension out of range");
  {
    std::vector<size_t> resShape = shape();
    resShape[d] = resShape[d] * N;
    if (!checkedNumElements(resShape, typeSize(elementType())).has_value() ||
        (shape()[d] != 0 && resShape[d] / shape()[d] != N)) {
      return invalidArg(absl::StrCat("broadcast: ", N, " copies along dimension ", d,
                                     " overflow the element count"));
    }
    // Copies are concatenated: N tensors, then N times the runs.
    if (shape()[d] != 1 &&
        uint64_t{N} * std::max<size_t>(runs().size(), 1) > kMaxViewRuns) {
      return makeError(absl::ResourceExhaustedError(absl::StrCat(
          "broadcast: ", N, " copies of tensor '", getDebugName(), "' ", shapeToString(),
          " along dimension ", d, " would need more than ", kMaxViewRuns,
          " element runs; broadcast a dimension of size 1 instead (a stride-0 view)")));
    }
  }
  if (shape()[d] == 1) {
    std::vector<size_t> resShape = shape();
    resShape[d] = N;
    Small<DimMap> map(rank());
    for (unsigned i = 0; i < rank(); ++i) {
      map[i] = DimMap{static_cast<int>(i), 0, i == d ? 0 : 1};
    }
    return TensorViewBuilder::Affine(*this, std::move(resShape), map);
  }
  std::vector<Tensor> copies(N, *this);
  if (N == 0) return slice(0, 0, d);
  return concat(copies, d);
}

Tensor Tensor::expand(absl::Span<const unsigned> indices) const {
  if (!valid()) return *this;
  std::vector<unsigned> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> s = shape();
  for (unsigned i : sorted) {
    if (i > s.size()) return invalidArg("expand: position out of range");
    s.insert(s.begin() + i, 1);
  }
  return reshape(s);
}

Tensor Tensor::squeeze(absl::Span<const unsigned> dims) const {
  if (!valid()) return *this;
  std::vector<bool> drop(rank(), false);
  for (unsigned d : dims) {
    if (d >= rank() || shape()[d] != 1) {
      return invalidArg(absl::StrCat("squeeze: dimension ", d,
                                     " is not of size 1"));
    }
    drop[d] = true;
  }
  std::vector<size_t> s;
  for (unsigned d = 0; d < rank(); ++d) {
    if (!drop[d]) s.push_back(shape()[d]);
  }
  return reshape(s);
}

Tensor Tensor::reverse(unsigned d) const {
  if (!valid()) return *this;
  if (d >= rank()) return invalidArg("reverse: dimension out of range");
  Small<DimMap> map(rank());
  for (unsigned i = 0; i < rank(); ++i) {
    map[i] = i == d ? DimMap{static_cast<int>(i),
                             static_cast<int64_t>(shape()[i]) - 1, -1}
                    : DimMap{static_cast<int>(i), 0, 1};
  }
  if (shape()[d] == 0) return *this;
  return TensorViewBuilder::Affine(*this, shape(), map);
}

Tensor Tensor::subSample(unsigned stride, unsigned d) const {
  if (!valid()) return *this;
  if (d >= rank() || stride == 0) {
    return invalidArg("subSample: bad dimension or zero stride");
  }
  std::vector<size_t> resShape = shape();
  resShape[d] = (shape()[d] + stride - 1) / stride;
  Small<DimMap> map(rank());
  for (unsigned i = 0; i < rank(); ++i) {
    map[i] = DimMap{static_cast<int>(i), 0, i == d ? stride : 1};
  }
  return TensorViewBuilder::Affine(*this, std::move(resShape), map);
}

Tensor concat(absl::Span<const Tensor> tensors, unsigned dim) {
  if (tensors.empty()) {
    return Tensor::makeError(
        absl::InvalidArgumentError("concat of an empty list of tensors"));
  }
  for (const Tensor& t : tensors) {
    if (!t.valid()) return t;
  }
  const Tensor& first = tensors[0];
  if (dim >= first.rank()) {
    return first.invalidArg(absl::StrCat("concat: dimension ", dim,
                                         " out of range"));
  }
  size_t total = 0;
  size_t runs = 0;
  bool overflow = false;
  for (const Tensor& t : tensors) {
    bool ok = t.rank() == first.rank() &&
              t.elementType() == first.elementType() &&
              t.graphId() == first.graphId();
    for (unsigned d = 0; ok && d < t.rank(); ++d) {
      ok = d == dim || t.shape()[d] == first.shape()[d];
    }
    if (!ok) {
      return Tensor::makeError(absl::InvalidArgumentError(absl::StrCat(
          "concat along dimension ", dim, ": '", t.getDebugName(), "' ",
          typeName(t.elementType()), t.shapeToString(),
          " does not match '", first.getDebugName(), "' ",
          typeName(first.elementType()), first.shapeToString())));
    }
    overflow |= __builtin_add_overflow(total, t.shape()[dim], &total);
    runs += t.runs().size();
  }
  std::vector<size_t> joined = first.shape();
  joined[dim] = total;
  if (overflow ||
      !checkedNumElements(joined, typeSize(first.elementType())).has_value()) {
    return first.invalidArg(absl::StrCat("concat of ", tensors.size(),
                                         " tensors along dimension ", dim,
                                         " overflows the element count"));
  }
  if (runs > kMaxViewRuns) {
    return Tensor::makeError(absl::ResourceExhaustedError(absl::StrCat(
        "concat of ", tensors.size(), " tensors starting with '", first.getDebugName(),
        "' would need ", runs, " element runs, more than ", kMaxViewRuns)));
  }
  if (dim != 0) {
    std::vector<Tensor> rolled;
    for (const Tensor& t : tensors) rolled.push_back(t.dimRoll(dim, 0));
    return concat(rolled, 0).dimRoll(0, dim);
  }
  auto rep = std::make_shared<Tensor::Rep>(*first.rep_);
  rep->runs.clear();
  rep->runIndex.ptr.reset();  // rep is not shared yet
  for (const Tensor& t : tensors) {
    for (const ElementRun& r : t.runs()) AppendRun(rep->runs, r);
  }
  rep->shape[0] = total;
  return Tensor(std::move(rep));
}

}  // namespace poplar_sim
