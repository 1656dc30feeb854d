#include "poplar_sim/poprand/random.h"

#include <cmath>
#include <memory>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/poputil/vertex_layout.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace poprand {
namespace {

enum class Dist { UNIFORM, NORMAL, TRUNCATED_NORMAL, BERNOULLI, DROPOUT };

const char* DistName(Dist d) {
  switch (d) {
    case Dist::UNIFORM: return "Uniform";
    case Dist::NORMAL: return "Normal";
    case Dist::TRUNCATED_NORMAL: return "TruncatedNormal";
    case Dist::BERNOULLI: return "Bernoulli";
    case Dist::DROPOUT: return "Dropout";
  }
  return "?";
}

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t Mix(uint64_t z) {  // SplitMix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The stream of (seed, modifier); every element draws from it by index.
uint64_t StreamKey(uint64_t seed, uint32_t modifier) {
  return Mix(seed ^ Mix(kGolden * (uint64_t{modifier} + 1)));
}

// A uniform double in (0, 1) for lane 0 or 1 of element `index`.
double U01(uint64_t key, uint64_t index, unsigned lane) {
  const uint64_t h = Mix(key + kGolden * (2 * index + lane + 1));
  return ((h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double StandardNormal(uint64_t key, uint64_t index) {  // Box-Muller
  const double u1 = U01(key, index, 0);
  const double u2 = U01(key, index, 1);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

// The stream of redraw k (> 0) of a truncated normal: unrelated to the
// first draw's stream and to other elements' draws.
uint64_t RedrawKey(uint64_t key, unsigned k) { return Mix(key ^ Mix(kGolden * k)); }

struct DistParams {
  Dist dist;
  uint32_t modifier;
  double a, b;   // min/max, mean/stddev, prob, keep probability
  double c = 0;  // truncated normal: alpha
};

// The largest T below `limit`: where a uniform draw just under the
// maximum rounds up to it in T (often in half, whose 11 bits round every
// draw within 2^-12 of 1 up to 1), so that uniform stays within [min, max).
template <typename T>
T Below(double limit) {
  T r = static_cast<T>(static_cast<float>(limit));
  while (static_cast<double>(static_cast<float>(r)) >= limit) {
    if constexpr (std::is_same_v<T, float>) {
      r = std::nextafter(r, -INFINITY);
    } else {
      const float f = static_cast<float>(r);
      uint16_t bits = Eigen::numext::bit_cast<uint16_t>(r);
      if (f > 0) {
        --bits;
      } else if (f < 0) {
        ++bits;
      } else {
        bits = 0x8001;  // below zero: the smallest negative subnormal
      }
      r = Eigen::numext::bit_cast<T>(bits);
    }
  }
  return r;
}

// out[i] for element offset + i of the stream `key`; `in` only for dropout.
template <typename T>
void Generate(const DistParams& p, uint64_t key, uint64_t offset, const T* in,
              T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t idx = offset + i;
    double v = 0;
    switch (p.dist) {
      case Dist::UNIFORM:
        v = p.a + (p.b - p.a) * U01(key, idx, 0);
        break;
      case Dist::NORMAL:
        v = p.a + p.b * StandardNormal(key, idx);
        break;
      case Dist::TRUNCATED_NORMAL: {
        double z = StandardNormal(key, idx);
        for (unsigned k = 1; std::abs(z) > p.c && k < kTruncatedNormalDraws; ++k) {
          z = StandardNormal(RedrawKey(key, k), idx);
        }
        if (std::abs(z) > p.c) {
          z = p.c * (2 * U01(RedrawKey(key, kTruncatedNormalDraws), idx, 0) - 1);
        }
        v = p.a + p.b * z;
        break;
      }
      case Dist::BERNOULLI:
        v = U01(key, idx, 0) < p.a ? 1 : 0;
        break;
      case Dist::DROPOUT:
        v = U01(key, idx, 0) < p.a
                ? static_cast<double>(static_cast<float>(in[i])) / p.a
                : 0;
        break;
    }
    out[i] = static_cast<T>(static_cast<float>(v));
    if (p.dist == Dist::UNIFORM && p.b > p.a &&
        static_cast<double>(static_cast<float>(out[i])) >= p.b) {
      out[i] = Below<T>(p.b);
    }
  }
}

// [ASSUMPTION] Setting the tile's generator from a seed tensor: two loads
// and two writes of its seed registers, with some latency, per vertex.
constexpr uint64_t kSeedReadCycles = 6;

// One vertex per tile interval. With `seedTensor` the seed is an input
// field ("seed", 2 words) read at run time; else two Params fixed at
// compile time.
template <typename T>
class RandomVertex : public MultiVertex {
 public:
  RandomVertex(Dist d, bool seedTensor) : dist_(d) {
    if (d == Dist::DROPOUT) in_ = std::make_unique<Input<Vector<T>>>(this, "in");
    if (seedTensor) {
      seed_ = std::make_unique<Input<Vector<uint32_t>>>(this, "seed");
    } else {
      seedLo_ = std::make_unique<Param<uint32_t>>(this, "seedLo");
      seedHi_ = std::make_unique<Param<uint32_t>>(this, "seedHi");
    }
  }
  Output<Vector<T>> out{this, "out"};
  Param<uint32_t> modifier{this, "modifier"};
  Param<float> offset{this, "offset"};  // exact below 2^24 elements per call
  Param<float> a{this, "a"};
  Param<float> b{this, "b"};
  Param<float> c{this, "c"};
  bool compute() override {
    uint64_t seed;
    if (seed_) {
      if (seed_->size() != 2) return false;  // the builder checks; never here
      seed = (uint64_t{(*seed_)[1]} << 32) | (*seed_)[0];
    } else {
      seed = (uint64_t{uint32_t(*seedHi_)} << 32) | uint32_t(*seedLo_);
    }
    DistParams p{dist_, modifier, a, b, c};
    Generate<T>(p, StreamKey(seed, p.modifier), static_cast<uint64_t>(float(offset)),
                in_ ? in_->data() : nullptr, out.data(), out.size());
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t perWorker =
        uint64_t(t.getVectorWidth(TypeOf<T>::value)) * t.getNumWorkerContexts();
    // [ASSUMPTION] the tile's hardware PRNG gives 64 bits per cycle; normal
    // needs a few extra operations per vector, truncation a compare and
    // the rare redraw.
    const uint64_t perVector = dist_ == Dist::NORMAL             ? 6
                               : dist_ == Dist::TRUNCATED_NORMAL ? 8
                                                                 : 2;
    return 20 + (seed_ ? kSeedReadCycles : 0) +
           (out.size() + perWorker - 1) / perWorker * perVector;
  }

 private:
  Dist dist_;
  std::unique_ptr<Input<Vector<T>>> in_;
  std::unique_ptr<Input<Vector<uint32_t>>> seed_;
  std::unique_ptr<Param<uint32_t>> seedLo_, seedHi_;
};

std::string VertexName(Dist d, bool seedTensor, Type type) {
  return absl::StrCat("poprand::", DistName(d), seedTensor ? "SeedTensor" : "", "<",
                      typeName(type), ">");
}

template <typename T>
void Register() {
  for (Dist d : {Dist::UNIFORM, Dist::NORMAL, Dist::TRUNCATED_NORMAL,
                 Dist::BERNOULLI, Dist::DROPOUT}) {
    for (bool seedTensor : {false, true}) {
      (void)VertexRegistry::global().add(
          VertexName(d, seedTensor, TypeOf<T>::value), [d, seedTensor] {
            return std::unique_ptr<Vertex>(new RandomVertex<T>(d, seedTensor));
          });
    }
  }
}

const bool kRegistered = [] {
  Register<float>();
  Register<Eigen::half>();
  return true;
}();

// The seed of one call: a constant, or a tensor read at run time.
struct Seed {
  const Tensor* tensor = nullptr;  // the tensor form when set
  uint64_t value = 0;
  bool isTensor = false;
};

absl::Status CheckSeedTensor(const Seed& seed, const std::string& what) {
  if (!seed.isTensor) return absl::OkStatus();
  if (seed.tensor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the seed tensor is missing (nullptr); pass a tensor of 2 "
        "UNSIGNED_INT (low and high word), or use the constant-seed form"));
  }
  if (!seed.tensor->valid()) return seed.tensor->status();
  if (seed.tensor->elementType() != UNSIGNED_INT || seed.tensor->numElements() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the seed tensor must be 2 UNSIGNED_INT (low and high word), not ",
        typeName(seed.tensor->elementType()), seed.tensor->shapeToString()));
  }
  return absl::OkStatus();
}

Tensor Build(Graph& graph, const DistParams& p, const Seed& seed,
             const Tensor& reference, const Tensor* in, Type type,
             program::Sequence& prog, const std::string& debugName) {
  const std::string what = absl::StrCat(
      "poprand ", DistName(p.dist), debugName.empty() ? "" : absl::StrCat(" '", debugName, "'"));
  absl::Status s = reference.status();
  if (s.ok() && type != FLOAT && type != HALF) {
    s = absl::InvalidArgumentError(
        absl::StrCat(what, ": type must be float or half, not ", typeName(type)));
  }
  if (s.ok() && reference.numElements() >= (1u << 24)) {
    s = absl::InvalidArgumentError(absl::StrCat(what, ": at most 2^24 elements per call"));
  }
  if (s.ok()) s = CheckSeedTensor(seed, what);
  if (!s.ok()) {
    graph.recordError(s);
    return Tensor::makeError(s);
  }
  const std::string name = debugName.empty() ? DistName(p.dist) : debugName;
  Tensor out = graph.clone(type, reference, name);
  poputil::PerTileVertices spec;
  spec.computeSetName = name;
  spec.vertexType = VertexName(p.dist, seed.isTensor, type);
  spec.mapping = out;
  spec.fields = {{"out", out.flatten()}};
  if (in) spec.fields.emplace_back("in", in->flatten());
  spec.params = {{"modifier", double(p.modifier)}, {"a", p.a}, {"b", p.b}, {"c", p.c}};
  if (seed.isTensor) {
    // Every vertex reads the two words: the exchange brings them to its tile.
    spec.wholeFields = {{"seed", *seed.tensor}};
  } else {
    spec.params.emplace("seedLo", double(seed.value & 0xffffffffu));
    spec.params.emplace("seedHi", double(seed.value >> 32));
  }
  spec.unitOffsetParams = {"offset"};
  // Params travel as float in the vertex: use the same rounded values here.
  DistParams rounded = p;
  rounded.a = static_cast<float>(p.a);
  rounded.b = static_cast<float>(p.b);
  rounded.c = static_cast<float>(p.c);
  const Tensor inT = in ? *in : Tensor();
  const Tensor seedT = seed.isTensor ? *seed.tensor : Tensor();
  const uint64_t constantSeed = seed.value;
  const bool seedTensor = seed.isTensor;
  spec.bulk = [=](ExecutionContext& ctx) {
    uint64_t s = constantSeed;
    if (seedTensor) {
      ReadView<uint32_t> words(ctx, seedT);
      s = (uint64_t{words[1]} << 32) | words[0];
    }
    const uint64_t key = StreamKey(s, rounded.modifier);
    dispatchType(type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half>) {
        std::unique_ptr<ReadView<T>> iv;
        if (rounded.dist == Dist::DROPOUT) iv = std::make_unique<ReadView<T>>(ctx, inT, true);
        WriteView<T> ov(ctx, out);
        Generate<T>(rounded, key, 0, iv ? iv->data() : nullptr, ov.data(), ov.size());
      }
      return 0;
    });
    return absl::OkStatus();
  };
  poputil::addPerTileVertices(graph, spec, prog);
  return out;
}

