// session_overhead: the tutorial's graph (three float placeholders of
// shape [2], (a + b) + (a + c)) run 100,000 times with feeds through
// ClientSession::Run, on the CPU executor and on the simulated IPU (under
// ipu_scope), versus libtorch doing the same three additions. Prints
// microseconds per call and the ratios (below 1x: cheaper than libtorch).
//
//   bazel run -c opt //tools/bench:session_overhead [-- --steps=100000]
#include <iostream>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/runtime/session.h"
#include "tools/bench/bench_flags.h"
#include "tools/bench/contest.h"
#include "tools/bench/ipu_setup.h"
#include "tools/bench/machine_info.h"
#include "tools/bench/peer_env.h"
#include "tools/bench/stopwatch.h"
#include "tools/bench/table.h"
#include "tools/bench/torch_peer.h"

namespace tfipu_bench {
namespace {

namespace tfipu = tensorflow_ipu;
namespace ops = tensorflow_ipu::ops;

enum class Feeds {
  kPrepared,  // one FeedType of ready tensors, reused by every call
  kLiterals,  // {{pa, {1.f, 1.f}}, ...} written at the call, as the tutorial does
};

absl::StatusOr<Outcome> LibraryAdds(int64_t calls, int threads, bool on_ipu, Feeds feeds) {
  tfipu::Scope root = tfipu::Scope::NewRootScope();
  tfipu::Scope cpu = root.WithDevice("cpu");
  auto shape = ops::Placeholder::Shape({2});
  auto pa = ops::Placeholder(cpu.WithOpName("a"), tfipu::DT_FLOAT, shape);
  auto pb = ops::Placeholder(cpu.WithOpName("b"), tfipu::DT_FLOAT, shape);
  auto pc = ops::Placeholder(cpu.WithOpName("c"), tfipu::DT_FLOAT, shape);
  tfipu::Scope compute = on_ipu ? tfipu::ipu::scopes::ipu_scope(root, "/device:IPU:0") : cpu;
  auto o1 = ops::Add(compute, pa, pb);
  auto o2 = ops::Add(compute, pa, pc);
  tfipu::Output result = ops::Add(compute, o1, o2);
  if (!root.ok()) return root.status();
  tfipu::SessionOptions options;
  options.num_threads = threads;
  tfipu::ClientSession session(root, options);
  const tfipu::ClientSession::FeedType prepared = {
      {pa, tfipu::Tensor::Vector<float>({1.f, 1.f})},
      {pb, tfipu::Tensor::Vector<float>({0.f, 1.f})},
      {pc, tfipu::Tensor::Vector<float>({1.f, 5.f})}};
  std::vector<tfipu::Tensor> out;
  auto call = [&]() -> absl::Status {
    if (feeds == Feeds::kPrepared) return session.Run(prepared, {result}, &out);
    return session.Run({{pa, {1.f, 1.f}}, {pb, {0.f, 1.f}}, {pc, {1.f, 5.f}}}, {result},
                       &out);
  };
  for (int i = 0; i < 1000; ++i) {
    if (absl::Status s = call(); !s.ok()) return s;
  }
  double total = 0;
  Stopwatch sw;
  for (int64_t i = 0; i < calls; ++i) {
    if (absl::Status s = call(); !s.ok()) return s;
    const float* v = out[0].data<float>();
    total += v[0] + v[1];
  }
  Outcome o;
  o.seconds = sw.Seconds();
  o.steps = calls;
  o.checks = {{"mean result sum", total / calls, 1e-6}};
  o.note = feeds == Feeds::kPrepared ? "one prepared FeedType" : "feeds from literals per call";
  if (on_ipu) {
    // One more call, outside the timed loop, for what it cost on the IPU.
    tfipu::RunMetadata metadata;
    if (absl::Status s = session.Run(tfipu::RunOptions(), prepared, {result}, {},
                                     &out, &metadata);
        !s.ok()) {
      return s;
    }
    absl::StrAppend(&o.note, SimulatedIpuTimeNote(metadata, "call"));
  }
  return o;
}

int Main(int argc, char** argv) {
  ReexecWithPeerEnvironment(argc, argv);
  ParseBenchFlags(argc, argv,
                  "session_overhead: the tutorial's (a+b)+(a+c) per ClientSession::Run "
                  "vs libtorch");
  const int threads = BenchThreads();
  if (absl::Status s = ConfigureBenchIpus(1); !s.ok()) {
    std::cerr << "session_overhead: " << s << "\n";
    return 1;
  }
  SetTorchThreads(threads);
  ContestOptions options = ContestOptionsFromFlags(100000);
  Contest contest(absl::StrCat("session_overhead: (a+b)+(a+c) on float[2], ", options.steps,
                               " calls"),
                  Metric::kMicrosPerCall);
  contest.Add({"libtorch", /*peer=*/true,
               [](int64_t calls) { return TorchAdds(calls, /*inference_mode=*/false); }});
  contest.Add({"libtorch-inference-mode", false,
               [](int64_t calls) { return TorchAdds(calls, /*inference_mode=*/true); }});
  contest.Add({"tfipu-cpu", false, [&](int64_t calls) {
                 return LibraryAdds(calls, threads, false, Feeds::kPrepared);
               }});
  contest.Add({"tfipu-cpu-literals", false, [&](int64_t calls) {
                 return LibraryAdds(calls, threads, false, Feeds::kLiterals);
               }});
  contest.Add({"tfipu-ipu", false, [&](int64_t calls) {
                 return LibraryAdds(calls, threads, true, Feeds::kPrepared);
               }});

  std::cout << MachineSummary() << TorchSummary() << "\n" << IpuSummary() << "\n\n";
  return RunAndReport(contest, options);
}

}  // namespace
}  // namespace tfipu_bench

int main(int argc, char** argv) { return tfipu_bench::Main(argc, argv); }
