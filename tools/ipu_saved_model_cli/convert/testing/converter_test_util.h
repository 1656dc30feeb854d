// Helpers for the converters' tests: graphs in text format, signatures
// from tensor names, and reading attrs back.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_TESTING_CONVERTER_TEST_UTIL_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_TESTING_CONVERTER_TEST_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/saved_model/proto/meta_graph.pb.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace testing {

inline GraphDef Graph(const std::string& text) {
  absl::StatusOr<GraphDef> g = GraphDefFromText(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : GraphDef();
}

struct TensorSpec {
  std::string name;  // "x:0"
  DataType dtype = DT_FLOAT;
  std::vector<int64_t> shape;
};

inline SignatureDef Signature(const std::map<std::string, TensorSpec>& inputs,
                              const std::map<std::string, TensorSpec>& outputs) {
  SignatureDef s;
  s.set_method_name("tensorflow/serving/predict");
  auto fill = [](const TensorSpec& spec, TensorInfo* info) {
    info->set_name(spec.name);
    info->set_dtype(spec.dtype);
    for (int64_t d : spec.shape) info->mutable_tensor_shape()->add_dim()->set_size(d);
  };
  for (const auto& [k, spec] : inputs) fill(spec, &(*s.mutable_inputs())[k]);
  for (const auto& [k, spec] : outputs) fill(spec, &(*s.mutable_outputs())[k]);
  return s;
}

// Protos equal field by field (map order aside).
inline bool SameProto(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

inline const NodeDef* FindNode(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

inline std::vector<std::string> NodeNames(const GraphDef& g) {
  std::vector<std::string> names;
  for (const NodeDef& n : g.node()) names.push_back(n.name());
  return names;
}

inline std::vector<std::string> Inputs(const GraphDef& g, const std::string& name) {
  const NodeDef* n = FindNode(g, name);
  EXPECT_NE(n, nullptr) << name;
  if (n == nullptr) return {};
  return std::vector<std::string>(n->input().begin(), n->input().end());
}

}  // namespace testing
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_TESTING_CONVERTER_TEST_UTIL_H_
