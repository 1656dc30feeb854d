#include "tools/bench/fashion_mnist.h"

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/io/idx.h"

namespace tfipu_bench {

namespace tfipu = tensorflow_ipu;

absl::StatusOr<ImageSet> LoadImageSet(const std::string& images_path,
                                      const std::string& labels_path,
                                      int classes) {
  absl::StatusOr<tfipu::IdxImagesAndLabels> read =
      tfipu::ReadIdxImagesAndLabels(images_path, labels_path);
  if (!read.ok()) return read.status();
  const tfipu::Tensor& images = read->images;
  const tfipu::Tensor& labels = read->labels;
  ImageSet set;
  set.count = images.dim_size(0);
  set.pixels = images.dim_size(1) * images.dim_size(2);
  set.classes = classes;
  set.images.resize(images.NumElements());
  const uint8_t* px = images.data<uint8_t>();
  for (int64_t i = 0; i < images.NumElements(); ++i) {
    set.images[i] = static_cast<float>(px[i]) / 255.0f;
  }
  set.labels.resize(set.count);
  const uint8_t* lb = labels.data<uint8_t>();
  for (int64_t i = 0; i < set.count; ++i) {
    if (lb[i] >= classes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "label ", static_cast<int>(lb[i]), " of image ", i, " in '",
          labels_path, "' is not below the ", classes, " classes"));
    }
    set.labels[i] = lb[i];
  }
  return set;
}

absl::StatusOr<FashionMnist> LoadFashionMnist(const std::string& dir) {
  auto load = [&dir](const char* prefix) -> absl::StatusOr<ImageSet> {
    absl::StatusOr<ImageSet> set =
        LoadImageSet(absl::StrCat(dir, "/", prefix, "-images-idx3-ubyte.gz"),
                     absl::StrCat(dir, "/", prefix, "-labels-idx1-ubyte.gz"));
    if (absl::IsNotFound(set.status())) {
      return absl::NotFoundError(absl::StrCat(
          set.status().message(),
          "; install the data set with tools/bench/bootstrap_peers.sh "
          "(Debian package dataset-fashion-mnist)"));
    }
    return set;
  };
  absl::StatusOr<ImageSet> train = load("train");
  if (!train.ok()) return train.status();
  absl::StatusOr<ImageSet> test = load("t10k");
  if (!test.ok()) return test.status();
  FashionMnist data;
  data.train = *std::move(train);
  data.test = *std::move(test);
  return data;
}

}  // namespace tfipu_bench
