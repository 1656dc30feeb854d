// Fuzz target: the grammar of ipu_saved_model_cli's `--input_exprs`
// (tools/ipu_saved_model_cli/input_exprs.h) on arbitrary text.
//
// An expression that parses must give a tensor of one of the dtypes the
// grammar can make, whose buffer holds exactly the elements its shape
// counts, within the documented limits (kMaxInputExprElements for np.ones
// and np.zeros, whose size the text does not bound; a literal has at most
// one element per byte of text; at most kMaxInputExprDepth dimensions).
// An error is InvalidArgument naming the position. Anything else aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/tensor.h"
#include "tools/ipu_saved_model_cli/input_exprs.h"

namespace {

using tensorflow_ipu::Tensor;
namespace cli = tensorflow_ipu::saved_model_cli;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "input_exprs_fuzzer: %s\n", what);
  std::abort();
}

bool GrammarDtype(tensorflow_ipu::DataType dtype) {
  switch (dtype) {
    case tensorflow_ipu::DT_HALF:
    case tensorflow_ipu::DT_FLOAT:
    case tensorflow_ipu::DT_DOUBLE:
    case tensorflow_ipu::DT_INT32:
    case tensorflow_ipu::DT_INT64:
    case tensorflow_ipu::DT_UINT8:
    case tensorflow_ipu::DT_BOOL:
      return true;
    default:
      return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Tensor> t = cli::ParseInputExpr(text);
  if (!t.ok()) {
    if (t.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("an error that is not InvalidArgument");
    }
    // Every error points into the text, except for a text with no tokens.
    const absl::string_view message = t.status().message();
    if (message.find("position ") == absl::string_view::npos &&
        message.rfind("the expression is empty", 0) != 0) {
      Fail("an error that does not name the position");
    }
    return 0;
  }
  if (!GrammarDtype(t->dtype())) Fail("a dtype the grammar cannot make");
  if (t->dims() < 0 || t->dims() > cli::kMaxInputExprDepth) Fail("a rank beyond numpy's 32");
  int64_t count = 1;
  for (int d = 0; d < t->dims(); ++d) {
    if (t->dim_size(d) < 0) Fail("a negative dimension");
    // The product saturates: a dimension of 2^40 beside a 0 is a valid
    // empty array, and must not overflow this check.
    if (t->dim_size(d) == 0) {
      count = 0;
    } else if (count != 0) {
      count = count > cli::kMaxInputExprElements / t->dim_size(d)
                  ? cli::kMaxInputExprElements + 1
                  : count * t->dim_size(d);
    }
  }
  if (count > cli::kMaxInputExprElements) Fail("more elements than kMaxInputExprElements");
  if (t->NumElements() != count) Fail("NumElements differs from the shape's product");
  const bool sized_by_a_call = text.find("ones") != absl::string_view::npos ||
                               text.find("zeros") != absl::string_view::npos;
  if (!sized_by_a_call && count > static_cast<int64_t>(size)) {
    Fail("a literal with more elements than its text has bytes");
  }
  if (count > 0 && t->raw_data() == nullptr) Fail("elements without a buffer");
  return 0;
}
