// IDX files, the format of MNIST and Fashion-MNIST: a magic number giving
// the element type and rank, big-endian dimension sizes, then the data.
// Files ending in ".gz" are read through zlib.
//
//   ASSIGN_OR_RETURN(Tensor images, ReadIdxFile(
//       "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"));
//   images.shape();   // [60000,28,28], uint8
#ifndef TENSORFLOW_IPU_IO_IDX_H_
#define TENSORFLOW_IPU_IO_IDX_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {

// Parses the bytes of an IDX file. Unsigned-byte data (type 0x08) gives a
// DT_UINT8 tensor, 32-bit int data (0x0C) DT_INT32, float data (0x0D)
// DT_FLOAT. A bad magic number, an unsupported type, or a data size that
// does not match the dimensions is InvalidArgument naming `source`.
absl::StatusOr<Tensor> ParseIdx(absl::string_view bytes, const std::string& source);

// Reads a file (gzip-compressed when its name ends in ".gz"). NotFound for
// a missing file, DataLoss for a corrupt compressed stream.
absl::StatusOr<Tensor> ReadIdxFile(const std::string& path);

// An image set and its labels, as MNIST-format data sets ship them.
struct IdxImagesAndLabels {
  Tensor images;  // uint8 [count, rows, cols]
  Tensor labels;  // uint8 [count]
};

// Reads both files with ReadIdxFile and checks that they belong together:
// uint8 images of rank 3, uint8 labels of rank 1, as many labels as
// images. InvalidArgument naming the file otherwise.
absl::StatusOr<IdxImagesAndLabels> ReadIdxImagesAndLabels(const std::string& images_path,
                                                          const std::string& labels_path);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IO_IDX_H_
