#include "tensorflow_ipu/train/checkpoint_management.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/io/checkpoint.h"
#include "tensorflow_ipu/io/durable_file.h"
#include "tensorflow_ipu/train/checkpoint_instances.h"

namespace tensorflow_ipu {
namespace train {
namespace {

namespace fs = std::filesystem;

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == ".") return name;
  return dir.back() == '/' ? dir + name : absl::StrCat(dir, "/", name);
}

bool IsAbsolute(const std::string& path) { return !path.empty() && path[0] == '/'; }

// `path` as the state file of `dir` records it: relative when it lies
// directly in `dir`, as written, otherwise.
std::string RelativeToDir(const std::string& dir, const std::string& path) {
  std::error_code ec;
  const fs::path parent = fs::weakly_canonical(fs::path(DirName(path)), ec);
  if (ec) return path;
  const fs::path d = fs::weakly_canonical(fs::path(dir), ec);
  if (ec || parent != d) return path;
  return BaseName(path);
}

// The file's bytes; nullopt if it does not exist.
absl::StatusOr<std::optional<std::string>> ReadFileIfExists(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return ErrnoError(errno, "cannot open checkpoint state file", path);
  }
  std::string bytes;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return ErrnoError(error, "cannot read checkpoint state file", path);
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(bytes));
}

// Keeps the parser's first complaint, with its line and column.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat("line ", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

}  // namespace

absl::StatusOr<std::optional<CheckpointState>> get_checkpoint_state(
    const std::string& checkpoint_dir, const std::string& latest_filename) {
  const std::string path = JoinPath(checkpoint_dir, latest_filename);
  ASSIGN_OR_RETURN(std::optional<std::string> text, ReadFileIfExists(path));
  if (!text.has_value()) return std::optional<CheckpointState>();
  CheckpointState state;
  FirstError errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(*text, &state)) {
    return absl::DataLossError(absl::StrCat(
        "Checkpoint state file '", path, "' is not a CheckpointState (",
        errors.error(), "); the checkpoints beside it are untouched: repair "
        "the file or delete it (restoring from a checkpoint prefix directly)"));
  }
  auto absolute = [&](std::string* p) {
    if (!p->empty() && !IsAbsolute(*p)) *p = JoinPath(checkpoint_dir, *p);
  };
  absolute(state.mutable_model_checkpoint_path());
  for (std::string& p : *state.mutable_all_model_checkpoint_paths()) absolute(&p);
  return std::optional<CheckpointState>(std::move(state));
}

absl::Status update_checkpoint_state(const std::string& save_dir,
                                     const std::string& model_checkpoint_path,
                                     std::vector<std::string> all_model_checkpoint_paths,
                                     std::vector<double> all_model_checkpoint_timestamps,
                                     const std::string& latest_filename) {
  const std::string path = JoinPath(save_dir, latest_filename);
  if (RelativeToDir(save_dir, model_checkpoint_path) == latest_filename) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Save path '", model_checkpoint_path, "' conflicts with path used for "
        "checkpoint state. Please use a different save path."));
  }
  if (!all_model_checkpoint_timestamps.empty() &&
      all_model_checkpoint_timestamps.size() != all_model_checkpoint_paths.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Checkpoint timestamps, if provided, must match checkpoint paths (got ",
        all_model_checkpoint_paths.size(), " paths [",
        absl::StrJoin(all_model_checkpoint_paths, ", "), "] and ",
        all_model_checkpoint_timestamps.size(), " timestamps)"));
  }
  if (all_model_checkpoint_paths.empty() ||
      all_model_checkpoint_paths.back() != model_checkpoint_path) {
    all_model_checkpoint_paths.push_back(model_checkpoint_path);
  }
  CheckpointState state;
  state.set_model_checkpoint_path(RelativeToDir(save_dir, model_checkpoint_path));
  for (const std::string& p : all_model_checkpoint_paths) {
    state.add_all_model_checkpoint_paths(RelativeToDir(save_dir, p));
  }
  for (double t : all_model_checkpoint_timestamps) state.add_all_model_checkpoint_timestamps(t);
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);

  ASSIGN_OR_RETURN(NewFile file,
                   NewFile::Create(absl::StrCat(path, ".tmp-", UniqueFileSuffix())));
  RETURN_IF_ERROR(file.Append(text));
  RETURN_IF_ERROR(file.Finish());
  return RenameDurably(file.path(), path);
}

namespace {

absl::StatusOr<std::optional<std::string>> LatestCheckpointHere(
    const std::string& checkpoint_dir, const std::string& latest_filename) {
  ASSIGN_OR_RETURN(std::optional<CheckpointState> state,
                   get_checkpoint_state(checkpoint_dir, latest_filename));
  if (!state.has_value() || state->model_checkpoint_path().empty()) {
    return std::optional<std::string>();
  }
  const std::string& prefix = state->model_checkpoint_path();
  if (!checkpoint_exists(prefix)) {
    return absl::NotFoundError(absl::StrCat(
        "Couldn't match files for checkpoint ", prefix, ", the latest one named by '",
        JoinPath(checkpoint_dir, latest_filename), "': its index file '",
        CheckpointIndexPath(prefix), "' is missing. Put the checkpoint's files "
        "back, or delete the state file to start without it"));
  }
  return std::optional<std::string>(prefix);
}

}  // namespace

absl::StatusOr<std::optional<std::string>> latest_checkpoint(
    const std::string& checkpoint_dir, const std::string& latest_filename) {
  // In a job of several instances, instance 0's files decide for everyone
  // (checkpoint_instances.h): the others restore what it restores, even
  // where they cannot see its files.
  std::shared_ptr<CheckpointInstances> instances = GetCheckpointInstances();
  if (instances == nullptr) return LatestCheckpointHere(checkpoint_dir, latest_filename);
  absl::StatusOr<std::optional<std::string>> latest = std::optional<std::string>();
  if (instances->instance_index() == 0) {
    latest = LatestCheckpointHere(checkpoint_dir, latest_filename);
  }
  // The same on every instance (each may name its own directory): the
  // instances' collectives compare their descriptions.
  const std::string what = "the latest checkpoint of a directory";
  RETURN_IF_ERROR(ShareOutcomeOfFirst(*instances, latest.status(), what));
  return ShareStringOfFirst(*instances, *latest, what);
}

bool checkpoint_exists(const std::string& prefix) {
  std::error_code ec;
  return fs::is_regular_file(CheckpointIndexPath(prefix), ec);
}

absl::Status remove_checkpoint(const std::string& prefix) {
  const std::string dir = DirName(prefix);
  const std::string base = BaseName(prefix);
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return absl::OkStatus();
    return ErrnoError(ec.value(), "cannot list checkpoint directory", dir);
  }
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    // "<base>.index", "<base>.index.tmp-<hex>", "<base>.data-<hex>": never
    // "<base>0.index", a checkpoint whose prefix merely starts the same.
    if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 ||
        name[base.size()] != '.') {
      continue;
    }
    const absl::string_view rest = absl::string_view(name).substr(base.size() + 1);
    if (rest.substr(0, 5) != "index" && rest.substr(0, 5) != "data-") continue;
    if (::unlink(entry.path().c_str()) != 0 && errno != ENOENT) {
      return ErrnoError(errno, "cannot remove checkpoint file", entry.path().string());
    }
  }
  return absl::OkStatus();
}

}  // namespace train
}  // namespace tensorflow_ipu
