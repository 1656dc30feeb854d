#include "tensorflow_ipu/runtime/ipu/application_engine.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/core/tensor_copy.h"
#include "tensorflow_ipu/core/tensor_shape.h"
#include "tensorflow_ipu/core/types.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tensorflow_ipu/runtime/ipu_feeds.h"

namespace tensorflow_ipu {

struct ApplicationEngine::PendingCall {
  std::vector<Tensor> inputs;
  absl::Notification done;
  absl::StatusOr<std::vector<Tensor>> result;
};

namespace {

std::string ShapeList(const TensorShape& s) {
  return absl::StrCat("[", absl::StrJoin(s.dim_sizes(), ", "), "]");
}

TensorShape ShapeOf(const ApplicationTensorInfo& info) {
  absl::StatusOr<TensorShape> s = TensorShape::FromProto(info.shape());
  return s.ok() ? *s : TensorShape::Unknown();  // validated when read
}

// Feed names no other engine or program uses: an engine's file names its
// feeds, and two sessions may start engines of the same file.
std::string UniqueFeedName(absl::string_view engine, absl::string_view feed) {
  static std::atomic<int64_t> next{0};
  return absl::StrCat(engine, "/", feed, "/", next.fetch_add(1));
}

}  // namespace

absl::Status CheckApplicationInputs(
    const google::protobuf::RepeatedPtrField<ApplicationTensorInfo>& expected,
    const std::vector<Tensor>& inputs, absl::string_view what) {
  if (static_cast<int>(inputs.size()) != expected.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " expects ", expected.size(),
                                                   " inputs, but ", inputs.size(),
                                                   " were provided."));
  }
  for (int i = 0; i < expected.size(); ++i) {
    const TensorShape want = ShapeOf(expected[i]);
    if (inputs[i].shape() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Mismatched input shape at position ", i, " ('", expected[i].name(), "'). Expected ",
          ShapeList(want), ", but input ", i, " has shape ", ShapeList(inputs[i].shape()), "."));
    }
    if (inputs[i].dtype() != expected[i].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Mismatched input dtype at position ", i, " ('", expected[i].name(), "'). Expected ",
          DataTypeString(expected[i].dtype()), ", but input ", i, " has dtype ",
          DataTypeString(inputs[i].dtype()), "."));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<ApplicationEngine>> ApplicationEngine::Start(
    ApplicationExecutableProto exe, std::string filename, std::string name, int64_t timeout_us,
    std::vector<Tensor> inputs) {
  if (timeout_us <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "application runtime '", name, "': timeout_us is ", timeout_us,
        "; give how long (in microseconds, > 0) the engine waits for the next call"));
  }
  RETURN_IF_ERROR(ValidateApplicationExecutable(exe, absl::StrCat("Executable file '", filename, "'")));
  const EmbeddedRuntimeConfig& config = exe.embedded_runtime_config();
  RETURN_IF_ERROR(CheckApplicationInputs(config.signature().inputs(), inputs,
                                         "Embedded application runtime"));
  std::shared_ptr<ApplicationEngine> engine(new ApplicationEngine);
  engine->filename_ = std::move(filename);
  engine->name_ = std::move(name);
  engine->timeout_ = absl::Microseconds(timeout_us);
  engine->infeed_name_ = UniqueFeedName(engine->name_, "infeed");
  engine->outfeed_name_ = UniqueFeedName(engine->name_, "outfeed");
  for (const ApplicationTensorInfo& info : config.signature().inputs()) {
    engine->feeds_.emplace_back(absl::StrCat(info.name(), ":0"),
                                std::move(inputs[info.argument()]));
  }
  // The program's feeds become the engine's own.
  GraphDef program = exe.program();
  for (NodeDef& node : *program.mutable_node()) {
    auto it = node.mutable_attr()->find("feed_name");
    if (it == node.mutable_attr()->end()) continue;
    if (it->second.s() == config.infeed_name()) it->second.set_s(engine->infeed_name_);
    else if (it->second.s() == config.outfeed_name()) it->second.set_s(engine->outfeed_name_);
  }
  engine->session_ = NewSession();
  absl::Status created = engine->session_->Create(program);
  if (!created.ok()) {
    return absl::Status(created.code(),
                        absl::StrCat("Executable file '", engine->filename_,
                                     "': its program does not load: ", created.message()));
  }
  engine->exe_ = std::move(exe);
  engine->runner_ = std::thread([raw = engine.get()] { raw->ServeCalls(); });
  return engine;
}

ApplicationEngine::~ApplicationEngine() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (runner_.joinable()) runner_.join();
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<PendingCall>& call : queue_) {
    call->result = absl::CancelledError(absl::StrCat(
        "application runtime '", name_, "' stopped (its session is gone) before the call ran"));
    call->done.Notify();
  }
  queue_.clear();
  if (session_ != nullptr) session_->Close().IgnoreError();
}

int64_t ApplicationEngine::runs() const {
  absl::MutexLock lock(&mu_);
  return runs_;
}

