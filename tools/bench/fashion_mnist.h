// Fashion-MNIST for the benchmarks: images as floats scaled by 1/255 and
// int32 labels, in file order, so that batch k is the same 32 images for
// every contestant.
//
//   ASSIGN_OR_RETURN(FashionMnist data, LoadFashionMnist());
//   const float* x = data.train.batch_images(step, 32);   // 32 x 784
//   const int32_t* y = data.train.batch_labels(step, 32);
//
// The files come from Debian's dataset-fashion-mnist (installed by
// tools/bench/bootstrap_peers.sh).
#ifndef TOOLS_BENCH_FASHION_MNIST_H_
#define TOOLS_BENCH_FASHION_MNIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/bench/huge_page_vector.h"

namespace tfipu_bench {

inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

struct ImageSet {
  int64_t count = 0;      // images
  int64_t pixels = 0;     // per image (rows * cols)
  int classes = 10;
  HugePageVector<float> images;  // count x pixels, each in [0, 1]
  std::vector<int32_t> labels;   // count

  // Whole batches of `batch` images in the set.
  int64_t num_batches(int batch) const { return count / batch; }
  const float* batch_images(int64_t k, int batch) const {
    return images.data() + k * batch * pixels;
  }
  const int32_t* batch_labels(int64_t k, int batch) const {
    return labels.data() + k * batch;
  }
};

struct FashionMnist {
  ImageSet train;  // 60,000
  ImageSet test;   // 10,000
};

// Reads an images file (u8, rank 3) and a labels file (u8, rank 1) in IDX
// format, gzip-compressed when named "*.gz". InvalidArgument when the two
// disagree in count or a label is not below `classes`; NotFound for a
// missing file.
absl::StatusOr<ImageSet> LoadImageSet(const std::string& images_path,
                                      const std::string& labels_path,
                                      int classes = 10);

// The four files of `dir`. A missing file is NotFound saying how to install
// the data set.
absl::StatusOr<FashionMnist> LoadFashionMnist(const std::string& dir = kFashionMnistDir);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_FASHION_MNIST_H_
