// The interface of the graph rewrites of `ipu_saved_model_cli convert ... ipu`.
//
//   std::unique_ptr<Converter> c = ...;   // see converter_pipeline.h
//   RETURN_IF_ERROR(c->Apply(&graph, &signature));
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERTER_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERTER_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"
#include "tensorflow_ipu/saved_model/proto/meta_graph.pb.h"

namespace tensorflow_ipu { namespace saved_model_cli {
// One graph rewrite of `convert ... ipu`, applied in the original's order
// (converter_pipeline.h). Apply rewrites the frozen serving graph and its
// signature in place; on error it leaves both unchanged.
class Converter {
 public:
  virtual ~Converter() = default;
  virtual absl::string_view name() const = 0;
  virtual absl::Status Apply(GraphDef* graph, SignatureDef* signature) = 0;
};
}}

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_CONVERTER_H_
