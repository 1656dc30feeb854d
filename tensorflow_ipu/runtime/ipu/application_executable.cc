#include "tensorflow_ipu/runtime/ipu/application_executable.h"

#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"
#include "tensorflow_ipu/io/durable_file.h"

namespace tensorflow_ipu {
namespace {

absl::Status CheckTensorInfos(
    const google::protobuf::RepeatedPtrField<ApplicationTensorInfo>& infos,
    absl::string_view kind, absl::string_view what) {
  for (int i = 0; i < infos.size(); ++i) {
    const ApplicationTensorInfo& info = infos[i];
    const std::string where = absl::StrCat(what, ": ", kind, " ", i, " ('", info.name(), "')");
    if (info.name().empty()) return absl::InvalidArgumentError(absl::StrCat(where, " has no name"));
    if (info.dtype() == DT_INVALID || info.dtype() == DT_RESOURCE ||
        !DataType_IsValid(info.dtype())) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has dtype ", static_cast<int>(info.dtype()),
                       ", which is not a value type"));
    }
    absl::StatusOr<TensorShape> shape = TensorShape::FromProto(info.shape());
    if (!shape.ok() || !shape->IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " has shape ",
          shape.ok() ? shape->DebugString() : std::string(shape.status().message()),
          "; every tensor of an application has a fully defined shape"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateApplicationExecutable(const ApplicationExecutableProto& exe,
                                           absl::string_view what) {
  const EmbeddedRuntimeConfig& config = exe.embedded_runtime_config();
  if (config.iterations() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the application runs its loop ", config.iterations(),
        " times per run; it needs at least 1 iteration"));
  }
  if (config.num_ipus() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the application is compiled for ", config.num_ipus(),
                     " IPUs; it needs at least 1"));
  }
  if (config.infeed_name().empty() || config.outfeed_name().empty() ||
      config.run_target().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the application names no infeed, outfeed or run target; write it with "
              "ipu::application_compile_op"));
  }
  bool found = false;
  for (const NodeDef& n : exe.program().node()) found |= n.name() == config.run_target();
  if (!found) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the run target '", config.run_target(), "' is not a node of the program"));
  }
  const ApplicationSignature& sig = config.signature();
  RETURN_IF_ERROR(CheckTensorInfos(sig.inputs(), "input", what));
  RETURN_IF_ERROR(CheckTensorInfos(sig.streamed_inputs(), "streamed input", what));
  RETURN_IF_ERROR(CheckTensorInfos(sig.streamed_outputs(), "streamed output", what));
  if (sig.streamed_outputs().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the application has no streamed output, so a call has no result"));
  }
  std::set<int> arguments;
  for (const ApplicationTensorInfo& info : sig.inputs()) {
    if (info.argument() < 0 || info.argument() >= sig.inputs_size() ||
        !arguments.insert(info.argument()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": input '", info.name(), "' has argument ", info.argument(),
          "; the arguments of ", sig.inputs_size(), " inputs are 0 to ", sig.inputs_size() - 1,
          ", each once"));
    }
  }
  return absl::OkStatus();
}

std::string EncodeApplicationExecutable(const ApplicationExecutableProto& exe) {
  const std::string metadata = exe.SerializeAsString();
  std::string bytes(kApplicationExecutableMagic);
  const uint64_t length = metadata.size();
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return bytes + metadata;
}

absl::Status WriteApplicationExecutable(const ApplicationExecutableProto& exe,
                                        const std::string& path) {
  RETURN_IF_ERROR(ValidateApplicationExecutable(exe, path));
  if (exe.ByteSizeLong() >= kMaxApplicationExecutableBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "application executable '", path, "': its program serializes to ", exe.ByteSizeLong(),
        " bytes, over the format's bound of ", kMaxApplicationExecutableBytes));
  }
  ASSIGN_OR_RETURN(NewFile file, NewFile::Create(absl::StrCat(path, ".tmp-", UniqueFileSuffix())));
  RETURN_IF_ERROR(file.Append(EncodeApplicationExecutable(exe)));
  RETURN_IF_ERROR(file.Finish());
  return RenameDurably(file.path(), path);
}

absl::StatusOr<ApplicationExecutableProto> ParseApplicationExecutable(absl::string_view bytes,
                                                                      const std::string& path) {
  if (bytes.size() < 8 || bytes.substr(0, 8) != kApplicationExecutableMagic) {
    return absl::InvalidArgumentError(
        absl::StrCat("Executable file '", path, "' is not a TensorFlow Poplar binary."));
  }
  if (bytes.size() < 16) {
    return absl::DataLossError(absl::StrCat("Executable file '", path, "' is truncated: ",
                                            bytes.size(), " bytes, shorter than its 16-byte header"));
  }
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i) {
    length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  }
  if (length >= kMaxApplicationExecutableBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Executable file '", path, "' declares ", length, " bytes of metadata, over the bound of ",
        kMaxApplicationExecutableBytes, "; the file is damaged"));
  }
  const absl::string_view metadata = bytes.substr(16);
  if (metadata.size() < length) {
    return absl::DataLossError(absl::StrCat("Executable file '", path, "' is truncated: ",
                                            metadata.size(), " of its ", length,
                                            " bytes of metadata are there"));
  }
  ApplicationExecutableProto exe;
  if (!exe.ParseFromArray(metadata.data(), static_cast<int>(length))) {
    return absl::DataLossError(absl::StrCat("Executable file '", path,
                                            "': its metadata does not parse; the file is damaged"));
  }
  RETURN_IF_ERROR(ValidateApplicationExecutable(exe, absl::StrCat("Executable file '", path, "'")));
  return exe;
}

absl::StatusOr<ApplicationExecutableProto> ReadApplicationExecutable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("Executable file '", path,
                                            "' cannot be opened; check the path"));
  }
  // The header first: the metadata's length is checked before anything of
  // that size is allocated.
  std::string bytes(16, '\0');
  in.read(bytes.data(), 16);
  bytes.resize(static_cast<size_t>(in.gcount()));
  uint64_t length = 0;
  for (size_t i = 8; i < bytes.size(); ++i) {
    length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * (i - 8));
  }
  if (bytes.size() == 16 && length < kMaxApplicationExecutableBytes) {
    bytes.resize(16 + length);
    in.read(bytes.data() + 16, static_cast<std::streamsize>(length));
    bytes.resize(16 + static_cast<size_t>(in.gcount()));
  }
  return ParseApplicationExecutable(bytes, path);
}

}  // namespace tensorflow_ipu
