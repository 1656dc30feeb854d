// Element types of poplar_sim tensors, in the spirit of poplar::Type.
//
//   Tensor t = graph.addVariable(FLOAT, {4}, "t");
//   size_t bytes = t.numElements() * typeSize(FLOAT);   // 16
//
// HALF is IEEE binary16 stored as Eigen::half; BOOL is one byte holding 0 or
// 1, as on the IPU.
#ifndef POPLAR_SIM_TYPE_H_
#define POPLAR_SIM_TYPE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

// Declared, not defined: Eigen/Core is about a fifth of the compile time of
// every file that includes this header, and most only name the types. Code
// that makes or reads half values includes "Eigen/Core" itself.
namespace Eigen {
struct half;
}  // namespace Eigen

namespace poplar_sim {

enum class Type : uint8_t {
  FLOAT,         // float, 4 bytes
  HALF,          // Eigen::half, 2 bytes
  INT,           // int32_t
  UNSIGNED_INT,  // uint32_t
  LONGLONG,      // int64_t
  BOOL,          // bool (1 byte)
  CHAR,          // int8_t / char
  UNSIGNED_CHAR, // uint8_t
};

// Poplar spells the types as namespace-level constants: poplar::FLOAT etc.
inline constexpr Type FLOAT = Type::FLOAT;
inline constexpr Type HALF = Type::HALF;
inline constexpr Type INT = Type::INT;
inline constexpr Type UNSIGNED_INT = Type::UNSIGNED_INT;
inline constexpr Type LONGLONG = Type::LONGLONG;
inline constexpr Type BOOL = Type::BOOL;
inline constexpr Type CHAR = Type::CHAR;
inline constexpr Type UNSIGNED_CHAR = Type::UNSIGNED_CHAR;

// Bytes per element of `t` on the device (and in host buffers).
size_t typeSize(Type t);

// The Poplar spelling: "float", "half", "int", "unsigned int", "long long",
// "bool", "char", "unsigned char".
std::string typeName(Type t);

// Inverse of typeName; NotFound for an unknown name.
absl::StatusOr<Type> typeFromName(absl::string_view name);

bool isFloatingPoint(Type t);
bool isIntegral(Type t);  // everything that is not floating point, incl. BOOL

// Maps a C++ element type to its Type: TypeOf<float>::value == FLOAT.
template <typename T>
struct TypeOf;
template <> struct TypeOf<float> { static constexpr Type value = FLOAT; };
template <> struct TypeOf<Eigen::half> { static constexpr Type value = HALF; };
template <> struct TypeOf<int32_t> { static constexpr Type value = INT; };
template <> struct TypeOf<uint32_t> { static constexpr Type value = UNSIGNED_INT; };
template <> struct TypeOf<int64_t> { static constexpr Type value = LONGLONG; };
template <> struct TypeOf<bool> { static constexpr Type value = BOOL; };
template <> struct TypeOf<char> { static constexpr Type value = CHAR; };
template <> struct TypeOf<int8_t> { static constexpr Type value = CHAR; };
template <> struct TypeOf<uint8_t> { static constexpr Type value = UNSIGNED_CHAR; };

// A floating-point value converted to an integer type: truncated toward
// zero, saturated at the type's range, NaN to 0. C++ leaves the last two
// undefined; these are the project's defined choice, the same on the host
// (tensorflow_ipu/core/kernels/cast_op.cc) and in the simulator.
template <typename T>
T saturatingToInteger(double v) {
  if (std::isnan(v)) return T(0);
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

// Reads element `i` of a buffer of type `t` as a double (exact for every type
// but LONGLONG values beyond 2^53).
double loadAsDouble(Type t, const void* data, size_t i);
// Writes `v` to element `i`, converting as static_cast would (bool: v != 0)
// except that integer types saturate and take NaN as 0, as below.
void storeFromDouble(Type t, void* data, size_t i, double v);

// Converts `n` elements from `src` (type `from`) to `dst` (type `to`), as
// static_cast would, except where C++ leaves it undefined: floating point to
// an integer type truncates toward zero, saturates at the type's range and
// maps NaN to 0.
void convertElements(Type from, const void* src, Type to, void* dst, size_t n);

namespace type_internal {
// Eigen::half named through a template parameter, so that dispatchType
// parses while half is incomplete.
template <typename F>
struct HalfFor {
  using type = Eigen::half;
};
}  // namespace type_internal

// Calls f(T{}) with T the C++ type of `t`; used to write type-generic code
// once: dispatchType(t, [&](auto tag) { using T = decltype(tag); ... }).
// A file that calls it includes "Eigen/Core" (for the HALF case).
template <typename F>
auto dispatchType(Type t, F&& f) {
  switch (t) {
    case Type::FLOAT: return f(float{});
    case Type::HALF: return f(typename type_internal::HalfFor<F>::type{});
    case Type::INT: return f(int32_t{});
    case Type::UNSIGNED_INT: return f(uint32_t{});
    case Type::LONGLONG: return f(int64_t{});
    case Type::BOOL: return f(bool{});
    case Type::CHAR: return f(int8_t{});
    case Type::UNSIGNED_CHAR: return f(uint8_t{});
  }
  return f(float{});
}

}  // namespace poplar_sim

#endif  // POPLAR_SIM_TYPE_H_
