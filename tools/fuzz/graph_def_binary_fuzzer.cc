// Fuzz target: bytes parsed as a binary GraphDef, then Session::Create and a
// Run with generated feeds (graph_def_fuzz_util.h).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tools/fuzz/graph_def_fuzz_util.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tensorflow_ipu::fuzz::ConfigureIpuModelOnce();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<tensorflow_ipu::GraphDef> def = tensorflow_ipu::GraphDefFromBinary(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (def.ok()) tensorflow_ipu::fuzz::CreateAndRun(*def);
  return 0;
}
