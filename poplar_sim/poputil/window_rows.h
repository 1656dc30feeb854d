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

namespace poplar_sim {
namespace poputil {

// The input positions [begin, end) of window `o` of `size` positions moved
// `stride` at a time, the first starting `pad` positions before the input;
// empty (begin == end) when the window misses the input.
struct WindowSpan {
  size_t begin = 0, end = 0;
};
WindowSpan windowSpan(size_t o, size_t stride, size_t pad, size_t size, size_t input);

// The windows [first, first + count) among `outputs` that cover input
// `position` (count 0: none does). stride and size must be at least 1.
struct CoveringWindows {
  size_t first = 0, count = 0;
};
CoveringWindows coveringWindows(size_t position, size_t stride, size_t pad, size_t size,
                                size_t outputs);

}  // namespace poputil
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPUTIL_WINDOW_ROWS_H_
