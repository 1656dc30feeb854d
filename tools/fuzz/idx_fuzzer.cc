// Fuzz target: the IDX reader (tensorflow_ipu/io/idx.h), on the bytes
// directly and through a file read with zlib as a ".gz" data set is.
//
// A parse that succeeds must round-trip: the tensor written back as IDX is
// the input, byte for byte (dimensions, element type and big-endian values).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/io/idx.h"

namespace {

using tensorflow_ipu::DataType;
using tensorflow_ipu::Tensor;

void AppendBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>(v >> shift));
  }
}

std::string ToIdx(const Tensor& t) {
  std::string out = {0, 0};
  out.push_back(t.dtype() == tensorflow_ipu::DT_UINT8   ? 0x08
                : t.dtype() == tensorflow_ipu::DT_INT32 ? 0x0C
                                                        : 0x0D);
  out.push_back(static_cast<char>(t.dims()));
  for (int d = 0; d < t.dims(); ++d) {
    AppendBigEndian32(static_cast<uint32_t>(t.dim_size(d)), &out);
  }
  if (t.dtype() == tensorflow_ipu::DT_UINT8) {
    out.append(static_cast<const char*>(t.raw_data()), t.TotalBytes());
  } else {
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      uint32_t v;
      std::memcpy(&v, static_cast<const char*>(t.raw_data()) + 4 * i, 4);
      AppendBigEndian32(v, &out);
    }
  }
  return out;
}

const std::string& ScratchPath() {
  static const std::string* path = new std::string(
      absl::StrCat("/tmp/tfipu_idx_fuzz_", getpid(), ".gz"));
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Tensor> t = tensorflow_ipu::ParseIdx(bytes, "fuzz input");
  if (t.ok() && ToIdx(*t) != bytes) std::abort();

  {
    std::ofstream out(ScratchPath(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  absl::StatusOr<Tensor> from_file = tensorflow_ipu::ReadIdxFile(ScratchPath());
  if (from_file.ok() && from_file->NumElements() > 0 &&
      from_file->raw_data() == nullptr) {
    std::abort();
  }
  return 0;
}
