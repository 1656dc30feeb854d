// Durable files: the POSIX steps that make a write survive a crash, for
// formats (checkpoints) that commit by renaming a finished file into place.
//
//   ASSIGN_OR_RETURN(NewFile f, NewFile::Create(dir + "/x.tmp-" + UniqueFileSuffix()));
//   RETURN_IF_ERROR(f.Append(bytes));
//   RETURN_IF_ERROR(f.Finish());                       // fsync + close
//   RETURN_IF_ERROR(RenameDurably(f.path(), dir + "/x"));  // the commit point
//
// A file's data is on disk only after fsync, and a rename or a new name in
// a directory only after the directory is fsynced: without both, a crash
// can leave a committed name pointing at a file with holes.
#ifndef TENSORFLOW_IPU_IO_DURABLE_FILE_H_
#define TENSORFLOW_IPU_IO_DURABLE_FILE_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensorflow_ipu {

// A file this process creates and fills. Create refuses an existing name
// (O_EXCL), so two writers never share a file. A NewFile destroyed before
// Finish succeeded removes its file: a failed write leaves nothing behind
// (a crash still can; readers ignore such strays).
class NewFile {
 public:
  // NotFound if the directory does not exist, AlreadyExists if `path` does,
  // PermissionDenied if it may not be written; each names the path.
  static absl::StatusOr<NewFile> Create(const std::string& path);

  NewFile(NewFile&& other) noexcept;
  NewFile& operator=(NewFile&& other) = delete;
  NewFile(const NewFile&) = delete;
  ~NewFile();

  absl::Status Append(absl::string_view data);
  // Flushes the data to disk (fsync) and closes the file.
  absl::Status Finish();

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

 private:
  NewFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  bool finished_ = false;
};

// Flushes `dir`'s entries (new names, renames, removals) to disk.
absl::Status SyncDirectory(const std::string& dir);

// Renames `from` to `to` (replacing it atomically) and syncs the directory
// of `to`, so that after a crash `to` is either the old file or the new one.
absl::Status RenameDurably(const std::string& from, const std::string& to);

// 16 random lowercase hex digits, for names no other writer picks.
std::string UniqueFileSuffix();

// The directory part of `path` ("." when it has none) and the rest.
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);

// An error for a failed system call on `path`, with the code errno implies
// (ENOENT: NotFound, EACCES: PermissionDenied, ENOSPC: ResourceExhausted,
// ...) and strerror's words: "<what> '<path>': <strerror>".
absl::Status ErrnoError(int error, const std::string& what,
                        const std::string& path);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IO_DURABLE_FILE_H_
