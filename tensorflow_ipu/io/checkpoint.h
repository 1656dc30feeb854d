// Checkpoints: named tensors saved to disk under a prefix and read back,
// with corruption reported (naming the tensor) rather than loaded, and with
// saves that a crash cannot turn into a checkpoint that loads wrong.
//
//   RETURN_IF_ERROR(WriteCheckpoint("/tmp/model.ckpt", {{"w", w}, {"b", b}}));
//   ASSIGN_OR_RETURN(NamedTensors tensors, ReadCheckpoint("/tmp/model.ckpt"));
//
// Files, for the prefix "dir/model.ckpt":
//   dir/model.ckpt.index                 the commit point: names the data
//                                        file and holds, per tensor, its
//                                        dtype, shape, offset, length and
//                                        CRC-32C
//   dir/model.ckpt.data-<16 hex digits>  the tensors' bytes, back to back
//                                        in the index's order (little-endian,
//                                        as the host holds them)
// The index is the 8-byte magic "TFIPUIX1", the payload length (8 bytes,
// little-endian), the payload (a serialised CheckpointIndexProto) and the
// CRC-32C of the payload (4 bytes). Every byte of both files is covered by a
// checksum, so any damage is a DataLoss error; damage to the data names the
// tensor it hit.
//
// Saving: the data file is written under a fresh name and fsynced, then the
// index is written to "<prefix>.index.tmp-<hex>", fsynced and renamed over
// "<prefix>.index" (the commit), and only then are the previous data file
// and strays of interrupted saves removed. A crash before the rename leaves
// the old checkpoint loadable (the new files are strays that the next save
// removes); after it, the new one. One prefix has one writer at a time;
// readers may read while it saves.
#ifndef TENSORFLOW_IPU_IO_CHECKPOINT_H_
#define TENSORFLOW_IPU_IO_CHECKPOINT_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {

using NamedTensors = std::map<std::string, Tensor>;

// The index file of the checkpoint at `prefix`: "<prefix>.index".
std::string CheckpointIndexPath(const std::string& prefix);

// Saves `tensors` as the checkpoint `prefix`, replacing any checkpoint
// there. InvalidArgument for a tensor without a value; NotFound if the
// prefix's directory does not exist; PermissionDenied if it may not be
// written; each names the path. On error the previous checkpoint is intact.
absl::Status WriteCheckpoint(const std::string& prefix,
                             const NamedTensors& tensors);

// NotFound naming the index if there is no checkpoint at `prefix`.
// DataLoss ("Checkpoint '<prefix>' is corrupt: ...") if the index is
// truncated, not an index or fails its checksum, if the data file is
// missing or of another size than the index says (naming the first tensor
// cut off when it is short), or if a tensor fails its checksum (naming the
// tensor). Sizes are checked against the files before anything is
// allocated, so a damaged index never makes the reader allocate more than
// the data file holds.
absl::StatusOr<NamedTensors> ReadCheckpoint(const std::string& prefix);

// Checks that the checkpoint holds `name` with `dtype` and `shape`, and
// returns it: NotFound (listing what the checkpoint has) or InvalidArgument
// (saying both shapes or dtypes) otherwise.
absl::StatusOr<Tensor> LookupCheckpointTensor(const NamedTensors& checkpoint,
                                              const std::string& prefix,
                                              const std::string& name,
                                              DataType dtype,
                                              const TensorShape& shape);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IO_CHECKPOINT_H_
