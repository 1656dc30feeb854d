#include "poplar_sim/popnn/nonlinearity.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/poputil/tile_mapping.h"
#include "poplar_sim/poputil/vertex_layout.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace popnn {
namespace {

using popops::BinaryOpType;
using popops::UnaryOpType;

UnaryOpType Forward(NonLinearityType t) {
  switch (t) {
    case NonLinearityType::RELU: return UnaryOpType::RELU;
    case NonLinearityType::SIGMOID: return UnaryOpType::SIGMOID;
    case NonLinearityType::TANH: return UnaryOpType::TANH;
  }
  return UnaryOpType::RELU;
}

BinaryOpType Backward(NonLinearityType t) {
  switch (t) {
    case NonLinearityType::RELU: return BinaryOpType::RELU_GRAD;
    case NonLinearityType::SIGMOID: return BinaryOpType::SIGMOID_GRAD;
    case NonLinearityType::TANH: return BinaryOpType::TANH_GRAD;
  }
  return BinaryOpType::RELU_GRAD;
}

enum class RowKind { SOFTMAX, LOG_SOFTMAX, SPARSE_XENT, DENSE_XENT };

const char* RowKindName(RowKind k) {
  switch (k) {
    case RowKind::SOFTMAX: return "Softmax";
    case RowKind::LOG_SOFTMAX: return "LogSoftmax";
    case RowKind::SPARSE_XENT: return "SparseSoftmaxCrossEntropy";
    case RowKind::DENSE_XENT: return "SoftmaxCrossEntropy";
  }
  return "?";
}

// Row r, shifted by its maximum: x = in - max. Softmax exp(x) / sum(exp(x)),
// log-softmax x - log(sum(exp(x))); the losses write `loss` and `grad` (out
// unused). The same Eigen expressions, in float, as the host's kernels
// (tensorflow_ipu/core/kernels/softmax_op.cc, xent_ops.cc), so both
// backends give the same bits, and each exponential is computed once, by
// Eigen's vectorised exp. Returns the first bad row for an out-of-range
// label, or -1.
template <typename T>
int64_t RowOps(RowKind kind, const T* in, size_t rows, size_t cols, T* out,
               const int32_t* sparseLabels, const T* denseLabels, T* loss,
               T* grad) {
  using Row = Eigen::Array<float, Eigen::Dynamic, 1>;
  using RowOut = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
  using RowIn = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
  const Eigen::Index n = static_cast<Eigen::Index>(cols);
  Row x(n), y(n);
  for (size_t r = 0; r < rows; ++r) {
    x = RowIn(in + r * cols, n).template cast<float>();
    x -= x.maxCoeff();
    switch (kind) {
      case RowKind::SOFTMAX:
        x = x.exp();
        RowOut(out + r * cols, n) = (x * (1.0f / x.sum())).template cast<T>();
        break;
      case RowKind::LOG_SOFTMAX: {
        const float logSum = std::log(x.exp().sum());
        RowOut(out + r * cols, n) = (x - logSum).template cast<T>();
        break;
      }
      case RowKind::SPARSE_XENT: {
        const int32_t label = sparseLabels[r];
        if (label < 0 || static_cast<size_t>(label) >= cols) return r;
        const float xLabel = x[label];
        x = x.exp();
        const float sum = x.sum();
        loss[r] = T(std::log(sum) - xLabel);
        x *= 1.0f / sum;
        x[label] -= 1.0f;
        RowOut(grad + r * cols, n) = x.template cast<T>();
        break;
      }
      case RowKind::DENSE_XENT: {
        y = RowIn(denseLabels + r * cols, n).template cast<float>();
        const float logSum = std::log(x.exp().sum());
        loss[r] = T((y * (logSum - x)).sum());
        // Exponentiated in the (aligned) row, not while writing the
        // output: Eigen takes a scalar exp for the elements before an
        // unaligned destination's first whole vector, and its scalar and
        // vector exps differ in the last bit.
        x = (x - logSum).exp();
        RowOut(grad + r * cols, n) = (x - y).template cast<T>();
        break;
      }
    }
  }
  return -1;
}

uint64_t RowCycles(const Target& t, Type type, size_t elements) {
  const uint64_t perWorker = uint64_t(t.getVectorWidth(type)) * t.getNumWorkerContexts();
  // [ASSUMPTION] max, exp, sum and scale passes: ~12 cycles per vector.
  return 30 + (elements + perWorker - 1) / perWorker * 12;
}

template <typename T>
class SoftmaxRowsVertex : public MultiVertex {
 public:
  explicit SoftmaxRowsVertex(RowKind kind) : kind_(kind) {}
  Input<Vector<T>> in{this, "in"};
  Output<Vector<T>> out{this, "out"};
  Param<unsigned> cols{this, "cols"};
  bool compute() override {
    const size_t c = cols;
    if (c == 0 || in.size() != out.size() || in.size() % c) return false;
    RowOps<T>(kind_, in.data(), in.size() / c, c, out.data(), nullptr, nullptr,
              nullptr, nullptr);
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return RowCycles(t, TypeOf<T>::value, in.size());
  }
  // [ASSUMPTION] max, exp, sum and scale: 4 operations per element.
  uint64_t getFlopEstimate() const override { return 4 * in.size(); }

