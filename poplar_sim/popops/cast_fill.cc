#include "poplar_sim/popops/cast_fill.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/poputil/vertex_layout.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace popops {
namespace {

uint64_t CopyLikeCycles(const Target& t, Type type, size_t n) {
  const uint64_t perWorker = uint64_t(t.getVectorWidth(type)) *
                             t.getNumWorkerContexts();
  return 20 + (n + perWorker - 1) / perWorker;  // [ASSUMPTION] as elementwise
}

template <typename From, typename To>
class CastVertex : public MultiVertex {
 public:
  Input<Vector<From>> in{this, "in"};
  Output<Vector<To>> out{this, "out"};
  bool compute() override {
    if (in.size() != out.size()) return false;
    convertElements(TypeOf<From>::value, in.data(), TypeOf<To>::value,
                    out.data(), out.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return CopyLikeCycles(t, TypeOf<From>::value, out.size());
  }
};

template <typename T>
class FillVertex : public MultiVertex {
 public:
  Output<Vector<T>> out{this, "out"};
  Param<T> value{this, "value"};
  bool compute() override {
    const T v = value;
    for (T& x : out) x = v;
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return CopyLikeCycles(t, TypeOf<T>::value, out.size());
  }
};

template <typename From>
void RegisterCastsFrom() {
  auto reg = [](auto toTag) {
    using To = decltype(toTag);
    (void)VertexRegistry::global().add(
        absl::StrCat("popops::Cast<", typeName(TypeOf<From>::value), ",",
                     typeName(TypeOf<To>::value), ">"),
        [] { return std::unique_ptr<Vertex>(new CastVertex<From, To>()); });
  };
  reg(float{});
  reg(Eigen::half{});
  reg(int32_t{});
  reg(uint32_t{});
  reg(bool{});
  (void)VertexRegistry::global().add(
      absl::StrCat("popops::Fill<", typeName(TypeOf<From>::value), ">"),
      [] { return std::unique_ptr<Vertex>(new FillVertex<From>()); });
}

const bool kRegistered = [] {
  RegisterCastsFrom<float>();
  RegisterCastsFrom<Eigen::half>();
  RegisterCastsFrom<int32_t>();
  RegisterCastsFrom<uint32_t>();
  RegisterCastsFrom<bool>();
  return true;
}();

bool Supported(Type t) {
  return t == FLOAT || t == HALF || t == INT || t == UNSIGNED_INT || t == BOOL;
}

}  // namespace

void cast(Graph& graph, const Tensor& src, const Tensor& dst,
          program::Sequence& prog, const std::string& debugName) {
  absl::Status s = src.valid() ? dst.status() : src.status();
  if (s.ok() && (src.numElements() != dst.numElements() ||
                 !Supported(src.elementType()) || !Supported(dst.elementType()))) {
    s = absl::InvalidArgumentError(absl::StrCat(
        "popops cast '", src.getDebugName(), "' ", typeName(src.elementType()),
        src.shapeToString(), " -> '", dst.getDebugName(), "' ",
        typeName(dst.elementType()), dst.shapeToString(),
        ": element counts must match and types be float, half, int, "
        "unsigned int or bool"));
  }
  if (!s.ok()) {
    graph.recordError(s);
    return;
  }
  poputil::PerTileVertices spec;
  spec.computeSetName = debugName.empty() ? "cast" : debugName;
  spec.vertexType = absl::StrCat("popops::Cast<", typeName(src.elementType()),
                                 ",", typeName(dst.elementType()), ">");
  spec.mapping = dst;
  spec.fields = {{"in", src.flatten()}, {"out", dst.flatten()}};
  spec.bulk = [src, dst](ExecutionContext& ctx) {
    std::vector<char> in(src.numElements() * typeSize(src.elementType()) + 1);
    ctx.read(src, in.data());
    std::vector<char> out(dst.numElements() * typeSize(dst.elementType()) + 1);
    convertElements(src.elementType(), in.data(), dst.elementType(), out.data(),
                    dst.numElements());
    ctx.write(dst, out.data());
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
}

Tensor cast(Graph& graph, const Tensor& src, Type dstType,
            program::Sequence& prog, const std::string& debugName) {
  if (!src.valid()) {
    graph.recordError(src.status());
    return src;
  }
  Tensor dst = graph.clone(dstType, src, debugName.empty() ? "cast" : debugName);
  cast(graph, src, dst, prog, debugName);
  return dst;
}

void fill(Graph& graph, const Tensor& t, program::Sequence& prog, double value,
          const std::string& debugName) {
  if (!t.valid() || !Supported(t.elementType())) {
    graph.recordError(t.valid() ? absl::InvalidArgumentError(absl::StrCat(
                                      "popops fill: unsupported type ",
                                      typeName(t.elementType())))
                                : t.status());
    return;
  }
  poputil::PerTileVertices spec;
  spec.computeSetName = debugName.empty() ? "fill" : debugName;
  spec.vertexType = absl::StrCat("popops::Fill<", typeName(t.elementType()), ">");
  spec.mapping = t;
  spec.fields = {{"out", t.flatten()}};
  spec.params = {{"value", value}};
  // The value's bytes are formed once, here; each run fills the tensor in
  // place when it is contiguous (a zeroed accumulator), else a buffer that
  // is then written through the view.
  const size_t es = typeSize(t.elementType());
  const size_t bytes = t.numElements() * es;
  std::array<char, 8> pattern{};
  storeFromDouble(t.elementType(), pattern.data(), 0, value);
  spec.bulk = [t, es, bytes, pattern](ExecutionContext& ctx) {
    if (bytes == 0) return absl::OkStatus();
    auto fillBytes = [&](char* dst) {
      std::memcpy(dst, pattern.data(), es);
      for (size_t filled = es; filled < bytes;) {
        const size_t n = std::min(filled, bytes - filled);
        std::memcpy(dst + filled, dst, n);
        filled += n;
      }
    };
    if (void* dst = ctx.contiguousData(t)) {
      fillBytes(static_cast<char*>(dst));
      return absl::OkStatus();
    }
    std::unique_ptr<char[]> buf(new char[bytes]);
    fillBytes(buf.get());
    ctx.write(t, buf.get());
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
}

void zero(Graph& graph, const Tensor& t, program::Sequence& prog,
          const std::string& debugName) {
  fill(graph, t, prog, 0.0, debugName.empty() ? "zero" : debugName);
}

}  // namespace popops
}  // namespace poplar_sim
