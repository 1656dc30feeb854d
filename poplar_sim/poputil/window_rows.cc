#include "poplar_sim/poputil/window_rows.h"

#include <algorithm>
#include <cstdint>

namespace poplar_sim {
namespace poputil {

WindowSpan windowSpan(size_t o, size_t stride, size_t pad, size_t size, size_t input) {
  const int64_t start = static_cast<int64_t>(o * stride) - static_cast<int64_t>(pad);
  const int64_t end = std::min<int64_t>(start + static_cast<int64_t>(size),
                                        static_cast<int64_t>(input));
  const int64_t begin = std::max<int64_t>(start, 0);
  return {static_cast<size_t>(begin), static_cast<size_t>(std::max(begin, end))};
}

CoveringWindows coveringWindows(size_t position, size_t stride, size_t pad, size_t size,
                                size_t outputs) {
  if (outputs == 0) return {};
  // Window o covers [o * stride - pad, o * stride - pad + size).
  const size_t shifted = position + pad;
  const size_t last = std::min(shifted / stride, outputs - 1);
  const size_t first = shifted + 1 > size ? (shifted + 1 - size + stride - 1) / stride : 0;
  if (first > last || last * stride + size <= shifted) return {};
  return {first, last - first + 1};
}

}  // namespace poputil
}  // namespace poplar_sim