Seed ConstantSeed(uint64_t value) { return {nullptr, value, false}; }
Seed TensorSeed(const Tensor* t) { return {t, 0, true}; }

Tensor Dropout(Graph& graph, const Seed& seed, uint32_t seedModifier, const Tensor& in,
               double keepProbability, program::Sequence& prog,
               const std::string& debugName) {
  if (in.valid() && (keepProbability <= 0 || keepProbability > 1)) {
    absl::Status s = absl::InvalidArgumentError(absl::StrCat(
        "poprand dropout: keepProbability must be in (0, 1], not ", keepProbability));
    graph.recordError(s);
    return Tensor::makeError(s);
  }
  return Build(graph, {Dist::DROPOUT, seedModifier, keepProbability, 0}, seed, in, &in,
               in.valid() ? in.elementType() : FLOAT, prog, debugName);
}

Tensor TruncatedNormal(Graph& graph, const Seed& seed, uint32_t seedModifier,
                       const Tensor& reference, Type type, double mean, double stdDev,
                       double alpha, program::Sequence& prog,
                       const std::string& debugName) {
  if (reference.valid() && !(alpha > 0)) {
    absl::Status s = absl::InvalidArgumentError(absl::StrCat(
        "poprand truncatedNormal: alpha must be positive, not ", alpha));
    graph.recordError(s);
    return Tensor::makeError(s);
  }
  return Build(graph, {Dist::TRUNCATED_NORMAL, seedModifier, mean, stdDev, alpha}, seed,
               reference, nullptr, type, prog, debugName);
}

}  // namespace

