#include "tensorflow_ipu/core/kernels/conv_filter_grad.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "tensorflow_ipu/core/kernels/im2col.h"
#include "third_party/dnnl/one_thread_sgemm.h"

namespace tensorflow_ipu {
namespace {

// A chunk's patches: about 256 KB of floats, so that they and the chunk's
// out_backprop rows stay in a core's cache between the copy and the product.
constexpr int64_t kChunkElements = 64 * 1024;

}  // namespace

bool Conv2DFilterGradByChunks(const window::Window2DDims& d, const float* input,
                              const float* out_backprop, float* filter_grad,
                              const RunTwoParts& run_two) {
  if (d.filter_depth != d.in_depth) return false;
  const int64_t patch = PatchSize(d), ow = d.cols.output, oc = d.out_depth;
  const int64_t rows = d.batch * d.rows.output;  // output rows, of ow patches each
  if (patch <= 0 || ow <= 0 || oc <= 0 || rows <= 0) return false;
  const int64_t chunk = std::max<int64_t>(1, kChunkElements / (ow * patch));
  // Two halves of the output rows, fixed by the shape.
  const int64_t half = (rows + 1) / 2;
  std::vector<float> second(patch * oc, 0.f);
  std::atomic<bool> ok{true};
  auto sum_rows = [&](int part) {
    const int64_t begin = part == 0 ? 0 : half, end = part == 0 ? half : rows;
    float* sum = part == 0 ? filter_grad : second.data();
    if (begin >= end) {
      std::fill(sum, sum + patch * oc, 0.f);
      return;
    }
    std::vector<float> col(std::min(chunk, end - begin) * ow * patch);
    for (int64_t r = begin; r < end && ok; r += chunk) {
      const int64_t n = std::min(chunk, end - r);
      Im2ColRows(d, input, r, r + n, col.data());
      // [patch, n * ow] x [n * ow, oc]: col stored [n * ow, patch].
      const float* dy = out_backprop + r * ow * oc;
      const bool done =
          r == begin
              ? dnnl_one_thread::Sgemm(true, false, patch, oc, n * ow, col.data(), patch, dy, oc,
                                       sum, oc)
              : dnnl_one_thread::SgemmBlockScaledAdd(true, false, 0, patch, 0, oc, n * ow, 1.f,
                                                     col.data(), patch, dy, oc, sum, oc);
      if (!done) ok = false;
    }
  };
  run_two(sum_rows);
  if (!ok) return false;
  for (int64_t i = 0; i < patch * oc; ++i) filter_grad[i] += second[i];
  return true;
}

}  // namespace tensorflow_ipu
