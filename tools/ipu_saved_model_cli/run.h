// `ipu_saved_model_cli run`: runs one signature of a SavedModel on inputs
// given on the command line and prints (and optionally saves) every
// output, as TensorFlow 1.15's saved_model_cli run does, with the vendor's
// IPU flags:
//
//   run --dir D --tag_set serve --signature_def serving_default
//       --input_exprs 'x=[[1],[2],[5]]'
//   Result for output key y:
//   [[2.5]
//    [3. ]
//    [4.5]]
//
// Inputs (entries of one option separated by ';'; later options override
// earlier ones with a warning, as the original): --inputs 'k=file.npy' or
// 'k=file.npy[name]' (NumPy .npy files; the [name] is ignored for them,
// with a warning; .npz archives are refused, npy.h), --input_exprs
// 'k=<expr>' (the safe grammar of input_exprs.h, never eval), and
// --input_examples, refused as Unimplemented: the ParseExample op that
// would read them has no kernel here. Each value is converted to its
// input's dtype as TensorFlow's session converts a fed numpy array
// (numpy_cast.h).
//
// Outputs are fetched in sorted key order and printed as numpy prints
// arrays. With --outdir each is also written to <outdir>/<key>.npy (the
// directory is created); a file that exists needs --overwrite, which is
// checked for every output before the model runs, as is the output's
// dtype (.npy holds no strings here), so a refused run writes nothing.
//
// With --init_ipu it prints "Initializing IPU System ..." and configures
// the simulated IPU system with --num_ipus IPUs before loading the model,
// so a model converted for the IPU runs there; --matmul_amp / --conv_amp
// (numbers in [0, 1]) and --matmul_partial_type / --conv_partial_type
// ("float" or "half") are checked and otherwise have no effect, since the
// simulator's matmuls and convolutions take no such options. Without
// --init_ipu the IPU flags are ignored, as in the original.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_RUN_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_RUN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

struct RunCommandOptions {
  std::string dir;
  std::string tag_set;
  std::string signature_def;
  std::string inputs;
  std::string input_exprs;
  std::string input_examples;
  std::optional<std::string> outdir;
  bool overwrite = false;
  // TensorFlow's debugger, remote sessions and TPUs: refused
  // (Unimplemented).
  bool tf_debug = false;
  std::optional<std::string> worker;
  bool init_tpu = false;
  // The vendor's IPU flags (see above), with its defaults.
  bool init_ipu = false;
  int64_t num_ipus = 1;
  std::string matmul_amp = "0.6";
  std::string conv_amp = "0.6";
  std::string matmul_partial_type = "float";
  std::string conv_partial_type = "float";
};

// Runs the signature and prints its outputs to `out`; warnings go to
// `err`. Errors (InvalidArgument unless said) name the option, key or
// file: no inputs at all, a malformed entry, an input key the signature
// does not have, a value that does not convert, a missing tag-set or
// signature (NotFound), an existing output file without --overwrite
// (AlreadyExists), --input_examples, --tf_debug, --worker and --init_tpu
// (Unimplemented).
absl::Status Run(const RunCommandOptions& options, std::ostream& out, std::ostream& err);

// The input tensors the options give, by input key, before conversion
// to the signature's dtypes (warnings for overridden keys to `err`).
absl::StatusOr<std::map<std::string, Tensor>> LoadInputs(const RunCommandOptions& options,
                                                         std::ostream& err);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_RUN_H_
