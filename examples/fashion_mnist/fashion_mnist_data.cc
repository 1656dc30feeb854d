#include "examples/fashion_mnist/fashion_mnist_data.h"

#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/io/idx.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

std::string InstallHint() {
  return absl::StrCat("install the Debian package ", kFashionMnistPackage,
                      " (apt-get install ", kFashionMnistPackage, ")");
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The pair through ReadIdxImagesAndLabels, with the install hint on a
// missing file.
absl::StatusOr<IdxImagesAndLabels> ReadDataFiles(const std::string& images_path,
                                                 const std::string& labels_path) {
  absl::StatusOr<IdxImagesAndLabels> read = ReadIdxImagesAndLabels(images_path, labels_path);
  if (absl::IsNotFound(read.status())) {
    return absl::NotFoundError(absl::StrCat("Fashion-MNIST file not found: ",
                                            read.status().message(), "; ", InstallHint()));
  }
  return read;
}

}  // namespace

absl::StatusOr<LabelledImages> LoadFashionMnistSplit(const std::string& dir,
                                                     const std::string& prefix,
                                                     int64_t limit) {
  if (!IsDirectory(dir)) {
    return absl::NotFoundError(absl::StrCat("Fashion-MNIST directory '", dir,
                                            "' does not exist; ", InstallHint()));
  }
  const std::string images_path = absl::StrCat(dir, "/", prefix, "-images-idx3-ubyte.gz");
  const std::string labels_path = absl::StrCat(dir, "/", prefix, "-labels-idx1-ubyte.gz");
  ASSIGN_OR_RETURN(IdxImagesAndLabels read, ReadDataFiles(images_path, labels_path));
  const Tensor& images = read.images;
  const Tensor& labels = read.labels;
  if (images.dim_size(1) != 28 || images.dim_size(2) != 28) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", images_path, "' holds ", images.SummaryString(),
                     "; expected uint8 images [count, 28, 28]"));
  }
  int64_t count = images.dim_size(0);
  if (limit > 0) count = std::min(count, limit);

  LabelledImages out;
  out.images = Tensor(DT_FLOAT, TensorShape({count, kFashionMnistPixels}));
  out.labels = Tensor(DT_INT32, TensorShape({count}));
  const uint8_t* px = images.data<uint8_t>();
  float* x = out.images.data<float>();
  for (int64_t i = 0; i < count * kFashionMnistPixels; ++i) {
    x[i] = static_cast<float>(px[i]) / 255.0f;
  }
  const uint8_t* lb = labels.data<uint8_t>();
  int32_t* y = out.labels.data<int32_t>();
  for (int64_t i = 0; i < count; ++i) {
    if (lb[i] >= kFashionMnistClasses) {
      return absl::InvalidArgumentError(
          absl::StrCat("label ", static_cast<int>(lb[i]), " of image ", i, " in '",
                       labels_path, "' is not below ", kFashionMnistClasses));
    }
    y[i] = lb[i];
  }
  return out;
}

absl::StatusOr<FashionMnist> LoadFashionMnist(const std::string& dir,
                                              int64_t train_limit,
                                              int64_t test_limit) {
  FashionMnist data;
  ASSIGN_OR_RETURN(data.train, LoadFashionMnistSplit(dir, "train", train_limit));
  ASSIGN_OR_RETURN(data.test, LoadFashionMnistSplit(dir, "t10k", test_limit));
  return data;
}

}  // namespace examples
}  // namespace tensorflow_ipu
