// The tutorial's first program (section 3.2): three placeholders on the
// host, and (a + b) + (a + c) on the IPU under ipu_scope, without compile.
//
//   cfg = IPUConfig(); cfg.auto_select_ipus = 1; cfg.configure_ipu_system()
//   with tf.device("cpu"):
//     pa = tf.placeholder(np.float32, [2], name="a")  # and b, c
//   with ipu_scope("/device:IPU:0"):
//     result = basic_graph(pa, pb, pc)
//   print(sess.run(result, feed_dict={pa: [1., 1.], pb: [0., 1.], pc: [1., 5.]}))
//
// Prints "[3. 8.]" on stdout, as the Python program does; the attach line
// and the simulated profile of the run go to stderr. Set
// TF_POPLAR_FLAGS=--use_ipu_model to run on the IPU Model instead of the
// simulated IPU hardware.
#include <iostream>

#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/scopes.h"

namespace tfipu = tensorflow_ipu;

namespace {

tfipu::Output BasicGraph(const tfipu::Scope& scope, tfipu::Output pa,
                         tfipu::Output pb, tfipu::Output pc) {
  auto o1 = tfipu::ops::Add(scope, pa, pb);
  auto o2 = tfipu::ops::Add(scope, pa, pc);
  return tfipu::ops::Add(scope, o1, o2);
}

absl::Status Main() {
  tfipu::ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  absl::Status status = cfg.configure_ipu_system();
  if (!status.ok()) return status;

  tfipu::Scope root = tfipu::Scope::NewRootScope();
  tfipu::Scope cpu = root.WithDevice("cpu");
  auto shape = tfipu::ops::Placeholder::Shape({2});
  auto pa = tfipu::ops::Placeholder(cpu.WithOpName("a"), tfipu::DT_FLOAT, shape);
  auto pb = tfipu::ops::Placeholder(cpu.WithOpName("b"), tfipu::DT_FLOAT, shape);
  auto pc = tfipu::ops::Placeholder(cpu.WithOpName("c"), tfipu::DT_FLOAT, shape);

  tfipu::Scope ipu = tfipu::ipu::scopes::ipu_scope(root, "/device:IPU:0");
  tfipu::Output result = BasicGraph(ipu, pa, pb, pc);

  tfipu::ClientSession session(root);
  std::vector<tfipu::Tensor> outputs;
  tfipu::RunMetadata metadata;
  status = session.Run(tfipu::RunOptions(),
                       {{pa, {1.f, 1.f}}, {pb, {0.f, 1.f}}, {pc, {1.f, 5.f}}},
                       {result}, {}, &outputs, &metadata);
  if (!status.ok()) return status;
  std::cout << outputs[0].DebugString() << "\n";
  std::cerr << metadata.ipu_profile.ToString();
  return absl::OkStatus();
}

}  // namespace

int main() {
  absl::Status status = Main();
  if (!status.ok()) {
    std::cerr << "basic_graph: " << status << "\n";
    return 1;
  }
  return 0;
}
