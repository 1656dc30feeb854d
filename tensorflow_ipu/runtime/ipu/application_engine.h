// ApplicationEngine: a started application executable, serving calls (the
// embedded application runtime behind ApplicationRuntime/ApplicationCall).
//
//   ASSIGN_OR_RETURN(std::shared_ptr<ApplicationEngine> engine,
//                    ApplicationEngine::Start(exe, file, "engine", 5000, {}));
//   ASSIGN_OR_RETURN(std::vector<Tensor> out, engine->Call({x}, deadline));
//
// The program is a loop of `iterations` over an infeed, sending results to
// an outfeed. One runner thread serves the calls: it takes the first call
// waiting, then waits up to `timeout_us` for each next one until it has
// `iterations` of them; if the wait runs out it pads the batch with the
// last call's inputs (the padded results are dropped). It then runs the
// loop once on the simulated IPUs, with the batch as the infeed's data, and
// hands each call its row of the outfeed. So concurrent callers share one
// device run (one host round trip for `iterations` calls), and a lone
// caller waits at most `timeout_us` for company, as on the vendor's runtime.
//
// The engine runs its program in a session of its own (the device program
// is compiled on the first run and cached), with feed names no other
// engine or program uses, so engines of the same file in two sessions do
// not share data.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_APPLICATION_ENGINE_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_APPLICATION_ENGINE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tensorflow_ipu/core/resource_mgr.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.pb.h"
#include "tensorflow_ipu/runtime/session.h"

namespace tensorflow_ipu {

class ApplicationEngine : public ResourceBase {
 public:
  // Starts engine `name` for `exe` (read from `filename`). `inputs` are the
  // program's non-streamed inputs, checked against the signature (count,
  // dtype, shape; InvalidArgument in the vendor's words). `timeout_us` must
  // be positive.
  static absl::StatusOr<std::shared_ptr<ApplicationEngine>> Start(
      ApplicationExecutableProto exe, std::string filename, std::string name,
      int64_t timeout_us, std::vector<Tensor> inputs);

  // Stops the runner (after the batch it is running); calls still queued
  // get Cancelled naming the engine. The session's resources own the engine,
  // so this happens when the session is destroyed.
  ~ApplicationEngine() override;

  // One element in, its results out; blocks until the batch holding it ran.
  // InvalidArgument (the vendor's words) for a wrong count, dtype or shape;
  // DeadlineExceeded if `deadline` passes first; the program's error, for
  // every call of its batch, if the run fails (the engine keeps serving).
  absl::StatusOr<std::vector<Tensor>> Call(std::vector<Tensor> inputs, absl::Time deadline);

  const std::string& name() const { return name_; }
  const std::string& filename() const { return filename_; }
  const EmbeddedRuntimeConfig& config() const { return exe_.embedded_runtime_config(); }
  // Runs of the program so far, and the calls they served (padding aside).
  int64_t runs() const;
  int64_t calls_served() const;

 private:
  struct PendingCall;

  ApplicationEngine() = default;
  void ServeCalls();
  // Runs the loop once for `batch`; on success each call's result is set.
  absl::Status RunBatch(const std::vector<std::shared_ptr<PendingCall>>& batch);

  ApplicationExecutableProto exe_;
  std::string filename_;
  std::string name_;
  absl::Duration timeout_;
  std::string infeed_name_;   // unique to this engine
  std::string outfeed_name_;  // unique to this engine
  std::vector<std::pair<std::string, Tensor>> feeds_;  // the start inputs
  std::unique_ptr<Session> session_;
  std::thread runner_;

  mutable absl::Mutex mu_;
  std::deque<std::shared_ptr<PendingCall>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t runs_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t calls_served_ ABSL_GUARDED_BY(mu_) = 0;
};

// The vendor's check of call (and start) inputs against a signature:
// InvalidArgument "Mismatched input shape at position i ('name'). Expected
// [..], but input i has shape [..]." and the same for dtypes; a wrong count
// says how many were expected. `what` names the API ("Embedded application
// call").
absl::Status CheckApplicationInputs(
    const google::protobuf::RepeatedPtrField<ApplicationTensorInfo>& expected,
    const std::vector<Tensor>& inputs, absl::string_view what);

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_APPLICATION_ENGINE_H_