Tensor uniform(Graph& graph, uint64_t seed, uint32_t seedModifier,
               const Tensor& reference, Type type, double minVal, double maxVal,
               program::Sequence& prog, const std::string& debugName) {
  return Build(graph, {Dist::UNIFORM, seedModifier, minVal, maxVal}, ConstantSeed(seed),
               reference, nullptr, type, prog, debugName);
}

Tensor uniform(Graph& graph, const Tensor* seed, uint32_t seedModifier,
               const Tensor& reference, Type type, double minVal, double maxVal,
               program::Sequence& prog, const std::string& debugName) {
  return Build(graph, {Dist::UNIFORM, seedModifier, minVal, maxVal}, TensorSeed(seed),
               reference, nullptr, type, prog, debugName);
}

Tensor normal(Graph& graph, uint64_t seed, uint32_t seedModifier,
              const Tensor& reference, Type type, double mean, double stdDev,
              program::Sequence& prog, const std::string& debugName) {
  return Build(graph, {Dist::NORMAL, seedModifier, mean, stdDev}, ConstantSeed(seed),
               reference, nullptr, type, prog, debugName);
}

Tensor normal(Graph& graph, const Tensor* seed, uint32_t seedModifier,
              const Tensor& reference, Type type, double mean, double stdDev,
              program::Sequence& prog, const std::string& debugName) {
  return Build(graph, {Dist::NORMAL, seedModifier, mean, stdDev}, TensorSeed(seed),
               reference, nullptr, type, prog, debugName);
}

