#include "tools/fuzz/graph_def_fuzz_util.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"
#include "tensorflow_ipu/core/attr_value_util.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/runtime/session.h"

namespace tensorflow_ipu {
namespace fuzz {
namespace {

// Bounds of the harness, not of the library: graphs beyond them are only
// given to Create. A valid graph may legitimately ask for gigabytes (a
// Const of shape [1e9] filled from one value, as in TensorFlow); running
// such graphs would measure the machine, not find bugs.
constexpr int kMaxNodes = 64;
constexpr int64_t kMaxElementsPerTensor = int64_t{1} << 16;
constexpr int64_t kMaxElementsPerOutput = int64_t{1} << 20;
// The size given to each unknown dimension of a placeholder.
constexpr int64_t kUnknownDimSize = 2;

// TFIPU_FUZZ_VERBOSE=1 says how far each input got (to check that seeds
// reach Run): "created", "ran", or why the harness stopped.
void Trace(const std::string& what) {
  static const bool verbose = std::getenv("TFIPU_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "  graph_def_fuzz: %s\n", what.c_str());
}

bool SmallTensorAttr(const TensorProto& t) {
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(t.tensor_shape());
  return !shape.ok() || shape->num_elements() <= kMaxElementsPerTensor;
}

// False if any attr holds a large tensor or shape: Create would build it.
bool SmallAttrs(const NodeDef& node) {
  for (const auto& [name, value] : node.attr()) {
    if (value.has_tensor() && !SmallTensorAttr(value.tensor())) return false;
    if (value.has_list()) {
      for (const TensorProto& t : value.list().tensor()) {
        if (!SmallTensorAttr(t)) return false;
      }
    }
    if (value.has_shape()) {
      absl::StatusOr<TensorShape> shape = TensorShape::FromProto(value.shape());
      if (shape.ok() && shape->IsFullyDefined() &&
          shape->num_elements() > kMaxElementsPerTensor) {
        return false;
      }
    }
  }
  return true;
}

// Deterministic values: floats with zeros, negatives and repeats.
Tensor FeedValue(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  const int64_t n = t.NumElements();
  switch (dtype) {
    case DT_FLOAT:
      for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = (i % 5) - 2.f;
      break;
    case DT_DOUBLE:
      for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = (i % 5) - 2.0;
      break;
    case DT_HALF:
      for (int64_t i = 0; i < n; ++i) t.data<half>()[i] = half((i % 5) - 2.f);
      break;
    // Integers are often indices (labels, one-hot): small and non-negative.
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) t.data<int32_t>()[i] = i % 3;
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = i % 3;
      break;
    case DT_UINT8:
      for (int64_t i = 0; i < n; ++i) t.data<uint8_t>()[i] = i % 5;
      break;
    case DT_BOOL:
      for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = i % 2 == 0;
      break;
    default:
      break;
  }
  return t;
}

// The placeholder's feed shape: unknown rank is [2], unknown dims are 2.
TensorShape FeedShape(const NodeDef& node) {
  auto it = node.attr().find("shape");
  if (it == node.attr().end() || !it->second.has_shape()) {
    return TensorShape({kUnknownDimSize});
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(it->second.shape());
  if (!shape.ok() || shape->unknown_rank()) return TensorShape({kUnknownDimSize});
  TensorShape out = *shape;
  for (int d = 0; d < out.dims(); ++d) {
    if (out.dim_size(d) < 0) out.set_dim(d, kUnknownDimSize);
  }
  return out;
}

}  // namespace

void ConfigureIpuModelOnce() {
  static const bool configured = [] {
    // Protobuf logs every string field with invalid UTF-8 it refuses: noise
    // at thousands of inputs a second.
    google::protobuf::SetLogHandler(nullptr);
    setenv("TF_POPLAR_FLAGS", "--use_ipu_model --ipu_model_tiles=4", 1);
    ipu::config::IPUConfig cfg;
    cfg.auto_select_ipus = 1;
    if (!cfg.configure_ipu_system().ok()) std::abort();
    return true;
  }();
  (void)configured;
}

void CreateAndRun(const GraphDef& def) {
  if (def.node_size() > kMaxNodes) return;
  for (const NodeDef& node : def.node()) {
    if (!SmallAttrs(node)) return;
  }
  SessionOptions options;
  options.num_threads = 1;
  {
    std::unique_ptr<Session> session = NewSession(options);
    absl::Status created = session->Create(def);
    if (!created.ok()) return Trace(std::string(created.message()));
  }

  // Fix every placeholder's shape to the one it will be fed, so that shape
  // inference bounds every tensor the run can make.
  GraphDef concrete = def;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (NodeDef& node : *concrete.mutable_node()) {
    if (node.op() != "Placeholder") continue;
    auto dtype = node.attr().find("dtype");
    if (dtype == node.attr().end() || !IsValueType(dtype->second.type())) return;
    const TensorShape shape = FeedShape(node);
    if (!shape.IsFullyDefined() || shape.num_elements() > kMaxElementsPerTensor) {
      return;
    }
    (*node.mutable_attr())["shape"] = MakeAttrValue(shape);
    feeds.emplace_back(absl::StrCat(node.name(), ":0"),
                       FeedValue(dtype->second.type(), shape));
  }
  absl::StatusOr<std::unique_ptr<Graph>> graph = Graph::FromGraphDef(concrete);
  if (!graph.ok()) return;
  std::vector<std::string> fetches, targets;
  for (const std::unique_ptr<Node>& n : (*graph)->nodes()) {
    for (int k = 0; k < n->num_outputs(); ++k) {
      const TensorShape& s = n->output_shape(k);
      if (!s.IsFullyDefined() || s.num_elements() > kMaxElementsPerOutput) {
        return Trace(absl::StrCat("not run: ", n->name(), ":", k, " has shape ",
                                  s.DebugString()));
      }
    }
    // Sinks: fetch their first output, or run them as targets.
    if (!n->data_consumers().empty() || !n->control_consumers().empty()) continue;
    if (n->num_outputs() > 0) {
      fetches.push_back(absl::StrCat(n->name(), ":0"));
    } else {
      targets.push_back(n->name());
    }
  }
  std::unique_ptr<Session> session = NewSession(options);
  if (!session->Create(concrete).ok()) std::abort();  // accepted above
  std::vector<Tensor> out;
  // Twice: the second run takes the cached executors and engines.
  // A loop whose condition never changes is a legal program that never
  // ends: the timeout ends it, as it would a user's.
  RunOptions run_options;
  run_options.timeout_in_ms = 2000;
  for (int run = 0; run < 2; ++run) {
    absl::Status s = session->Run(run_options, feeds, fetches, targets, &out, nullptr);
    if (!s.ok()) return Trace(absl::StrCat("run failed: ", s.message()));
    if (out.size() != fetches.size()) std::abort();
  }
  Trace(absl::StrCat("ran ", fetches.size(), " fetch(es), ", targets.size(),
                     " target(s)"));
}

}  // namespace fuzz
}  // namespace tensorflow_ipu