int64_t ApplicationEngine::calls_served() const {
  absl::MutexLock lock(&mu_);
  return calls_served_;
}

absl::StatusOr<std::vector<Tensor>> ApplicationEngine::Call(std::vector<Tensor> inputs,
                                                           absl::Time deadline) {
  RETURN_IF_ERROR(CheckApplicationInputs(config().signature().streamed_inputs(), inputs,
                                         "Embedded application call"));
  auto call = std::make_shared<PendingCall>();
  call->inputs = std::move(inputs);
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      return absl::CancelledError(absl::StrCat("application runtime '", name_, "' is stopping"));
    }
    queue_.push_back(call);
  }
  if (!call->done.WaitForNotificationWithDeadline(deadline)) {
    absl::MutexLock lock(&mu_);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (*it == call) {
        queue_.erase(it);
        break;
      }
    }
    // A call the runner already took still runs; its result is dropped.
    return absl::DeadlineExceededError(absl::StrCat(
        "application runtime '", name_, "': the call did not finish before the run's deadline"));
  }
  return std::move(call->result);
}

void ApplicationEngine::ServeCalls() {
  const int64_t iterations = config().iterations();
  while (true) {
    std::vector<std::shared_ptr<PendingCall>> batch;
    {
      absl::MutexLock lock(&mu_);
      auto has_work = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&has_work));
      if (stopping_) return;
      while (static_cast<int64_t>(batch.size()) < iterations) {
        if (queue_.empty() && !mu_.AwaitWithTimeout(absl::Condition(&has_work), timeout_)) break;
        if (stopping_) {
          // Back to the queue, whose calls the destructor fails.
          for (auto it = batch.rbegin(); it != batch.rend(); ++it) queue_.push_front(*it);
          return;
        }
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    absl::Status s = RunBatch(batch);
    {
      absl::MutexLock lock(&mu_);
      ++runs_;
      if (s.ok()) calls_served_ += static_cast<int64_t>(batch.size());
    }
    for (const std::shared_ptr<PendingCall>& call : batch) {
      if (!s.ok()) {
        call->result = absl::Status(
            s.code(), absl::StrCat("application runtime '", name_, "': ", s.message()));
      }
      call->done.Notify();
    }
  }
}

absl::Status ApplicationEngine::RunBatch(const std::vector<std::shared_ptr<PendingCall>>& batch) {
  const EmbeddedRuntimeConfig& cfg = config();
  const int64_t n = cfg.iterations();
  const int64_t real = static_cast<int64_t>(batch.size());
  // The infeed's data: component c stacked over the iterations, the rows
  // past the real calls repeating the last one.
  std::vector<Tensor> stacked;
  for (int c = 0; c < cfg.signature().streamed_inputs_size(); ++c) {
    const Tensor& first = batch[0]->inputs[c];
    std::vector<int64_t> dims = {n};
    for (int64_t d : first.shape().dim_sizes()) dims.push_back(d);
    Tensor t(first.dtype(), TensorShape(dims));
    const int64_t row = first.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& src = batch[std::min(i, real - 1)]->inputs[c];
      RETURN_IF_ERROR(CopyElements(src, 0, &t, i * row, row));
    }
    stacked.push_back(std::move(t));
  }
  ASSIGN_OR_RETURN(data::Dataset dataset, data::Dataset::FromTensorSlices(std::move(stacked)));
  RETURN_IF_ERROR(InfeedRegistry::Get().Register(infeed_name_, dataset));
  RETURN_IF_ERROR(InfeedRegistry::Get().Reset(infeed_name_));
  std::vector<Tensor> unused;
  RETURN_IF_ERROR(session_->Run(feeds_, {}, {cfg.run_target()}, &unused));

  std::vector<std::vector<Tensor>> results(real);
  for (int c = 0; c < cfg.signature().streamed_outputs_size(); ++c) {
    const ApplicationTensorInfo& info = cfg.signature().streamed_outputs(c);
    ASSIGN_OR_RETURN(Tensor all, OutfeedRegistry::Get().Dequeue(outfeed_name_, c, false));
    const TensorShape want = ShapeOf(info);
    std::vector<int64_t> dims = {n};
    for (int64_t d : want.dim_sizes()) dims.push_back(d);
    if (all.shape() != TensorShape(dims) || all.dtype() != info.dtype()) {
      return absl::InternalError(absl::StrCat(
          "the program's outfeed gave ", DataTypeString(all.dtype()), all.shape().DebugString(),
          " for output '", info.name(), "', but the executable declares ",
          DataTypeString(info.dtype()), TensorShape(dims).DebugString(),
          " (is the program replicated? an application runs on one replica)"));
    }
    for (int64_t i = 0; i < real; ++i) {
      Tensor row(info.dtype(), want);
      RETURN_IF_ERROR(CopyElements(all, i * want.num_elements(), &row, 0, want.num_elements()));
      results[i].push_back(std::move(row));
    }
  }
  for (int64_t i = 0; i < real; ++i) batch[i]->result = std::move(results[i]);
  return absl::OkStatus();
}

}  // namespace tensorflow_ipu
