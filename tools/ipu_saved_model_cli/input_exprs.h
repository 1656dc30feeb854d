// The values of `run --input_exprs 'k=<expr>'`, read by a small grammar
// instead of Python's eval (which made the original tool run any code it
// was given, CVE-2021-41228). What it accepts, and the array each gives
// (the dtype numpy would infer):
//
//   5, -2, +1          int64 scalars
//   2.5, 1e-3, .5, 1.  float64 scalars
//   True, False        bool scalars
//   [[1], [2], [5]]    nested lists and tuples of those, rectangular; the
//                      dtype is float64 if any element is a float, else
//                      int64 if any is an int, else bool ([] is float64)
//   np.ones(shape[, dtype])   np.zeros(shape[, dtype]): float64 unless a
//                      dtype is given; shape an int or a tuple/list of ints
//   np.array(value[, dtype])  the value (a literal or an np call) as dtype
//
// `numpy.` may stand for `np.`. A dtype is given positionally or as
// `dtype=`: np.float16/float32/float64/half/single/double/float_,
// np.int32/int64/int_, np.uint8, np.bool_, the same names quoted
// ('float32'), or Python's float, int and bool.
//
// Anything else (names, other calls, attribute access, operators,
// `__import__`, strings) is InvalidArgument naming the position (0-based
// offset into the expression) and what is there. So are ragged lists,
// nesting deeper than numpy's 32 dimensions, shapes of more than 32, np calls nested more than 32
// deep (np.array(np.array(...))), integers beyond int64, shapes
// with negative dims, more than kMaxInputExprElements elements or, empty,
// dimensions multiplying to over 2^38 before the 0 ((2^40, 0)), and
// values that do not fit a requested integer dtype.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_INPUT_EXPRS_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_INPUT_EXPRS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// The most elements np.ones / np.zeros may make (2^26 float64s are 512
// MiB): a larger input belongs in a .npy file given with --inputs.
inline constexpr int64_t kMaxInputExprElements = int64_t{1} << 26;
// Lists nest at most this deep, numpy's limit on dimensions; so do np
// calls, each the value of the one around it.
inline constexpr int kMaxInputExprDepth = 32;

// The array `expr` denotes (see above).
absl::StatusOr<Tensor> ParseInputExpr(absl::string_view expr);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_INPUT_EXPRS_H_
