// The tutorial's sharding program (section 3.4): four IPUs, one shard of the
// computation on each, compiled with ipu_compiler::compile.
//
//   cfg.auto_select_ipus = 4
//   def sharded_graph(pa, pb, pc):
//     with ipu.scopes.ipu_shard(0): o1 = pa + pb
//     with ipu.scopes.ipu_shard(1): o2 = pa + pc
//     with ipu.scopes.ipu_shard(2): o3 = pb + pc
//     with ipu.scopes.ipu_shard(3): out = o1 + o2 + o3
//
// Prints "[ 4. 14.]" on stdout; the log (stderr) shows the attach line for
// the group of four IPUs ("attached to IPUs: 24") and a profile line saying
// how many bytes crossed between the IPUs.
#include <iostream>

#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/scopes.h"

namespace tfipu = tensorflow_ipu;
namespace scopes = tensorflow_ipu::ipu::scopes;

namespace {

constexpr int kNumIpus = 4;

std::vector<tfipu::Output> ShardedGraph(const tfipu::Scope& scope,
                                        const std::vector<tfipu::Output>& in) {
  auto o1 = tfipu::ops::Add(scopes::ipu_shard(scope, 0), in[0], in[1]);
  auto o2 = tfipu::ops::Add(scopes::ipu_shard(scope, 1), in[0], in[2]);
  auto o3 = tfipu::ops::Add(scopes::ipu_shard(scope, 2), in[1], in[2]);
  tfipu::Scope s3 = scopes::ipu_shard(scope, 3);
  return {tfipu::ops::Add(s3, tfipu::ops::Add(s3, o1, o2), o3)};
}

absl::Status Main() {
  tfipu::ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = kNumIpus;
  absl::Status status = cfg.configure_ipu_system();
  if (!status.ok()) return status;

  tfipu::Scope root = tfipu::Scope::NewRootScope();
  tfipu::Scope cpu = root.WithDevice("cpu");
  auto shape = tfipu::ops::Placeholder::Shape({2});
  auto pa = tfipu::ops::Placeholder(cpu.WithOpName("a"), tfipu::DT_FLOAT, shape);
  auto pb = tfipu::ops::Placeholder(cpu.WithOpName("b"), tfipu::DT_FLOAT, shape);
  auto pc = tfipu::ops::Placeholder(cpu.WithOpName("c"), tfipu::DT_FLOAT, shape);

  absl::StatusOr<std::vector<tfipu::Output>> result =
      tfipu::ipu::ipu_compiler::compile(scopes::ipu_scope(root, "/device:IPU:0"),
                                        ShardedGraph, {pa, pb, pc});
  if (!result.ok()) return result.status();

  tfipu::ClientSession session(root);
  std::vector<tfipu::Tensor> outputs;
  tfipu::RunMetadata metadata;
  status = session.Run(tfipu::RunOptions(),
                       {{pa, {1.f, 1.f}}, {pb, {0.f, 1.f}}, {pc, {1.f, 5.f}}},
                       *result, {}, &outputs, &metadata);
  if (!status.ok()) return status;
  std::cout << outputs[0].DebugString() << "\n";
  // The simulated cost, where the Python tutorial would read its event trace.
  std::cerr << metadata.ipu_profile.ToString();
  return absl::OkStatus();
}

}  // namespace

int main() {
  absl::Status status = Main();
  if (!status.ok()) {
    std::cerr << "sharded: " << status << "\n";
    return 1;
  }
  return 0;
}