 private:
  RowKind kind_;
};

template <typename T, typename L>
class XentRowsVertex : public MultiVertex {
 public:
  explicit XentRowsVertex(RowKind kind) : kind_(kind) {}
  Input<Vector<T>> logits{this, "logits"};
  Input<Vector<L>> labels{this, "labels"};
  Output<Vector<T>> loss{this, "loss"};
  Output<Vector<T>> grad{this, "grad"};
  Param<unsigned> cols{this, "cols"};
  bool compute() override {
    const size_t c = cols;
    if (c == 0 || logits.size() % c || grad.size() != logits.size()) return false;
    const int32_t* sparse = nullptr;
    const T* dense = nullptr;
    if constexpr (std::is_same_v<L, int32_t>) sparse = labels.data();
    else dense = labels.data();
    return RowOps<T>(kind_, logits.data(), logits.size() / c, c, nullptr, sparse,
                     dense, loss.data(), grad.data()) < 0;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return RowCycles(t, TypeOf<T>::value, logits.size()) + 10 * loss.size();
  }
  // [ASSUMPTION] the softmax's 4 operations per element and 1 for the
  // gradient.
  uint64_t getFlopEstimate() const override { return 5 * logits.size(); }

 private:
  RowKind kind_;
};

template <typename T>
void Register() {
  VertexRegistry& r = VertexRegistry::global();
  const std::string tn = typeName(TypeOf<T>::value);
  for (RowKind k : {RowKind::SOFTMAX, RowKind::LOG_SOFTMAX}) {
    (void)r.add(absl::StrCat("popnn::", RowKindName(k), "Rows<", tn, ">"),
                [k] { return std::unique_ptr<Vertex>(new SoftmaxRowsVertex<T>(k)); });
  }
  (void)r.add(absl::StrCat("popnn::SparseSoftmaxCrossEntropyRows<", tn, ">"), [] {
    return std::unique_ptr<Vertex>(new XentRowsVertex<T, int32_t>(RowKind::SPARSE_XENT));
  });
  (void)r.add(absl::StrCat("popnn::SoftmaxCrossEntropyRows<", tn, ">"), [] {
    return std::unique_ptr<Vertex>(new XentRowsVertex<T, T>(RowKind::DENSE_XENT));
  });
}

const bool kRegistered = [] {
  Register<float>();
  Register<Eigen::half>();
  return true;
}();

Tensor Fail(Graph& graph, absl::Status s) {
  graph.recordError(s);
  return Tensor::makeError(std::move(s));
}

absl::Status CheckRows(const Tensor& t, const char* what) {
  if (!t.valid()) return t.status();
  if (t.rank() < 1 || t.dim(t.rank() - 1) == 0 ||
      (t.elementType() != FLOAT && t.elementType() != HALF)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "popnn ", what, ": '", t.getDebugName(), "' ", typeName(t.elementType()),
        t.shapeToString(), " must be float or half with a non-empty last dimension"));
  }
  return absl::OkStatus();
}

// A [rows, cols] output whose rows are mapped whole, linearly.
Tensor RowsOutput(Graph& graph, Type type, std::vector<size_t> shape,
                  const std::string& name) {
  Tensor out = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, out, 0, static_cast<unsigned>(shape.back()));
  return out;
}

Tensor SoftmaxLike(Graph& graph, RowKind kind, const Tensor& t,
                   program::Sequence& prog, const std::string& debugName) {
  absl::Status s = CheckRows(t, RowKindName(kind));
  if (!s.ok()) return Fail(graph, s);
  const size_t cols = t.dim(t.rank() - 1), rows = t.numElements() / cols;
  const std::string name = debugName.empty() ? RowKindName(kind) : debugName;
  Tensor out = RowsOutput(graph, t.elementType(), t.shape(), name);
  const Tensor in2 = t.reshape({rows, cols}), out2 = out.reshape({rows, cols});
  poputil::PerTileVertices spec;
  spec.computeSetName = name;
  spec.vertexType = absl::StrCat("popnn::", RowKindName(kind), "Rows<",
                                 typeName(t.elementType()), ">");
  spec.mapping = out;
  spec.unitSize = cols;
  spec.fields = {{"in", in2}, {"out", out2}};
  spec.params = {{"cols", double(cols)}};
  const Type type = t.elementType();
  spec.bulk = [=](ExecutionContext& ctx) {
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half>) {
        ReadView<T> iv(ctx, in2, /*forceCopy=*/true);
        WriteView<T> ov(ctx, out2);
        RowOps<T>(kind, iv.data(), rows, cols, ov.data(), nullptr, nullptr,
                  nullptr, nullptr);
      }
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
  return out;
}

