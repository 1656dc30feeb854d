// The geometry of sliding windows along one dimension, shared by the
// libraries whose vertices read (pooling) or write (col2im) the input rows
// of windows: which input positions a window covers, and which windows
// cover an input position. Padding positions belong to no window.
//
//   WindowSpan s = windowSpan(/*o=*/3, /*stride=*/2, /*pad=*/1, /*size=*/3, /*input=*/9);
//   // s = {5, 8}: window 3 reads inputs 5, 6 and 7
//   CoveringWindows w = coveringWindows(/*position=*/5, 2, 1, 3, /*outputs=*/5);
//   // w = {2, 2}: windows 2 and 3 read input 5
#ifndef POPLAR_SIM_POPUTIL_WINDOW_ROWS_H_
#define POPLAR_SIM_POPUTIL_WINDOW_ROWS_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace poplar_sim {
namespace poputil {

// A 2-D sliding window over NHWC tensors: the input [batch, inRows, inCols,
// channels], the windows' size and strides, the window positions before the
// input's first row and column, and the [outRows, outCols] windows.
struct Window2D {
  size_t batch = 0, inRows = 0, inCols = 0, channels = 0;
  size_t windowRows = 1, windowCols = 1;
  size_t strideRows = 1, strideCols = 1;
  size_t padTop = 0, padLeft = 0;
  size_t outRows = 0, outCols = 0;
};

// "input [2,9,7,5], window 3x3, strides 2x2, padding top 1 left 1, output
// 5x4", for messages.
std::string describe(const Window2D& w);

// InvalidArgument, prefixed with `where`, unless every size, window and
// stride is at least 1, every window overlaps the input and every value
// fits the 32 bits of a vertex parameter.
absl::Status validate(const Window2D& w, const std::string& where);

// The input positions [begin, end) of window `o` of `size` positions moved
// `stride` at a time, the first starting `pad` positions before the input;
// empty (begin == end, both within [0, input]) when the window misses the
// input. Exact for every argument value (no product or sum wraps round).
struct WindowSpan {
  size_t begin = 0, end = 0;
};
WindowSpan windowSpan(size_t o, size_t stride, size_t pad, size_t size, size_t input);

// The windows [first, first + count) among `outputs` that cover input
// `position` (count 0: none does, and none does when stride or size is 0).
// Exact for every argument value.
struct CoveringWindows {
  size_t first = 0, count = 0;
};
CoveringWindows coveringWindows(size_t position, size_t stride, size_t pad, size_t size,
                                size_t outputs);

}  // namespace poputil
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPUTIL_WINDOW_ROWS_H_
