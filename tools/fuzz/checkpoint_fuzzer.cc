// Fuzz target: the checkpoint reader (tensorflow_ipu/io/checkpoint.h): an
// index file and a data file at the prefix "<scratch dir>/ckpt".
//
// Input: a mode byte, a 2-byte little-endian length L, L bytes for the
// index, and the rest for the data file "ckpt.data-0000000000000000".
//   mode % 3 == 0: the index bytes are the index file, as they are;
//   mode % 3 == 1: they are the index's payload (a CheckpointIndexProto),
//                  framed here with a valid header and checksum and with
//                  its data file set to the one written, so mutations
//                  reach the entries' validation;
//   mode % 3 == 2: as 1, and each entry's CRC-32C is made to match the data
//                  bytes it covers, so mutations reach the tensors' decoding.
// A checkpoint that reads must round-trip: written back and read again, it
// holds the same tensors, bit for bit.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "tensorflow_ipu/io/checkpoint.h"
#include "tensorflow_ipu/io/checkpoint.pb.h"
#include "tensorflow_ipu/io/crc32c.h"

namespace {

constexpr char kDataFile[] = "ckpt.data-0000000000000000";

void AppendLittleEndian(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

std::string FrameIndex(const std::string& payload) {
  std::string file = "TFIPUIX1";
  AppendLittleEndian(payload.size(), 8, &file);
  file += payload;
  AppendLittleEndian(tensorflow_ipu::crc32c::Value(payload), 4, &file);
  return file;
}

void WriteFile(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

const std::string& ScratchDir() {
  static const std::string* dir = [] {
    auto* d = new std::string(absl::StrCat("/tmp/tfipu_ckpt_fuzz_", getpid()));
    std::filesystem::create_directories(*d);
    return d;
  }();
  return *dir;
}

// The index payload with its data file fixed and, if `fix_crcs`, every
// entry's checksum computed from `data`; the payload as given if it does
// not parse.
std::string FixPayload(const std::string& payload, absl::string_view data,
                       bool fix_crcs) {
  tensorflow_ipu::CheckpointIndexProto proto;
  if (!proto.ParseFromString(payload)) return payload;
  proto.set_data_file(kDataFile);
  if (fix_crcs) {
    for (auto& e : *proto.mutable_entry()) {
      if (e.offset() <= data.size() && e.length() <= data.size() - e.offset()) {
        e.set_crc32c(
            tensorflow_ipu::crc32c::Value(data.substr(e.offset(), e.length())));
      }
    }
  }
  return proto.SerializeAsString();
}

}  // namespace

// Protobuf logs every string field with invalid UTF-8 it refuses; at
// thousands of inputs a second that is noise (the refusal is the answer).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const int mode = data[0] % 3;
  const size_t index_size = std::min<size_t>(data[1] | (data[2] << 8), size - 3);
  const std::string index(reinterpret_cast<const char*>(data) + 3, index_size);
  const absl::string_view file_data(
      reinterpret_cast<const char*>(data) + 3 + index_size, size - 3 - index_size);

  const std::string prefix = ScratchDir() + "/ckpt";
  WriteFile(tensorflow_ipu::CheckpointIndexPath(prefix),
            mode == 0 ? index : FrameIndex(FixPayload(index, file_data, mode == 2)));
  WriteFile(ScratchDir() + "/" + kDataFile, file_data);
  absl::StatusOr<tensorflow_ipu::NamedTensors> read =
      tensorflow_ipu::ReadCheckpoint(prefix);
  // TFIPU_FUZZ_VERBOSE=1 says what each input gave (to check the seeds).
  static const bool verbose = std::getenv("TFIPU_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "  checkpoint_fuzz: %s\n",
                 read.ok() ? absl::StrCat(read->size(), " tensor(s)").c_str()
                           : std::string(read.status().message()).c_str());
  }
  if (!read.ok()) return 0;

  const std::string again = ScratchDir() + "/again";
  if (!tensorflow_ipu::WriteCheckpoint(again, *read).ok()) std::abort();
  absl::StatusOr<tensorflow_ipu::NamedTensors> back =
      tensorflow_ipu::ReadCheckpoint(again);
  if (!back.ok() || back->size() != read->size()) std::abort();
  for (const auto& [name, tensor] : *read) {
    auto it = back->find(name);
    if (it == back->end() || !it->second.BitwiseEquals(tensor)) std::abort();
  }
  return 0;
}
