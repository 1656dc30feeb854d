// Fuzz target: the application executable reader
// (runtime/ipu/application_executable.h) on arbitrary bytes, as
// embedded_runtime_start and the ApplicationRuntime kernel read a file they
// were given.
//
// An error must name the file. A file that parses must satisfy what the
// engine relies on (at least one iteration, fully defined streamed shapes,
// a run target in the program) and round-trip: encoded again and parsed, it
// gives the same message. Anything else aborts, so libFuzzer reports it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/util/message_differencer.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"

namespace {

using tensorflow_ipu::ApplicationExecutableProto;
using tensorflow_ipu::ApplicationTensorInfo;
using tensorflow_ipu::TensorShape;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "application_executable_fuzzer: %s\n", what);
  std::abort();
}

void CheckDefined(const google::protobuf::RepeatedPtrField<ApplicationTensorInfo>& infos) {
  for (const ApplicationTensorInfo& info : infos) {
    absl::StatusOr<TensorShape> s = TensorShape::FromProto(info.shape());
    if (!s.ok() || !s->IsFullyDefined()) Fail("an accepted tensor info has an undefined shape");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ApplicationExecutableProto> exe =
      tensorflow_ipu::ParseApplicationExecutable(bytes, "fuzz.poplar_exec");
  if (!exe.ok()) {
    if (exe.status().message().find("fuzz.poplar_exec") == absl::string_view::npos) {
      Fail("an error does not name the file");
    }
    return 0;
  }
  const tensorflow_ipu::EmbeddedRuntimeConfig& config = exe->embedded_runtime_config();
  if (config.iterations() < 1) Fail("an accepted executable runs no iteration");
  CheckDefined(config.signature().inputs());
  CheckDefined(config.signature().streamed_inputs());
  CheckDefined(config.signature().streamed_outputs());
  bool target = false;
  for (const auto& node : exe->program().node()) target |= node.name() == config.run_target();
  if (!target) Fail("an accepted executable's run target is not in its program");
  absl::StatusOr<ApplicationExecutableProto> again = tensorflow_ipu::ParseApplicationExecutable(
      tensorflow_ipu::EncodeApplicationExecutable(*exe), "again.poplar_exec");
  if (!again.ok()) Fail("an accepted executable, encoded again, does not parse");
  // Field by field: serialized maps (node attrs) have no fixed order.
  if (!google::protobuf::util::MessageDifferencer::Equals(*again, *exe)) {
    Fail("the round trip changed it");
  }
  return 0;
}
