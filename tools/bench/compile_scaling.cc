// compile_scaling: how the cost of preparing a graph grows with its size.
// Generated graphs of 1k, 10k and 100k nodes (an elementwise chain, and a
// stack of matmul+relu layers) on the CPU executor and on the simulated IPU;
// each phase timed separately through the APIs the session uses:
//   build      ops built with the client API (Scope; shape inference)
//   import     Scope::ToGraphDef + Graph::FromGraphDef (Session::Create)
//   place      NeededNodes + PlaceNodes (runtime/placer.h)
//   partition  PartitionForIpu (runtime/ipu_partitioner.h; IPU only)
//   compile    IPU: CompileCluster, i.e. passes + lowering + engine
//              compilation (compiler/cluster_compiler.h), with the
//              benchmark's threads as a session's Run lends its pool;
//              CPU: Executor::Create (kernel instantiation)
//   first Run  a fresh ClientSession's first Run (all of the above again,
//              plus the run itself)
//   next Run   its second Run (cached: the run only)
// Prints each phase's time, its time per node, and its growth exponent
// (least squares on log-log; 1 is linear).
//
//   bazel run -c opt //tools/bench:compile_scaling [-- --sizes=1000,10000 --kinds=chain --targets=ipu]
#include <cmath>
#include <functional>
#include <iostream>
#include <map>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "poplar_sim/host_threads.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/ipu/ipu_system.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/runtime/cpu_device.h"
#include "tensorflow_ipu/runtime/executor.h"
#include "tensorflow_ipu/runtime/ipu_partitioner.h"
#include "tensorflow_ipu/runtime/needed_nodes.h"
#include "tensorflow_ipu/runtime/placer.h"
#include "tools/bench/bench_flags.h"
#include "tools/bench/growth_fit.h"
#include "tools/bench/ipu_setup.h"
#include "tools/bench/machine_info.h"
#include "tools/bench/stopwatch.h"
#include "tools/bench/table.h"

ABSL_FLAG(std::string, sizes, "1000,10000,100000", "graph sizes in nodes");
ABSL_FLAG(std::string, kinds, "chain,matmul", "graph kinds: chain, matmul");
ABSL_FLAG(std::string, targets, "cpu,ipu", "where the ops run: cpu, ipu");
ABSL_FLAG(double, budget_s, 600,
          "skip a size whose linear extrapolation from the previous one exceeds this");

