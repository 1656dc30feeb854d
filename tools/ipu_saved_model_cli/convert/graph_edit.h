// Small helpers the converters share for reading and editing a GraphDef:
// input strings ("n", "n:1", "^n"), the IPU placement attrs, and the dtype
// an op's input expects or its output carries, from the op registry.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_GRAPH_EDIT_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_GRAPH_EDIT_H_

#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message_lite.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// The device the converter places IPU nodes on.
inline constexpr char kIpuDevice[] = "/device:IPU:0";

// One input of a node: "n" (output 0), "n:k", or "^n" (a control edge).
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};
InputRef ParseInput(absl::string_view input);
// The input string of output `index` of `node`: "n" for 0, "n:k" otherwise.
std::string InputString(absl::string_view node, int index);
// The tensor name "n:k" (as signatures name tensors).
std::string TensorName(absl::string_view node, int index);

// True when the node's device names an IPU.
bool OnIpu(const NodeDef& node);

// Puts `node` on kIpuDevice with the XLA attrs the vendor's converter sets
// (_XlaCompile, _XlaScope "jit_scope_ipu_0", _XlaSeparateCompiledGradients),
// which TensorFlow's IPU build reads; this project reads the device.
void PlaceOnIpu(NodeDef* node);

// The dtype input `index` of `node` expects, or output `index` carries,
// as its op's registered signature and the node's attrs say; nullopt for
// an unregistered op or an index it does not have.
std::optional<DataType> InputDataType(const NodeDef& node, int index);
std::optional<DataType> OutputDataType(const NodeDef& node, int index);

// The message's bytes with map entries (attrs, signatures) in key order, so
// that equal messages give equal bytes (and equal MD5s) in any process.
// Empty if it does not serialize.
std::string DeterministicBytes(const google::protobuf::MessageLite& message);

// Nodes by name; pointers into `graph`, valid until it changes size.
std::map<std::string, NodeDef*> NodesByName(GraphDef* graph);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_GRAPH_EDIT_H_
