// poputil: building a compute set with one vertex per tile interval, the
// common layout of the element-wise, row-wise and random-number libraries.
//
// The work is cut into "units" (an element, or a row of a softmax). The
// tensor `mapping` (flattened, unitSize elements per unit) says which tile
// owns each unit; every field is a tensor whose dimension 0 indexes units.
// For each tile and each interval of units it owns, one vertex of
// `vertexType` is added on that tile, its fields connected to the slices of
// the unit range, flattened. A `wholeField` is connected whole to every
// vertex (a small tensor each vertex reads entirely, such as a seed).
#ifndef POPLAR_SIM_POPUTIL_VERTEX_LAYOUT_H_
#define POPLAR_SIM_POPUTIL_VERTEX_LAYOUT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "poplar_sim/execution_context.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/program.h"

namespace poplar_sim {
namespace poputil {

struct PerTileVertices {
  std::string computeSetName;
  std::string vertexType;
  Tensor mapping;      // decides tiles; numElements = numUnits * unitSize
  size_t unitSize = 1;
  std::vector<std::pair<std::string, Tensor>> fields;  // dim 0 = units
  std::vector<std::pair<std::string, Tensor>> wholeFields;  // to every vertex
  std::map<std::string, double> params;
  // Params whose value is the first unit of the vertex's range (e.g. the
  // element offset a random-number vertex needs).
  std::vector<std::string> unitOffsetParams;
  BulkExecutor bulk;   // optional
};

// Adds the compute set, its vertices and an Execute to `prog`.
ComputeSet addPerTileVertices(Graph& graph, const PerTileVertices& spec,
                              program::Sequence& prog);

}  // namespace poputil
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPUTIL_VERTEX_LAYOUT_H_
