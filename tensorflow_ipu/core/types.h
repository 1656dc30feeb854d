// DataType helpers: names, sizes, and the C++ type <-> enum mapping.
//
//   DataTypeString(DT_FLOAT) == "float";
//   DataTypeToEnum<int64_t>::value == DT_INT64;
//   SwitchOnType(dtype, [&](auto tag) { using T = decltype(tag); ... });
#ifndef TENSORFLOW_IPU_CORE_TYPES_H_
#define TENSORFLOW_IPU_CORE_TYPES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorflow_ipu/core/proto/types.pb.h"

// IEEE binary16, as Eigen (and so TensorFlow) defines it. Declared, not
// defined, here: Eigen/Core is about a fifth of the compile time of every
// file that includes this header, and most only name the type. Code that
// makes or reads half values includes "Eigen/Core" itself.
namespace Eigen {
struct half;
}  // namespace Eigen

namespace tensorflow_ipu {

using half = Eigen::half;

// "float", "half", "int32", "int64", "bool", ... as TensorFlow prints them.
std::string DataTypeString(DataType dtype);

// Parses the names DataTypeString produces (and "float32", "float16").
absl::StatusOr<DataType> DataTypeFromString(absl::string_view name);

// Bytes per element; 0 for DT_INVALID, DT_RESOURCE and DT_STRING (whose
// elements are std::strings of any length, as in TensorFlow).
int DataTypeSize(DataType dtype);

// True for the types tensors can hold values of (all but invalid/resource).
// DT_STRING is one, but has no fixed size: code that copies bytes must
// handle it apart (Tensor does).
bool IsValueType(DataType dtype);

template <typename T>
struct DataTypeToEnum;
#define TFIPU_MATCH_TYPE_AND_ENUM(TYPE, ENUM) \
  template <>                                 \
  struct DataTypeToEnum<TYPE> {               \
    static constexpr DataType value = ENUM;   \
  }
TFIPU_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
TFIPU_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
TFIPU_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
TFIPU_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
TFIPU_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
TFIPU_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
TFIPU_MATCH_TYPE_AND_ENUM(half, DT_HALF);
TFIPU_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
#undef TFIPU_MATCH_TYPE_AND_ENUM

namespace types_internal {
// `half`, named through a template parameter so that SwitchOnType parses
// while half is incomplete; it is needed complete only where SwitchOnType
// is called.
template <typename Fn>
struct HalfFor {
  using type = half;
};
}  // namespace types_internal

// Calls `fn(T{})` with the C++ type of `dtype`; returns InvalidArgument for
// types without values and for DT_STRING (numeric kernels use this). `fn`
// must return absl::Status. A file that calls it includes "Eigen/Core"
// (for the DT_HALF case: see `half` above).
template <typename Fn>
absl::Status SwitchOnType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: return fn(float{});
    case DT_DOUBLE: return fn(double{});
    case DT_INT32: return fn(int32_t{});
    case DT_UINT8: return fn(uint8_t{});
    case DT_INT64: return fn(int64_t{});
    case DT_BOOL: return fn(bool{});
    case DT_HALF: return fn(typename types_internal::HalfFor<Fn>::type{});
    default:
      return absl::InvalidArgumentError(
          "no values of type " + DataTypeString(dtype));
  }
}

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_TYPES_H_
