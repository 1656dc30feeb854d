// Fuzz target: ipu_saved_model_cli's .npy reader
// (tools/ipu_saved_model_cli/npy.h) on arbitrary bytes, as `run --inputs`
// reads a file it was given.
//
// A file that parses must round-trip: written back with EncodeNpy (as
// `run --outdir` writes outputs) and parsed again, it gives the same dtype,
// shape and element bytes; anything else aborts, so libFuzzer reports it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tools/ipu_saved_model_cli/npy.h"

namespace {

using tensorflow_ipu::Tensor;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "npy_fuzzer: %s\n", what);
  std::abort();
}

absl::string_view Bytes(const Tensor& t) {
  return absl::string_view(static_cast<const char*>(t.raw_data()), t.TotalBytes());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Tensor> t = tensorflow_ipu::saved_model_cli::ParseNpy(bytes, "fuzz.npy");
  if (!t.ok()) {
    if (t.status().message().find("fuzz.npy") == absl::string_view::npos) {
      Fail("an error does not name the file");
    }
    return 0;
  }
  if (t->NumElements() > 0 && t->raw_data() == nullptr) Fail("elements without a buffer");
  absl::StatusOr<std::string> encoded = tensorflow_ipu::saved_model_cli::EncodeNpy(*t);
  if (!encoded.ok()) Fail("a tensor that was read cannot be written back");
  absl::StatusOr<Tensor> again =
      tensorflow_ipu::saved_model_cli::ParseNpy(*encoded, "written.npy");
  if (!again.ok()) Fail("what EncodeNpy wrote does not parse");
  if (again->dtype() != t->dtype()) Fail("the round trip changed the dtype");
  if (again->shape() != t->shape()) Fail("the round trip changed the shape");
  if (Bytes(*again) != Bytes(*t)) Fail("the round trip changed the elements");
  return 0;
}
