// The vertices of poplin's matrix products: block products (writing or
// accumulating into their output block) and the reductions of partial
// sums when the depth is split over tiles. Registered by name; their cycle
// estimates are the formulas the planner costs plans with.
#include <cstdint>
#include <memory>
#include <optional>

#include "Eigen/Core"
#include "poplar_sim/poplin/matmul_internal.h"
#include "poplar_sim/target.h"
#include "poplar_sim/type.h"
#include "poplar_sim/vertex.h"

namespace poplar_sim {
namespace poplin {
namespace matmul_internal {

constexpr uint64_t kBlockOverheadCycles = 30;   // [ASSUMPTION] per vertex
constexpr uint64_t kReduceOverheadCycles = 20;  // [ASSUMPTION]

uint64_t BlockWorkerCycles(const Target& t, Type type, uint64_t macs) {
  return kBlockOverheadCycles +
         CeilDiv(macs, uint64_t(t.getMacsPerCycle(type)) * t.getNumWorkerContexts());
}

uint64_t ReduceWorkerCycles(const Target& t, uint64_t inputs) {
  return kReduceOverheadCycles +
         CeilDiv(inputs, uint64_t(t.getVectorWidth(FLOAT)) * t.getNumWorkerContexts());
}

namespace {

// out[r][c] (+)= sum_k a[r][k] * b[k][c], accumulated in float.
template <typename In, typename Out>
class MatMulBlockVertex : public MultiVertex {
 public:
  Input<Vector<In>> a{this, "a"};
  Input<Vector<In>> b{this, "b"};
  Output<Vector<Out>> out{this, "out"};
  Param<unsigned> rows{this, "rows"};
  Param<unsigned> depth{this, "depth"};
  Param<unsigned> cols{this, "cols"};
  bool compute() override {
    const size_t R = rows, K = depth, C = cols;
    if (a.size() != R * K || b.size() != K * C || out.size() != R * C) return false;
    for (size_t r = 0; r < R; ++r) {
      for (size_t c = 0; c < C; ++c) {
        float acc = 0;
        for (size_t k = 0; k < K; ++k) {
          acc += static_cast<float>(a[r * K + k]) * static_cast<float>(b[k * C + c]);
        }
        out[r * C + c] = static_cast<Out>(acc);
      }
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return BlockWorkerCycles(t, TypeOf<In>::value,
                             uint64_t(unsigned(rows)) * unsigned(depth) * unsigned(cols));
  }
  uint64_t getFlopEstimate() const override {
    return 2 * uint64_t(unsigned(rows)) * unsigned(depth) * unsigned(cols);
  }
};

template <typename Out>
class ReducePartialsVertex : public MultiVertex {
 public:
  Input<Vector<float>> partials{this, "partials"};
  Output<Vector<Out>> out{this, "out"};
  bool compute() override {
    const size_t e = out.size();
    if (e == 0) return true;
    if (partials.size() % e != 0) return false;
    const size_t s = partials.size() / e;
    for (size_t i = 0; i < e; ++i) {
      float acc = 0;
      for (size_t p = 0; p < s; ++p) acc += partials[p * e + i];
      out[i] = static_cast<Out>(acc);
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ReduceWorkerCycles(t, partials.size());
  }
  uint64_t getFlopEstimate() const override { return partials.size(); }
};

// acc[r][c] += scale * sum_k a[r][k] * b[k][c]: a block of matMulAcc that
// adds its product to the output it accumulates into, as the matrix
// unit's partials can start from memory instead of zero. Costed as the
// product and the scaled add of its outputs.
class MatMulAccBlockVertex : public MultiVertex {
 public:
  Input<Vector<float>> a{this, "a"};
  Input<Vector<float>> b{this, "b"};
  InOut<Vector<float>> acc{this, "acc"};
  Param<unsigned> rows{this, "rows"};
  Param<unsigned> depth{this, "depth"};
  Param<unsigned> cols{this, "cols"};
  Param<float> scale{this, "scale"};
  bool compute() override {
    const size_t R = rows, K = depth, C = cols;
    if (a.size() != R * K || b.size() != K * C || acc.size() != R * C) return false;
    for (size_t r = 0; r < R; ++r) {
      for (size_t c = 0; c < C; ++c) {
        float sum = 0;
        for (size_t k = 0; k < K; ++k) sum += a[r * K + k] * b[k * C + c];
        acc[r * C + c] += float(scale) * sum;
      }
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    const uint64_t outputs = uint64_t(unsigned(rows)) * unsigned(cols);
    return BlockWorkerCycles(t, FLOAT, outputs * unsigned(depth)) +
           ReduceWorkerCycles(t, 2 * outputs);
  }
  uint64_t getFlopEstimate() const override {
    return 2 * uint64_t(unsigned(rows)) * unsigned(cols) * (unsigned(depth) + 1);
  }
};

// acc[i] += scale * sum_p partials[p][i]: the reduction of a matMulAcc whose
// depth is split over tiles.
class ReducePartialsAccVertex : public MultiVertex {
 public:
  Input<Vector<float>> partials{this, "partials"};
  InOut<Vector<float>> acc{this, "acc"};
  Param<float> scale{this, "scale"};
  bool compute() override {
    const size_t e = acc.size();
    if (e == 0) return true;
    if (partials.size() % e != 0) return false;
    const size_t s = partials.size() / e;
    for (size_t i = 0; i < e; ++i) {
      float sum = 0;
      for (size_t p = 0; p < s; ++p) sum += partials[p * e + i];
      acc[i] += float(scale) * sum;
    }
    return true;
  }
  std::optional<uint64_t> getCycleEstimate(const Target& t) const override {
    return ReduceWorkerCycles(t, partials.size() + 2 * acc.size());
  }
  uint64_t getFlopEstimate() const override { return partials.size() + 2 * acc.size(); }
};

const bool kRegistered = [] {
  VertexRegistry& r = VertexRegistry::global();
  (void)r.add("poplin::MatMulBlock<float,float>",
              [] { return std::unique_ptr<Vertex>(new MatMulBlockVertex<float, float>()); });
  (void)r.add("poplin::MatMulBlock<half,half>", [] {
    return std::unique_ptr<Vertex>(new MatMulBlockVertex<Eigen::half, Eigen::half>());
  });
  (void)r.add("poplin::MatMulBlock<half,float>",
              [] { return std::unique_ptr<Vertex>(new MatMulBlockVertex<Eigen::half, float>()); });
  (void)r.add("poplin::MatMulAccBlock<float>",
              [] { return std::unique_ptr<Vertex>(new MatMulAccBlockVertex()); });
  (void)r.add("poplin::ReducePartialsAcc<float>",
              [] { return std::unique_ptr<Vertex>(new ReducePartialsAccVertex()); });
  (void)r.add("poplin::ReducePartials<float>",
              [] { return std::unique_ptr<Vertex>(new ReducePartialsVertex<float>()); });
  (void)r.add("poplin::ReducePartials<half>",
              [] { return std::unique_ptr<Vertex>(new ReducePartialsVertex<Eigen::half>()); });
  return true;
}();

}  // namespace
}  // namespace matmul_internal
}  // namespace poplin
}  // namespace poplar_sim
