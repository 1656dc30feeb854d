#include "tensorflow_ipu/io/idx.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

uint32_t BigEndian32(absl::string_view b, size_t offset) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(b[offset])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[offset + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[offset + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[offset + 3]));
}

absl::Status Bad(const std::string& source, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", source, "' is not a valid IDX file: ", why));
}

absl::StatusOr<std::string> ReadGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("IDX file '", path, "' does not exist"));
  }
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, n);
  int err = Z_OK;
  const char* message = gzerror(f, &err);
  const bool failed = n < 0 || (err != Z_OK && err != Z_STREAM_END);
  // zlib prefixes its messages with the path, which ours already names; the
  // message belongs to `f`, so it is copied before gzclose.
  absl::string_view view = failed ? message : "";
  absl::ConsumePrefix(&view, path + ": ");
  const std::string why(view);
  gzclose(f);
  if (failed) {
    return absl::DataLossError(absl::StrCat(
        "IDX file '", path, "' is not a valid gzip stream: ", why));
  }
  return out;
}

}  // namespace

absl::StatusOr<Tensor> ParseIdx(absl::string_view bytes, const std::string& source) {
  if (bytes.size() < 4) return Bad(source, "shorter than its 4-byte magic number");
  if (bytes[0] != 0 || bytes[1] != 0) {
    return Bad(source, "the magic number does not start with two zero bytes");
  }
  const unsigned char type = static_cast<unsigned char>(bytes[2]);
  const int rank = static_cast<unsigned char>(bytes[3]);
  DataType dtype;
  switch (type) {
    case 0x08: dtype = DT_UINT8; break;
    case 0x0C: dtype = DT_INT32; break;
    case 0x0D: dtype = DT_FLOAT; break;
    default:
      return Bad(source, absl::StrCat("element type 0x", absl::Hex(type),
                                      " is not supported (ubyte 0x08, int 0x0C, "
                                      "float 0x0D)"));
  }
  if (rank == 0) return Bad(source, "it has no dimensions");
  const size_t header = 4 + 4 * static_cast<size_t>(rank);
  if (bytes.size() < header) return Bad(source, "it ends inside its header");
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(BigEndian32(bytes, 4 + 4 * i));
  absl::StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) return Bad(source, std::string(shape.status().message()));
  const uint64_t expected =
      static_cast<uint64_t>(shape->num_elements()) * DataTypeSize(dtype);
  if (bytes.size() - header != expected) {
    return Bad(source, absl::StrCat("dimensions [", absl::StrJoin(dims, ","),
                                    "] need ", expected, " bytes of data but it has ",
                                    bytes.size() - header));
  }
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, *shape);
  if (!t.ok()) return t.status();
  const unsigned char* src = reinterpret_cast<const unsigned char*>(bytes.data()) + header;
  if (dtype == DT_UINT8) {
    if (expected > 0) std::memcpy(t->raw_data(), src, expected);
  } else {
    // 4-byte big-endian values.
    uint32_t* dst = static_cast<uint32_t*>(t->raw_data());
    for (int64_t i = 0; i < shape->num_elements(); ++i) {
      dst[i] = BigEndian32(absl::string_view(reinterpret_cast<const char*>(src), expected), 4 * i);
    }
  }
  return t;
}

absl::StatusOr<Tensor> ReadIdxFile(const std::string& path) {
  std::string bytes;
  if (absl::EndsWith(path, ".gz")) {
    absl::StatusOr<std::string> data = ReadGzip(path);
    if (!data.ok()) return data.status();
    bytes = *std::move(data);
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(absl::StrCat("IDX file '", path, "' does not exist"));
    }
    std::stringstream b;
    b << in.rdbuf();
    bytes = b.str();
  }
  return ParseIdx(bytes, path);
}

absl::StatusOr<IdxImagesAndLabels> ReadIdxImagesAndLabels(const std::string& images_path,
                                                          const std::string& labels_path) {
  IdxImagesAndLabels set;
  ASSIGN_OR_RETURN(set.images, ReadIdxFile(images_path));
  ASSIGN_OR_RETURN(set.labels, ReadIdxFile(labels_path));
  if (set.images.dtype() != DT_UINT8 || set.images.dims() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("'", images_path, "' holds ",
                                                   set.images.SummaryString(),
                                                   "; expected uint8 images [count, rows, cols]"));
  }
  if (set.labels.dtype() != DT_UINT8 || set.labels.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("'", labels_path, "' holds ",
                                                   set.labels.SummaryString(),
                                                   "; expected uint8 labels [count]"));
  }
  if (set.labels.dim_size(0) != set.images.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", images_path, "' has ", set.images.dim_size(0), " images but '", labels_path,
        "' has ", set.labels.dim_size(0), " labels"));
  }
  return set;
}

}  // namespace tensorflow_ipu