Tensor truncatedNormal(Graph& graph, uint64_t seed, uint32_t seedModifier,
                       const Tensor& reference, Type type, double mean,
                       double stdDev, double alpha, program::Sequence& prog,
                       const std::string& debugName) {
  return TruncatedNormal(graph, ConstantSeed(seed), seedModifier, reference, type, mean,
                         stdDev, alpha, prog, debugName);
}

Tensor truncatedNormal(Graph& graph, const Tensor* seed, uint32_t seedModifier,
                       const Tensor& reference, Type type, double mean,
                       double stdDev, double alpha, program::Sequence& prog,
                       const std::string& debugName) {
  return TruncatedNormal(graph, TensorSeed(seed), seedModifier, reference, type, mean,
                         stdDev, alpha, prog, debugName);
}

Tensor bernoulli(Graph& graph, uint64_t seed, uint32_t seedModifier,
                 const Tensor& reference, Type type, double prob,
                 program::Sequence& prog, const std::string& debugName) {
  return Build(graph, {Dist::BERNOULLI, seedModifier, prob, 0}, ConstantSeed(seed),
               reference, nullptr, type, prog, debugName);
}

Tensor bernoulli(Graph& graph, const Tensor* seed, uint32_t seedModifier,
                 const Tensor& reference, Type type, double prob,
                 program::Sequence& prog, const std::string& debugName) {
  return Build(graph, {Dist::BERNOULLI, seedModifier, prob, 0}, TensorSeed(seed),
               reference, nullptr, type, prog, debugName);
}

Tensor dropout(Graph& graph, uint64_t seed, uint32_t seedModifier,
               const Tensor& in, double keepProbability,
               program::Sequence& prog, const std::string& debugName) {
  return Dropout(graph, ConstantSeed(seed), seedModifier, in, keepProbability, prog,
                 debugName);
}

Tensor dropout(Graph& graph, const Tensor* seed, uint32_t seedModifier,
               const Tensor& in, double keepProbability,
               program::Sequence& prog, const std::string& debugName) {
  return Dropout(graph, TensorSeed(seed), seedModifier, in, keepProbability, prog,
                 debugName);
}

}  // namespace poprand
}  // namespace poplar_sim
