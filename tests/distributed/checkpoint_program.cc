// Run by distributed_test.sh under poprun: checkpoints and infeeds in a job
// of several instances.
//
//   checkpoint_program DIR_PATTERN
//
// Each instance uses the directory DIR_PATTERN with "{i}" replaced by its
// index, as if each ran on a host of its own. Its variable starts at
// (index + 1) x [1, 2, 3]. It prints, one line each:
//   instance I saved model.ckpt-1; files in its directory: N
//   instance I latest: ckK/model.ckpt-1        (K: whose directory)
//   instance I restored: 1 2 3
//   instance I missing checkpoint: <code> <message>   (the directory's parent: TMP)
//   instance I infeed of 4 + I elements: <code> <message>
//   instance I infeed of 4 elements: OK
// Only instance 0 writes files; every instance restores instance 0's
// values from instance 0's directory; instance 0's errors reach everyone;
// infeeds of different lengths are refused on every instance before a step.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/distributed/popdist.h"
#include "tensorflow_ipu/distributed/popdist_ipu_config.h"
#include "tensorflow_ipu/ipu/config.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/train/checkpoint_management.h"
#include "tensorflow_ipu/train/saver.h"

namespace tensorflow_ipu {
namespace {

namespace fs = std::filesystem;
namespace popdist = distributed::popdist;

std::string Describe(const absl::Status& s) {
  return s.ok() ? "OK" : absl::StrCat(absl::StatusCodeToString(s.code()), " ", s.message());
}

absl::Status Main(int argc, char** argv) {
  if (argc != 2) return absl::InvalidArgumentError("usage: checkpoint_program DIR_PATTERN");
  ASSIGN_OR_RETURN(popdist::PopDistEnv env, popdist::FromProcessEnvironment());
  ipu::config::IPUConfig cfg;
  cfg.auto_select_ipus = 1;
  RETURN_IF_ERROR(popdist::set_ipu_config(&cfg, env));
  RETURN_IF_ERROR(cfg.configure_ipu_system());
  const int i = env.instance_index;
  const std::string dir =
      absl::StrReplaceAll(argv[1], {{"{i}", absl::StrCat(i)}});
  fs::create_directories(dir);
  const std::string me = absl::StrCat("instance ", i);

  Scope root = Scope::NewRootScope();
  Scope ipu = ipu::scopes::ipu_scope(root, "/device:IPU:0");
  const float own = i + 1.f;
  VariableScope vs(ipu, "model");
  ASSIGN_OR_RETURN(Variable w, vs.get_variable("w", {3}, DT_FLOAT,
                                               initializers::Value(Tensor::FromVector<float>(
                                                   {own, 2 * own, 3 * own}, TensorShape({3})))));
  Operation init = global_variables_initializer(root);
  Operation clobber = w.assign(root, ops::Const(root, {9.f, 9.f, 9.f}));
  RETURN_IF_ERROR(root.status());
  train::Saver saver(root);
  ClientSession session(root);
  RETURN_IF_ERROR(session.Run({}, {}, {init}, nullptr));

  ASSIGN_OR_RETURN(std::string saved, saver.save(session, dir + "/model.ckpt", 1));
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  std::cout << me << " saved " << fs::path(saved).filename().string()
            << "; files in its directory: " << files << std::endl;

  RETURN_IF_ERROR(session.Run({}, {}, {clobber}, nullptr));
  ASSIGN_OR_RETURN(std::optional<std::string> latest, train::latest_checkpoint(dir));
  if (!latest.has_value()) return absl::InternalError(me + ": no latest checkpoint");
  const fs::path latest_path(*latest);
  std::cout << me << " latest: " << latest_path.parent_path().filename().string() << "/"
            << latest_path.filename().string() << std::endl;
  RETURN_IF_ERROR(saver.restore(session, *latest));
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session.Run({w.value(root)}, &out));
  const std::vector<float> values(out[0].data<float>(), out[0].data<float>() + 3);
  std::cout << me << " restored: " << absl::StrJoin(values, " ") << std::endl;

  absl::Status missing = saver.restore(session, dir + "/missing.ckpt");
  // The test's temporary directory is TMP in what is printed.
  const std::string tmp = fs::path(argv[1]).parent_path().string();
  std::cout << me << " missing checkpoint: "
            << absl::StrReplaceAll(Describe(missing), {{tmp, "TMP"}}) << std::endl;

  absl::StatusOr<ipu::IPUInfeedQueue> unequal =
      ipu::IPUInfeedQueue::Create(data::Dataset::Range(4 + i), "unequal");
  std::cout << me << " infeed of 4 + " << i << " elements: " << Describe(unequal.status())
            << std::endl;
  absl::StatusOr<ipu::IPUInfeedQueue> equal =
      ipu::IPUInfeedQueue::Create(data::Dataset::Range(4), "equal");
  std::cout << me << " infeed of 4 elements: " << Describe(equal.status()) << std::endl;
  return absl::OkStatus();
}

}  // namespace
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  absl::Status s = tensorflow_ipu::Main(argc, argv);
  if (!s.ok()) {
    std::cerr << "checkpoint_program: " << s << std::endl;
    return 1;
  }
  return 0;
}
