// NumPy's .npy format (numpy/lib/format.py), read and written, so that
// `run --inputs k=file.npy` reads what numpy.save wrote and `run --outdir`
// writes what numpy.load reads:
//
//   ASSIGN_OR_RETURN(Tensor x, ReadNpyFile("x.npy"));
//   RETURN_IF_ERROR(WriteNpyFile("y.npy", y));
//
// A file is the magic "\x93NUMPY", a version (1.0: a 2-byte header length;
// 2.0 and 3.0: 4 bytes), a Python dict literal {'descr': '<f4',
// 'fortran_order': False, 'shape': (3, 1), } padded with spaces and a '\n'
// to a multiple of 64 bytes, then the elements.
//
// Element types, little- or big-endian ('<', '>', '=' or '|'): f2 f4 f8 i4
// i8 u1 b1, as DT_HALF DT_FLOAT DT_DOUBLE DT_INT32 DT_INT64 DT_UINT8
// DT_BOOL. Other types (i1, i2, u2, u4, u8, complex, strings, records) are
// Unimplemented, naming the file and the descr. Fortran-ordered arrays are
// transposed into the row-major order of Tensor.
//
// Writing produces the bytes numpy.save (NumPy 1.23 and later) writes for
// the same array: little-endian descr, fortran_order False, the header
// with numpy's spare room for growing the first axis (21 minus the digits
// of shape[0] spaces), padded to 64 bytes; version 1.0 unless the header
// needs more than 65535 bytes.
//
// Errors name the file: bad magic or version, a header that is not a dict
// of exactly those keys, a shape whose element count overflows, an empty
// shape whose dimensions multiply to over 2^38 before its 0, such as
// (2^40, 0), which a Tensor cannot hold (InvalidArgument); a file cut
// short or with bytes beyond the data, or a
// bool that is neither 0 nor 1 (DataLoss). A .npz archive (a zip of .npy
// files) is Unimplemented: the project has no zip reader.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_NPY_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// The array held by `bytes`, the contents of a .npy file; `file` names it
// in errors.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view file);

// ParseNpy of the file at `path`. NotFound if it cannot be opened,
// InvalidArgument for a directory; Unimplemented for a .npz archive.
absl::StatusOr<Tensor> ReadNpyFile(const std::string& path);

// The bytes numpy.save writes for `tensor`. Unimplemented for DT_STRING
// and types without values.
absl::StatusOr<std::string> EncodeNpy(const Tensor& tensor);

// Whether EncodeNpy can write tensors of `dtype`.
bool NpyCanWrite(DataType dtype);

// EncodeNpy into the file at `path`, replacing it.
absl::Status WriteNpyFile(const std::string& path, const Tensor& tensor);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_NPY_H_