CrossEntropy Xent(Graph& graph, RowKind kind, const Tensor& logits,
                  const Tensor& labels, program::Sequence& prog,
                  const std::string& debugName) {
  absl::Status s = CheckRows(logits, RowKindName(kind));
  if (s.ok()) s = labels.status();
  if (s.ok()) {
    const bool sparse = kind == RowKind::SPARSE_XENT;
    const bool ok =
        logits.rank() == 2 &&
        (sparse ? labels.elementType() == INT && labels.rank() == 1 &&
                      labels.dim(0) == logits.dim(0)
                : labels.elementType() == logits.elementType() &&
                      labels.shape() == logits.shape());
    if (!ok) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "popnn ", RowKindName(kind), ": logits '", logits.getDebugName(), "' ",
          typeName(logits.elementType()), logits.shapeToString(), " and labels '",
          labels.getDebugName(), "' ", typeName(labels.elementType()),
          labels.shapeToString(), " do not match; expected logits [rows, classes] and ",
          sparse ? "int labels [rows]" : "labels of the logits' type and shape"));
    }
  }
  if (!s.ok()) {
    Tensor bad = Fail(graph, s);
    return {bad, bad};
  }
  const size_t rows = logits.dim(0), cols = logits.dim(1);
  const Type type = logits.elementType();
  const std::string name = debugName.empty() ? RowKindName(kind) : debugName;
  Tensor grad = RowsOutput(graph, type, {rows, cols}, name + "/gradient");
  Tensor loss = graph.addVariable(type, {rows}, name + "/loss");
  // Each row's loss lives with its gradient row.
  TileToTensorMapping gm = graph.getTileMapping(grad), lm(gm.size());
  for (size_t tile = 0; tile < gm.size(); ++tile) {
    for (const Interval& iv : gm[tile]) {
      lm[tile].push_back(Interval{iv.begin / int64_t(cols), iv.end / int64_t(cols)});
    }
  }
  graph.setTileMapping(loss, lm);
  poputil::PerTileVertices spec;
  spec.computeSetName = name;
  spec.vertexType = absl::StrCat("popnn::", RowKindName(kind), "Rows<", typeName(type), ">");
  spec.mapping = grad;
  spec.unitSize = cols;
  spec.fields = {{"logits", logits}, {"labels", labels}, {"loss", loss}, {"grad", grad}};
  spec.params = {{"cols", double(cols)}};
  spec.bulk = [=](ExecutionContext& ctx) -> absl::Status {
    int64_t badRow = -1;
    std::vector<int32_t> bad;
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half>) {
        ReadView<T> lv(ctx, logits);
        WriteView<T> lossV(ctx, loss), gradV(ctx, grad);
        if (kind == RowKind::SPARSE_XENT) {
          ReadView<int32_t> yv(ctx, labels);
          badRow = RowOps<T>(kind, lv.data(), rows, cols, nullptr, yv.data(),
                             nullptr, lossV.data(), gradV.data());
          if (badRow >= 0) bad.push_back(yv[badRow]);
        } else {
          ReadView<T> yv(ctx, labels);
          RowOps<T>(kind, lv.data(), rows, cols, nullptr, nullptr, yv.data(),
                    lossV.data(), gradV.data());
        }
      }
      return 0;
    });
    if (badRow >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "label ", bad[0], " of row ", badRow, " is outside [0, ", cols,
          ") (labels '", labels.getDebugName(), "')"));
    }
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
  return {loss, grad};
}

}  // namespace

Tensor nonLinearity(Graph& graph, NonLinearityType type, const Tensor& t,
                    program::Sequence& prog, const std::string& debugName) {
  return popops::map(graph, Forward(type), t, prog, debugName);
}

void nonLinearityInPlace(Graph& graph, NonLinearityType type, const Tensor& t,
                         program::Sequence& prog, const std::string& debugName) {
  popops::mapInPlace(graph, Forward(type), t, prog, debugName);
}

Tensor nonLinearityInputGradient(Graph& graph, NonLinearityType type,
                                 const Tensor& out, const Tensor& outGradient,
                                 program::Sequence& prog,
                                 const std::string& debugName) {
  return popops::map(graph, Backward(type), out, outGradient, prog, debugName);
}

Tensor softmax(Graph& graph, const Tensor& t, program::Sequence& prog,
               const std::string& debugName) {
  return SoftmaxLike(graph, RowKind::SOFTMAX, t, prog, debugName);
}

Tensor logSoftmax(Graph& graph, const Tensor& t, program::Sequence& prog,
                  const std::string& debugName) {
  return SoftmaxLike(graph, RowKind::LOG_SOFTMAX, t, prog, debugName);
}

CrossEntropy sparseSoftmaxCrossEntropy(Graph& graph, const Tensor& logits,
                                       const Tensor& labels,
                                       program::Sequence& prog,
                                       const std::string& debugName) {
  return Xent(graph, RowKind::SPARSE_XENT, logits, labels, prog, debugName);
}

CrossEntropy softmaxCrossEntropy(Graph& graph, const Tensor& logits,
                                 const Tensor& labels, program::Sequence& prog,
                                 const std::string& debugName) {
  return Xent(graph, RowKind::DENSE_XENT, logits, labels, prog, debugName);
}

}  // namespace popnn
}  // namespace poplar_sim
