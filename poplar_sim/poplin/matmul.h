// poplin::matMul: a matrix product planned across tiles.
//
//   Tensor c = poplin::matMul(graph, a, b, prog, "fc1");  // [m,k] x [k,n]
//
// The planner splits the output rows (m), the output columns (n) and the
// reduction dimension (k) over tiles. Each candidate split costs:
// exchange of the A and B blocks to their tile, the block product on the
// tile's matrix unit (Target::getMacsPerCycle MACs per cycle), and, when k
// is split, a second compute set reducing the partial sums (each tile sums
// a slice of rows of its output block). The fastest split whose blocks and
// partials fit in availableMemoryProportion (default 0.6, as poplibs) of a
// tile's memory wins. Partial sums are float; the output has A's type.
//
// Execution is one Eigen product for the whole matrix (the bulk executor of
// the first compute set; the partial sums of a k split are then not
// materialised and the reduction compute set has nothing to execute, while
// both are still costed tile by tile) or, with the engine option
// debug.executeVerticesIndividually, one block product per vertex followed
// by the reduction of the partials; the two agree up to float summation
// order.
#ifndef POPLAR_SIM_POPLIN_MATMUL_H_
#define POPLAR_SIM_POPLIN_MATMUL_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "poplar_sim/execution_context.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/option_flags.h"
#include "poplar_sim/program.h"
#include "poplar_sim/target.h"

namespace poplar_sim {
namespace poplin {

struct MatMulPlan {
  unsigned splitM = 1, splitN = 1, splitK = 1;  // number of blocks
  size_t blockM = 0, blockN = 0, blockK = 0;    // block sizes
  uint64_t estimatedCycles = 0;
  uint64_t bytesPerTile = 0;  // exchange buffers + partials of one tile
  unsigned tilesUsed() const { return splitM * splitN * splitK; }
};

// The fastest plan for [m,k] x [k,n] on `numTiles` tiles of `target`.
// ResourceExhausted if even the smallest blocks do not fit.
absl::StatusOr<MatMulPlan> planMatMul(const Target& target, unsigned numTiles,
                                      Type type, size_t m, size_t k, size_t n,
                                      double availableMemoryProportion = 0.6);

// Options: "availableMemoryProportion" (0 < p <= 1). A product of empty
// matrices is not planned: a depth of 0 gives [m,n] zeros (empty sums, as
// TensorFlow's MatMul), and m or n of 0 an empty tensor.
Tensor matMul(Graph& graph, const Tensor& a, const Tensor& b,
              program::Sequence& prog, const std::string& debugName = "",
              const OptionFlags& options = {});

// c += k * a b for float matrices c [m,n], a [m,k], b [k,n], as Poplar's
// poplin::matMulAcc. Planned as matMul plans the product; when the plan
// keeps the depth on one tile, each block vertex adds k times its product
// to its block of c (the matrix unit's partials start from c's values
// instead of zero; costed as the product and the scaled add of its
// outputs), and the host adds the product into c in one GEMM without
// materialising it (Poplar runs a product and then a scaled add, one sync
// more). With the depth split, the partials' reduction adds into c. When c
// shares a variable with a or b, a product and then a scaled add. An empty
// product (k = 0, or c with no elements) adds nothing. Errors
// are recorded on the graph (Graph::status), as matMul's.
void matMulAcc(Graph& graph, const Tensor& c, float k, const Tensor& a, const Tensor& b,
               program::Sequence& prog, const std::string& debugName = "",
               const OptionFlags& options = {});

// poplar_sim extension: the product of a and b computed on the host by
// `hostProduct` instead of a generic matrix product, for a caller that
// knows a faster way to the same values (a convolution's product from its
// input, without copying out the im2col view `a` is). The program, its
// vertices and its cost are those of matMul. hostProduct gets the
// execution context and the product's [m,n] floats (row-major) to fill; it
// may read only tensors of the variables a and b view (the engine orders
// compute sets by the variables their vertices connect). When it returns
// false, or for half operands, the generic product runs.
using HostProduct = std::function<bool(ExecutionContext& ctx, float* product)>;
Tensor matMul(Graph& graph, const Tensor& a, const Tensor& b,
              program::Sequence& prog, const std::string& debugName,
              const OptionFlags& options, HostProduct hostProduct);

}  // namespace poplin
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPLIN_MATMUL_H_
