#include "tensorflow_ipu/train/checkpoint_instances.h"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace train {
namespace {

struct Installed {
  absl::Mutex mu;
  std::shared_ptr<CheckpointInstances> instances ABSL_GUARDED_BY(mu);
};

Installed& TheInstalled() {
  static Installed* installed = new Installed;  // never destroyed: used at exit
  return *installed;
}

// A header of fixed size, then `payload` bytes: two broadcasts, since the
// others learn the payload's size from the first.
struct Header {
  int32_t tag = 0;  // a status code, or whether a string is present
  uint64_t size = 0;
};

absl::StatusOr<std::string> ShareBytes(CheckpointInstances& instances, Header* header,
                                       const std::string& payload, const std::string& what) {
  char head[sizeof(int32_t) + sizeof(uint64_t)];
  std::memcpy(head, &header->tag, sizeof(int32_t));
  std::memcpy(head + sizeof(int32_t), &header->size, sizeof(uint64_t));
  RETURN_IF_ERROR(instances.BroadcastFromFirst(absl::MakeSpan(head, sizeof(head)), what));
  std::memcpy(&header->tag, head, sizeof(int32_t));
  std::memcpy(&header->size, head + sizeof(int32_t), sizeof(uint64_t));
  if (header->size == 0) return std::string();
  std::string bytes = instances.instance_index() == 0 ? payload : std::string(header->size, '\0');
  RETURN_IF_ERROR(instances.BroadcastFromFirst(absl::MakeSpan(bytes.data(), bytes.size()), what));
  return bytes;
}

}  // namespace

void SetCheckpointInstances(std::shared_ptr<CheckpointInstances> instances) {
  Installed& installed = TheInstalled();
  absl::MutexLock lock(&installed.mu);
  installed.instances = std::move(instances);
}

std::shared_ptr<CheckpointInstances> GetCheckpointInstances() {
  Installed& installed = TheInstalled();
  absl::MutexLock lock(&installed.mu);
  if (installed.instances == nullptr || installed.instances->num_instances() <= 1) return nullptr;
  return installed.instances;
}

absl::Status ShareOutcomeOfFirst(CheckpointInstances& instances, const absl::Status& outcome,
                                 const std::string& what) {
  // Messages are short; a runaway one is cut rather than sent whole.
  constexpr size_t kMaxMessage = 1 << 16;
  const std::string message(outcome.message().substr(0, kMaxMessage));
  Header header;
  header.tag = static_cast<int32_t>(outcome.code());
  header.size = outcome.ok() ? 0 : message.size();
  ASSIGN_OR_RETURN(std::string shared, ShareBytes(instances, &header, message, what));
  if (instances.instance_index() == 0) return outcome;
  if (header.tag == 0) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(header.tag),
                      absl::StrCat("instance 0 (which reads and writes the job's checkpoints): ",
                                   shared));
}

absl::StatusOr<std::optional<std::string>> ShareStringOfFirst(
    CheckpointInstances& instances, const std::optional<std::string>& value,
    const std::string& what) {
  Header header;
  header.tag = value.has_value() ? 1 : 0;
  header.size = value.has_value() ? value->size() : 0;
  ASSIGN_OR_RETURN(std::string shared,
                   ShareBytes(instances, &header, value.value_or(""), what));
  if (header.tag == 0) return std::optional<std::string>();
  return std::optional<std::string>(std::move(shared));
}

}  // namespace train
}  // namespace tensorflow_ipu
