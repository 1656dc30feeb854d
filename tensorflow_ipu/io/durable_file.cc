#include "tensorflow_ipu/io/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tensorflow_ipu {

absl::Status ErrnoError(int error, const std::string& what,
                        const std::string& path) {
  const std::string message =
      absl::StrCat(what, " '", path, "': ", std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<NewFile> NewFile::Create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(errno, "cannot create", path);
  return NewFile(path, fd);
}

NewFile::NewFile(NewFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      size_(other.size_),
      finished_(other.finished_) {
  other.fd_ = -1;
  other.finished_ = true;  // the moved-from object owns nothing to remove
}

NewFile::~NewFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!finished_) ::unlink(path_.c_str());
}

absl::Status NewFile::Append(absl::string_view data) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path_, "' is closed; it cannot be appended to"));
  }
  while (!data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "cannot write", path_);
    }
    data.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

absl::Status NewFile::Finish() {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path_, "' is already closed"));
  }
  const int fd = fd_;
  fd_ = -1;
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoError(error, "cannot flush to disk", path_);
  }
  // close can report a deferred write error (NFS): the data is not safe.
  if (::close(fd) != 0) return ErrnoError(errno, "cannot close", path_);
  finished_ = true;
  return absl::OkStatus();
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, "cannot open directory", dir);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync directories (EINVAL); their renames are
  // as durable as they get.
  if (rc != 0 && error != EINVAL) {
    return ErrnoError(error, "cannot flush directory", dir);
  }
  return absl::OkStatus();
}

absl::Status RenameDurably(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoError(errno, absl::StrCat("cannot rename '", from, "' to"), to);
  }
  return SyncDirectory(DirName(to));
}

std::string UniqueFileSuffix() {
  // getrandom-backed on Linux: distinct across processes and restarts,
  // unlike a pid or a clock.
  thread_local std::random_device device;
  const uint64_t bits = (static_cast<uint64_t>(device()) << 32) | device();
  return absl::StrFormat("%016x", bits);
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace tensorflow_ipu
