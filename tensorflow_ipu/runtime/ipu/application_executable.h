// The application executable file: the vendor's layout, an 8-byte magic
// "GCTF" F0 9F 91 8D, the length of the metadata as a little-endian u64,
// then an ApplicationExecutableProto (application_executable.proto).
//
//   RETURN_IF_ERROR(WriteApplicationExecutable(exe, "cache/application.poplar_exec"));
//   ASSIGN_OR_RETURN(ApplicationExecutableProto exe,
//                    ReadApplicationExecutable("cache/application.poplar_exec"));
//
// Reading checks everything the runtime relies on before an engine starts,
// so a damaged or hostile file is an error naming the file and the field,
// never a crash or a silently different program.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_APPLICATION_EXECUTABLE_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_APPLICATION_EXECUTABLE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.pb.h"

namespace tensorflow_ipu {

inline constexpr absl::string_view kApplicationExecutableMagic{"GCTF\xf0\x9f\x91\x8d", 8};
// The vendor's bound on the metadata, which stops a corrupt length from
// allocating gigabytes.
inline constexpr uint64_t kMaxApplicationExecutableBytes = 128ull * 1024 * 1024;

// The file's bytes: the header and the metadata, unchecked.
std::string EncodeApplicationExecutable(const ApplicationExecutableProto& exe);

// Parses a file's bytes; `path` names it in errors. The checks of
// ReadApplicationExecutable, except that a file cannot be opened.
absl::StatusOr<ApplicationExecutableProto> ParseApplicationExecutable(absl::string_view bytes,
                                                                      const std::string& path);

// Checks `exe` (ValidateApplicationExecutable) and writes it to `path`,
// replacing the file atomically: a reader never sees half a file.
absl::Status WriteApplicationExecutable(const ApplicationExecutableProto& exe,
                                        const std::string& path);

// NotFound when `path` cannot be opened; InvalidArgument "Executable file
// 'P' is not a TensorFlow Poplar binary." (the vendor's words) for another
// magic; DataLoss for a truncated file or metadata that does not parse;
// InvalidArgument for a length over the bound or a config that
// ValidateApplicationExecutable refuses.
absl::StatusOr<ApplicationExecutableProto> ReadApplicationExecutable(const std::string& path);

// The config's invariants: at least one iteration; feed names and the run
// target set, the run target a node of the program; every tensor info with
// a name, a value dtype and a fully defined shape; input arguments a
// permutation of 0..n-1. `what` (the file) prefixes the message.
absl::Status ValidateApplicationExecutable(const ApplicationExecutableProto& exe,
                                           absl::string_view what);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_APPLICATION_EXECUTABLE_H_
