#include "poplar_sim/poputil/window_rows.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace poplar_sim {
namespace poputil {

namespace {

// Whether the last window along a dimension starts inside the input, in
// arithmetic that cannot overflow: (out - 1) * stride - pad < input.
bool LastWindowStartsInside(size_t out, size_t stride, size_t pad, size_t input) {
  return out - 1 <= (input - 1 + pad) / stride;
}

}  // namespace

std::string describe(const Window2D& w) {
  return absl::StrCat("input [", w.batch, ",", w.inRows, ",", w.inCols, ",", w.channels,
                      "], window ", w.windowRows, "x", w.windowCols, ", strides ",
                      w.strideRows, "x", w.strideCols, ", padding top ", w.padTop, " left ",
                      w.padLeft, ", output ", w.outRows, "x", w.outCols);
}

absl::Status validate(const Window2D& w, const std::string& where) {
  if (w.batch == 0 || w.inRows == 0 || w.inCols == 0 || w.channels == 0 || w.outRows == 0 ||
      w.outCols == 0 || w.windowRows == 0 || w.windowCols == 0 || w.strideRows == 0 ||
      w.strideCols == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "every size, window and stride must be at least 1 (", describe(w),
                     "); an empty window operation has nothing to build"));
  }
  // Windows move forward, so only the first can end before the input and
  // only the last can start after it.
  if (w.windowRows <= w.padTop || w.windowCols <= w.padLeft ||
      !LastWindowStartsInside(w.outRows, w.strideRows, w.padTop, w.inRows) ||
      !LastWindowStartsInside(w.outCols, w.strideCols, w.padLeft, w.inCols)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "a window holds no input position (", describe(w),
        "); every window must overlap the input, as TensorFlow's padding rules make it"));
  }
  for (size_t v : {w.batch, w.inRows, w.inCols, w.channels, w.windowRows, w.windowCols,
                   w.strideRows, w.strideCols, w.padTop, w.padLeft, w.outRows, w.outCols}) {
    if (v > UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "a size beyond 2^32 (", describe(w), ")"));
    }
  }
  // TensorFlow's padding never makes a window longer than the padded input
  // (at most one more position after it than before it).
  if (w.windowRows > w.inRows + 2 * w.padTop + 1 || w.windowCols > w.inCols + 2 * w.padLeft + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "a window longer than the padded input (", describe(w),
        "); TensorFlow's VALID and SAME padding never give one"));
  }
  return absl::OkStatus();
}

// The arithmetic below is in 128 bits, so that no size_t argument, 2^64 - 1
// included, can wrap a product or a sum round to a plausible value.
using Wide = __int128;

WindowSpan windowSpan(size_t o, size_t stride, size_t pad, size_t size, size_t input) {
  const Wide start = Wide(o) * Wide(stride) - Wide(pad);
  const Wide begin = std::min(std::max<Wide>(start, 0), Wide(input));
  const Wide end = std::max(std::min(start + Wide(size), Wide(input)), begin);
  return {static_cast<size_t>(begin), static_cast<size_t>(end)};
}

CoveringWindows coveringWindows(size_t position, size_t stride, size_t pad, size_t size,
                                size_t outputs) {
  if (outputs == 0 || stride == 0 || size == 0) return {};
  // Window o covers [o * stride - pad, o * stride - pad + size).
  const Wide shifted = Wide(position) + Wide(pad);
  const Wide last = std::min(shifted / Wide(stride), Wide(outputs) - 1);
  const Wide first =
      shifted + 1 > Wide(size) ? (shifted + 1 - Wide(size) + Wide(stride) - 1) / Wide(stride) : 0;
  if (first > last || last * Wide(stride) + Wide(size) <= shifted) return {};
  return {static_cast<size_t>(first), static_cast<size_t>(last - first + 1)};
}

}  // namespace poputil
}  // namespace poplar_sim
