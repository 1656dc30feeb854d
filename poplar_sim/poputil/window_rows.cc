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
