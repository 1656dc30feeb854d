// `ipu_saved_model_cli scan`: reports whether a SavedModel's graphs use
// ops that read or write files or print (TensorFlow 1.15's blacklist:
// WriteFile, ReadFile, PrintV2), as TensorFlow's saved_model_cli scan
// does:
//
//   scan --dir D                 every MetaGraphDef
//   scan --dir D --tag_set serve one
//
//   MetaGraph with tag set ['serve'] does not contain blacklisted ops.
//   MetaGraph with tag set ['serve'] contains the following blacklisted ops: {'ReadFile'}
//
// The project's functions (GraphDef field 64) are scanned with the graph.
// A graph that also holds TensorFlow's own function library (field 2),
// which this project's reader does not decode, is reported as such instead
// of being called clean (FailedPrecondition naming the tag set).
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_SCAN_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_SCAN_H_

#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct ScanOptions {
  std::string dir;
  std::optional<std::string> tag_set;
};

// Prints one line per MetaGraphDef scanned to `out`; nothing on error.
absl::Status Scan(const ScanOptions& options, std::ostream& out);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_SCAN_H_