namespace tfipu_bench {
namespace {

namespace tfipu = tensorflow_ipu;
namespace ops = tensorflow_ipu::ops;

const char* kPhases[] = {"build", "import", "place", "partition", "compile", "first Run",
                         "next Run"};
constexpr int kNumPhases = 7;

struct Built {
  tfipu::Scope root = tfipu::Scope::NewRootScope();
  tfipu::Output input;
  tfipu::Output output;
  tfipu::Tensor feed;
};

// x [64] fed; y_1 = x - x ... y_k = x - y_(k-1): one placeholder and n-1
// elementwise ops (values stay in {0, x}).
void BuildChain(int64_t n, const tfipu::Scope& compute, Built* b) {
  b->input = ops::Placeholder(b->root.WithDevice("cpu").WithOpName("x"), tfipu::DT_FLOAT,
                              ops::Placeholder::Shape({64}));
  tfipu::Output y = b->input;
  for (int64_t i = 1; i < n; ++i) y = ops::Sub(compute, b->input, y);
  b->output = y;
  b->feed = tfipu::Tensor(tfipu::DT_FLOAT, tfipu::TensorShape({64}));
  for (int i = 0; i < 64; ++i) b->feed.data<float>()[i] = 0.5f + i;
}

// x [4, 16] fed; (n-1)/3 layers of h = relu(h * W) with W a constant 16x16
// permutation (values stay bounded).
void BuildMatmulStack(int64_t n, const tfipu::Scope& compute, Built* b) {
  b->input = ops::Placeholder(b->root.WithDevice("cpu").WithOpName("x"), tfipu::DT_FLOAT,
                              ops::Placeholder::Shape({4, 16}));
  tfipu::Tensor w(tfipu::DT_FLOAT, tfipu::TensorShape({16, 16}));
  for (int i = 0; i < 256; ++i) w.data<float>()[i] = (i / 16 + 1) % 16 == i % 16 ? 1.f : 0.f;
  tfipu::Output h = b->input;
  for (int64_t l = 0; l < (n - 1) / 3; ++l) {
    h = ops::Relu(compute, ops::MatMul(compute, h, ops::Const(compute, w)));
  }
  b->output = h;
  b->feed = tfipu::Tensor(tfipu::DT_FLOAT, tfipu::TensorShape({4, 16}));
  for (int i = 0; i < 64; ++i) b->feed.data<float>()[i] = 0.25f * (i % 7);
}

struct Measured {
  int64_t nodes = 0;
  std::string note;
  double seconds[kNumPhases] = {};
  bool has[kNumPhases] = {};
};

absl::StatusOr<Measured> Measure(const std::string& kind, bool on_ipu, int64_t n) {
  Measured m;
  auto set = [&m](int phase, double s) {
    m.seconds[phase] = s;
    m.has[phase] = true;
  };
  Built b;
  tfipu::Scope compute = on_ipu ? tfipu::ipu::scopes::ipu_scope(b.root, "/device:IPU:0")
                                : b.root.WithDevice("cpu");
  Stopwatch sw;
  if (kind == "chain") {
    BuildChain(n, compute, &b);
  } else if (kind == "matmul") {
    BuildMatmulStack(n, compute, &b);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown graph kind '", kind, "'"));
  }
  if (!b.root.ok()) return b.root.status();
  set(0, sw.Seconds());
  m.nodes = b.root.graph()->num_nodes();

  sw.Restart();
  absl::StatusOr<tfipu::GraphDef> def = b.root.ToGraphDef();
  if (!def.ok()) return def.status();
  absl::StatusOr<std::unique_ptr<tfipu::Graph>> graph = tfipu::Graph::FromGraphDef(*def);
  if (!graph.ok()) return graph.status();
  set(1, sw.Seconds());

  std::vector<tfipu::TensorRef> feeds = {{(*graph)->FindNode(b.input.node()->name()), 0}};
  std::vector<tfipu::TensorRef> fetches = {
      {(*graph)->FindNode(b.output.node()->name()), b.output.index()}};
  sw.Restart();
  std::vector<const tfipu::Node*> needed = tfipu::NeededNodes(feeds, fetches, {});
  absl::StatusOr<tfipu::Placement> placement;
  if (on_ipu) {
    placement = tfipu::PlaceNodes(needed, tfipu::PlacementEnv::FromIpuSupport());
    if (!placement.ok()) return placement.status();
  }
  set(2, sw.Seconds());

  if (on_ipu) {
    sw.Restart();
    tfipu::Executor::Spec spec;
    spec.feeds = feeds;
    spec.fetches = fetches;
    tfipu::IpuClusterLibrary library;
    absl::StatusOr<tfipu::PartitionedRun> run =
        tfipu::PartitionForIpu(spec, needed, *placement, &library);
    if (!run.ok()) return run.status();
    set(3, sw.Seconds());
    sw.Restart();
    for (const std::string& name : run->clusters) {
      absl::StatusOr<std::shared_ptr<const tfipu::IpuClusterDef>> def = library.Find(name);
      if (!def.ok()) return def.status();
      absl::StatusOr<poplar_sim::Device> device =
          tfipu::ipu::IpuSystem::Get().GetDevice((*def)->ipu_ordinal);
      if (!device.ok()) return device.status();
      poplar_sim::SpawnedHostThreads threads(BenchThreads());
      tfipu::compiler::CompileOptions options;
      options.host_threads = &threads;
      auto compiled = tfipu::compiler::CompileCluster((*def)->ir, device->getTarget(), options);
      if (absl::IsResourceExhausted(compiled.status())) {
        // The simulated tiles' memory is checked once the engine is
        // compiled: the time up to the error is the compile time, but the
        // graph cannot run.
        set(4, sw.Seconds());
        m.note = absl::StrCat("does not fit: ", compiled.status().message().substr(0, 60),
                              "...");
        return m;
      }
      if (!compiled.ok()) return compiled.status();
    }
    set(4, sw.Seconds());
  } else {
    tfipu::CpuDevice cpu(BenchThreads());
    tfipu::Executor::Spec spec;
    spec.feeds = feeds;
    spec.fetches = fetches;
    sw.Restart();
    auto executor = tfipu::Executor::Create(spec, &cpu, nullptr);
    if (!executor.ok()) return executor.status();
    set(4, sw.Seconds());
  }

  tfipu::SessionOptions options;
  options.num_threads = BenchThreads();
  tfipu::ClientSession session(b.root, options);
  std::vector<tfipu::Tensor> out;
  sw.Restart();
  if (absl::Status s = session.Run({{b.input, b.feed}}, {b.output}, &out); !s.ok()) return s;
  set(5, sw.Seconds());
  sw.Restart();
  if (absl::Status s = session.Run({{b.input, b.feed}}, {b.output}, &out); !s.ok()) return s;
  set(6, sw.Seconds());
  return m;
}

std::string Ms(double s) { return FormatNumber(s * 1e3); }

int Main(int argc, char** argv) {
  ParseBenchFlags(argc, argv, "compile_scaling: phase times of graph preparation vs size");
  if (absl::Status s = ConfigureBenchIpus(1); !s.ok()) {
    std::cerr << "compile_scaling: " << s << "\n";
    return 1;
  }
  std::vector<int64_t> sizes;
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_sizes), ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(s, &v) || v < 4) {
      std::cerr << "compile_scaling: bad size '" << s << "'\n";
      return 1;
    }
    sizes.push_back(v);
  }
  std::vector<std::string> kinds = absl::StrSplit(absl::GetFlag(FLAGS_kinds), ',', absl::SkipEmpty());
  std::vector<std::string> targets =
      absl::StrSplit(absl::GetFlag(FLAGS_targets), ',', absl::SkipEmpty());
  const double budget = absl::GetFlag(FLAGS_budget_s);

  std::cout << MachineSummary() << IpuSummary() << "\n\n";
  std::cout << "Times in ms; fit: growth exponent k of t ~ n^k over the sizes "
               "measured (least squares on log-log), and us/node at the largest "
               "size.\n\n";
  int failures = 0;
  for (const std::string& kind : kinds) {
    for (const std::string& target : targets) {
      const bool on_ipu = target == "ipu";
      std::vector<std::string> header = {"nodes"};
      for (const char* p : kPhases) header.push_back(absl::StrCat(p, " ms"));
      header.push_back("note");
      Table table(header);
      std::vector<Measured> done;
      // A small graph first, untimed: the first graph of a kind pays one-off
      // initialisation (registries, allocator growth) that is not growth.
      if (absl::StatusOr<Measured> warm = Measure(kind, on_ipu, 100); !warm.ok()) {
        std::cerr << "compile_scaling: warm-up failed: " << warm.status() << "\n";
      }
      for (int64_t n : sizes) {
        if (!done.empty()) {
          double total = 0;
          for (double s : done.back().seconds) total += s;
          const double estimate = total * n / done.back().nodes;
          if (estimate > budget) {
            std::vector<std::string> row(kNumPhases + 1);
            row[0] = absl::StrCat(n);
            row.push_back(absl::StrCat("skipped: about ", FormatNumber(estimate),
                                       " s by linear extrapolation"));
            table.AddRow(row);
            continue;
          }
        }
        std::cerr << "compile_scaling: " << kind << " on " << target << ", " << n
                  << " nodes ..." << std::flush;
        Stopwatch total;
        absl::StatusOr<Measured> m = Measure(kind, on_ipu, n);
        std::cerr << " " << FormatNumber(total.Seconds()) << " s\n";
        if (!m.ok()) {
          std::vector<std::string> row(kNumPhases + 1);
          row.push_back(absl::StrCat("failed: ", m.status().message()));
          row[0] = absl::StrCat(n);
          table.AddRow(row);
          ++failures;
          break;
        }
        std::vector<std::string> row = {absl::StrCat(m->nodes)};
        for (int p = 0; p < kNumPhases; ++p) row.push_back(m->has[p] ? Ms(m->seconds[p]) : "-");
        row.push_back(m->note);
        table.AddRow(row);
        done.push_back(*m);
      }
      if (done.size() >= 2) {
        std::vector<std::string> fit_row = {"exponent k"};
        // The slope between the two largest sizes alone: a 1k-node graph
        // fits in the core's caches and a 100k-node one does not, which
        // bends the fit over all sizes even for a linear walk.
        std::vector<std::string> last_two = {"k, largest two"};
        std::vector<std::string> per_node = {"us/node"};
        for (int p = 0; p < kNumPhases; ++p) {
          std::vector<double> n, t;
          for (const Measured& m : done) {
            if (!m.has[p]) continue;
            n.push_back(static_cast<double>(m.nodes));
            t.push_back(m.seconds[p]);
          }
          GrowthFit f = FitGrowth(n, t);
          fit_row.push_back(n.size() < 2 ? "-" : absl::StrFormat("%.2f", f.exponent));
          if (n.size() < 3) {
            last_two.push_back("-");
          } else {
            GrowthFit tail = FitGrowth({n[n.size() - 2], n.back()}, {t[t.size() - 2], t.back()});
            last_two.push_back(absl::StrFormat("%.2f", tail.exponent));
          }
          per_node.push_back(n.empty() ? "-"
                                       : FormatNumber(t.back() / n.back() * 1e6));
        }
        table.AddRow(fit_row);
        table.AddRow(last_two);
        table.AddRow(per_node);
      }
      std::cout << "### " << kind << " on " << target << "\n\n" << table.ToMarkdown() << "\n"
                << std::flush;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tfipu_bench

int main(int argc, char** argv) { return tfipu_bench::Main(argc, argv); }
