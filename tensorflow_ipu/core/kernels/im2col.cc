#include "tensorflow_ipu/core/kernels/im2col.h"

#include <algorithm>
#include <cstring>

#include "tensorflow_ipu/core/kernels/parallel_rows.h"

namespace tensorflow_ipu {
namespace {

// The taps [k_begin, k_end) of a window starting at input position `start`
// that fall inside [0, size).
struct Taps {
  int64_t k_begin, k_end;
};
Taps InsideTaps(int64_t start, int64_t window, int64_t size) {
  return {std::clamp<int64_t>(-start, 0, window),
          std::clamp<int64_t>(size - start, 0, window)};
}

}  // namespace

int64_t PatchSize(const window::Window2DDims& d) {
  return d.filter_rows * d.filter_cols * d.in_depth;
}

template <typename T>
void Im2ColRows(const window::Window2DDims& d, const T* input, int64_t row_begin,
                int64_t row_end, T* col) {
  const int64_t oh = d.rows.output, ow = d.cols.output;
  const int64_t depth = d.in_depth, patch = PatchSize(d);
  const int64_t row_len = d.filter_cols * depth;
  const int64_t image_size = d.in_rows * d.in_cols * depth;
  for (int64_t p = row_begin; p < row_end; ++p) {
    const int64_t b = p / oh, oy = p % oh;
    const T* image = input + b * image_size;
    T* dst = col + (p - row_begin) * ow * patch;
    const int64_t y0 = oy * d.stride_rows - d.rows.pad_before;
    const Taps ys = InsideTaps(y0, d.filter_rows, d.in_rows);
    for (int64_t ox = 0; ox < ow; ++ox, dst += patch) {
      const int64_t x0 = ox * d.stride_cols - d.cols.pad_before;
      const Taps xs = InsideTaps(x0, d.filter_cols, d.in_cols);
      if (xs.k_begin >= xs.k_end || ys.k_begin >= ys.k_end) {
        std::fill(dst, dst + patch, T(0));
        continue;
      }
      std::fill(dst, dst + ys.k_begin * row_len, T(0));
      for (int64_t ky = ys.k_begin; ky < ys.k_end; ++ky) {
        T* r = dst + ky * row_len;
        // The inside taps of a row are contiguous in the image.
        std::fill(r, r + xs.k_begin * depth, T(0));
        std::memcpy(r + xs.k_begin * depth,
                    image + ((y0 + ky) * d.in_cols + x0 + xs.k_begin) * depth,
                    (xs.k_end - xs.k_begin) * depth * sizeof(T));
        std::fill(r + xs.k_end * depth, r + row_len, T(0));
      }
      std::fill(dst + ys.k_end * row_len, dst + patch, T(0));
    }
  }
}

template <typename T>
void Im2Col(OpKernelContext* ctx, const window::Window2DDims& d, const T* input,
            int64_t row_begin, int64_t row_end, T* col) {
  const int64_t row_elements = d.cols.output * PatchSize(d);
  // One task per output row: out_cols patches.
  ParallelRows(ctx, row_end - row_begin, row_elements, [&](int64_t begin, int64_t end) {
    Im2ColRows(d, input, row_begin + begin, row_begin + end, col + begin * row_elements);
  });
}

template <typename T>
void Col2Im(OpKernelContext* ctx, const window::Window2DDims& d, const T* col,
            int64_t row_begin, int64_t row_end, T* input_grad) {
  if (row_begin >= row_end) return;
  const int64_t oh = d.rows.output, ow = d.cols.output;
  const int64_t depth = d.in_depth, patch = PatchSize(d);
  const int64_t row_len = d.filter_cols * depth;
  const int64_t image_size = d.in_rows * d.in_cols * depth;
  const int64_t first_image = row_begin / oh, images = (row_end - 1) / oh - first_image + 1;
  // One task per image: patches of one image overlap, of two never.
  ParallelRows(ctx, images, oh * ow * patch, [&](int64_t begin, int64_t end) {
    for (int64_t b = first_image + begin; b < first_image + end; ++b) {
      T* image = input_grad + b * image_size;
      const int64_t p_begin = std::max(row_begin, b * oh);
      const int64_t p_end = std::min(row_end, (b + 1) * oh);
      const T* src = col + (p_begin - row_begin) * ow * patch;
      for (int64_t p = p_begin; p < p_end; ++p) {
        const int64_t y0 = (p % oh) * d.stride_rows - d.rows.pad_before;
        const Taps ys = InsideTaps(y0, d.filter_rows, d.in_rows);
        for (int64_t ox = 0; ox < ow; ++ox, src += patch) {
          const int64_t x0 = ox * d.stride_cols - d.cols.pad_before;
          const Taps xs = InsideTaps(x0, d.filter_cols, d.in_cols);
          const int64_t n = (xs.k_end - xs.k_begin) * depth;
          for (int64_t ky = ys.k_begin; ky < ys.k_end && n > 0; ++ky) {
            const T* s = src + ky * row_len + xs.k_begin * depth;
            T* t = image + ((y0 + ky) * d.in_cols + x0 + xs.k_begin) * depth;
            for (int64_t i = 0; i < n; ++i) t[i] += s[i];
          }
        }
      }
    }
  });
}

template void Im2ColRows<float>(const window::Window2DDims&, const float*, int64_t, int64_t,
                                float*);
template void Im2ColRows<double>(const window::Window2DDims&, const double*, int64_t, int64_t,
                                 double*);
template void Im2Col<float>(OpKernelContext*, const window::Window2DDims&, const float*,
                            int64_t, int64_t, float*);
template void Im2Col<double>(OpKernelContext*, const window::Window2DDims&, const double*,
                             int64_t, int64_t, double*);
template void Col2Im<float>(OpKernelContext*, const window::Window2DDims&, const float*,
                            int64_t, int64_t, float*);
template void Col2Im<double>(OpKernelContext*, const window::Window2DDims&, const double*,
                             int64_t, int64_t, double*);

}  // namespace tensorflow_ipu
