// Session: runs a graph. The classic string-named API of TensorFlow 1.
//
//   std::unique_ptr<Session> session = NewSession(SessionOptions());
//   RETURN_IF_ERROR(session->Create(graph_def));
//   std::vector<Tensor> out;
//   RETURN_IF_ERROR(session->Run({{"a:0", a}, {"b:0", b}}, {"add:0"}, {}, &out));
//
// Run prunes the graph to what the fetches and targets need, validates the
// feeds, and executes; the prepared plan is cached per (feeds, fetches,
// targets) so repeated calls do no re-analysis. Run may be called from many
// threads at once. A Run given RunOptions and a RunMetadata reports back
// what it did: step stats when traced, and what its IPU clusters cost on the
// simulated devices.
//
// Close may be called while other threads are inside Run: those steps
// complete (their plans stay alive until they return), and every later call
// is FailedPrecondition.
#ifndef TENSORFLOW_IPU_RUNTIME_SESSION_H_
#define TENSORFLOW_IPU_RUNTIME_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tensorflow_ipu/core/proto/graph.pb.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/run_metadata.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {

struct SessionOptions {
  // Threads for running independent nodes and for Eigen's intra-op work;
  // 0 means one per core of the machine.
  int num_threads = 0;
};

class Session {
 public:
  virtual ~Session() = default;

  // Sets the graph. Fails if the session already has one (use Extend) or if
  // the GraphDef is invalid; the error names the offending node.
  virtual absl::Status Create(const GraphDef& graph) = 0;
  // Adds nodes to the graph; on error the graph is unchanged.
  virtual absl::Status Extend(const GraphDef& graph) = 0;

  // Feeds `inputs` ("node:k" -> value), runs what `output_names` ("node:k"
  // or "node" for output 0) and `target_names` (node names) need, and
  // returns the fetched values in order.
  virtual absl::Status Run(
      const std::vector<std::pair<std::string, Tensor>>& inputs,
      const std::vector<std::string>& output_names,
      const std::vector<std::string>& target_names,
      std::vector<Tensor>* outputs) = 0;
  // The same, with options, filling `run_metadata` (nullptr: not wanted).
  virtual absl::Status Run(
      const RunOptions& run_options,
      const std::vector<std::pair<std::string, Tensor>>& inputs,
      const std::vector<std::string>& output_names,
      const std::vector<std::string>& target_names,
      std::vector<Tensor>* outputs, RunMetadata* run_metadata) = 0;

  // The session's resources (its variables and other state), for what
  // works on a session's state from outside its graph, such as
  // train::Saver; as TensorFlow's Session::LocalDeviceManager gives access
  // to its devices' resource managers. The manager lives as long as the
  // session.
  virtual absl::Status LocalResourceManager(ResourceManager** resources) = 0;

  // Releases the graph and cached plans; later calls are FailedPrecondition.
  virtual absl::Status Close() = 0;
};

std::unique_ptr<Session> NewSession(const SessionOptions& options = {});

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_SESSION_H_
