// popops operation types (popops::expr::UnaryOpType / BinaryOpType) and the
// arithmetic they stand for, shared by the per-vertex and bulk execution so
// both give the same numbers.
#ifndef POPLAR_SIM_POPOPS_EXPR_TYPES_H_
#define POPLAR_SIM_POPOPS_EXPR_TYPES_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "Eigen/Core"
#include "poplar_sim/type.h"

namespace poplar_sim {
namespace popops {

enum class UnaryOpType {
  ABSOLUTE, CEIL, COS, EXPONENT, FLOOR, INVERSE, LOGARITHM, LOGICAL_NOT,
  NEGATE, RELU, RSQRT, SIGMOID, SIGNUM, SIN, SQRT, SQUARE, TANH,
};
inline constexpr int kNumUnaryOps = static_cast<int>(UnaryOpType::TANH) + 1;

enum class BinaryOpType {
  ADD, SUBTRACT, MULTIPLY, DIVIDE, POWER, MAXIMUM, MINIMUM, REMAINDER,
  EQUAL, NOT_EQUAL, LESS_THAN, LESS_THAN_EQUAL, GREATER_THAN,
  GREATER_THAN_EQUAL, LOGICAL_AND, LOGICAL_OR,
  // Gradients of the non-linearities, from the forward output `a` and the
  // output gradient `b` (used by popnn::nonLinearityInputGradient).
  RELU_GRAD, SIGMOID_GRAD, TANH_GRAD,
};
inline constexpr int kNumBinaryOps = static_cast<int>(BinaryOpType::TANH_GRAD) + 1;

std::string unaryOpName(UnaryOpType op);
std::string binaryOpName(BinaryOpType op);

// True if the op is defined for inputs of type `t`.
bool supportsUnary(UnaryOpType op, Type t);
bool supportsBinary(BinaryOpType op, Type t);
// The element type of the result (BOOL for comparisons and logic).
Type unaryOutputType(UnaryOpType op, Type in);
Type binaryOutputType(BinaryOpType op, Type in);
// Worker cycles per 64-bit vector of elements (a model assumption; see
// docs/poplar_sim.md).
unsigned unaryCyclesPerVector(UnaryOpType op);
unsigned binaryCyclesPerVector(BinaryOpType op);

namespace internal {

// Arithmetic happens in float for half, in the type itself otherwise.
template <typename T>
using ComputeType = std::conditional_t<std::is_same_v<T, Eigen::half>, float, T>;

// Integer addition, subtraction, multiplication and negation wrap round
// (two's complement), as the IPU's integer units and TensorFlow's kernels
// do. A signed overflow is undefined in C++ (and a short's product is
// computed as an int), so integers are computed in the unsigned type of
// their promoted width and converted back.
template <typename C>
inline constexpr bool kWrapsRound = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <typename C>
using WrapType = std::make_unsigned_t<std::common_type_t<C, unsigned>>;

template <typename C>
C wrappingAdd(C x, C y) {
  if constexpr (kWrapsRound<C>) {
    return C(WrapType<C>(x) + WrapType<C>(y));
  } else {
    return C(x + y);
  }
}
template <typename C>
C wrappingSubtract(C x, C y) {
  if constexpr (kWrapsRound<C>) {
    return C(WrapType<C>(x) - WrapType<C>(y));
  } else {
    return C(x - y);
  }
}
template <typename C>
C wrappingMultiply(C x, C y) {
  if constexpr (kWrapsRound<C>) {
    return C(WrapType<C>(x) * WrapType<C>(y));
  } else {
    return C(x * y);
  }
}
template <typename C>
C wrappingNegate(C x) {
  if constexpr (kWrapsRound<C>) {
    return C(WrapType<C>(0) - WrapType<C>(x));
  } else {
    return C(-x);
  }
}

// A float as C; an integer saturates at its type's range (and NaN gives 0),
// as popops::cast converts (saturatingToInteger).
template <typename C>
C fromFloat(float v) {
  if constexpr (kWrapsRound<C>) {
    return saturatingToInteger<C>(v);
  } else {
    return static_cast<C>(v);
  }
}

// x / y and x % y of integers, with the vendor's 0 for a zero divisor and
// the wrapped quotient (remainder 0) for the lowest value over -1, which
// overflows (and traps on x86) as a C++ division.
template <typename C>
C integerDivide(C x, C y) {
  if (y == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return wrappingNegate(x);
  }
  return C(x / y);
}
template <typename C>
C integerRemainder(C x, C y) {
  if (y == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return C(0);
  }
  return C(x % y);
}

template <typename T, typename OutT>
void applyUnary(UnaryOpType op, const T* in, OutT* out, size_t n) {
  using C = ComputeType<T>;
  auto loop = [&](auto f) {
    for (size_t i = 0; i < n; ++i) {
      out[i] = static_cast<OutT>(f(static_cast<C>(in[i])));
    }
  };
  switch (op) {
    case UnaryOpType::ABSOLUTE:
      loop([](C x) { return x < C(0) ? wrappingNegate(x) : x; }); break;
    case UnaryOpType::CEIL: loop([](C x) { return C(std::ceil(x)); }); break;
    case UnaryOpType::COS: loop([](C x) { return C(std::cos(x)); }); break;
    case UnaryOpType::EXPONENT: loop([](C x) { return C(std::exp(x)); }); break;
    case UnaryOpType::FLOOR: loop([](C x) { return C(std::floor(x)); }); break;
    case UnaryOpType::INVERSE: loop([](C x) { return C(C(1) / x); }); break;
    case UnaryOpType::LOGARITHM: loop([](C x) { return C(std::log(x)); }); break;
    case UnaryOpType::LOGICAL_NOT: loop([](C x) { return !x; }); break;
    case UnaryOpType::NEGATE: loop([](C x) { return wrappingNegate(x); }); break;
    case UnaryOpType::RELU: loop([](C x) { return x > C(0) ? x : C(0); }); break;
    case UnaryOpType::RSQRT:
      loop([](C x) { return C(C(1) / std::sqrt(x)); }); break;
    case UnaryOpType::SIGMOID:
      loop([](C x) { return C(C(1) / (C(1) + std::exp(-x))); }); break;
    case UnaryOpType::SIGNUM:
      loop([](C x) { return C((x > C(0)) - (x < C(0))); }); break;
    case UnaryOpType::SIN: loop([](C x) { return C(std::sin(x)); }); break;
    case UnaryOpType::SQRT: loop([](C x) { return C(std::sqrt(x)); }); break;
    case UnaryOpType::SQUARE: loop([](C x) { return wrappingMultiply(x, x); }); break;
    case UnaryOpType::TANH: loop([](C x) { return C(std::tanh(x)); }); break;
  }
}

template <typename T, typename OutT>
void applyBinary(BinaryOpType op, const T* a, const T* b, OutT* out,
                 size_t n) {
  using C = ComputeType<T>;
  auto loop = [&](auto f) {
    for (size_t i = 0; i < n; ++i) {
      out[i] = static_cast<OutT>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
    }
  };
  switch (op) {
    case BinaryOpType::ADD: loop([](C x, C y) { return wrappingAdd(x, y); }); break;
    case BinaryOpType::SUBTRACT: loop([](C x, C y) { return wrappingSubtract(x, y); }); break;
    case BinaryOpType::MULTIPLY: loop([](C x, C y) { return wrappingMultiply(x, y); }); break;
    case BinaryOpType::DIVIDE:
      if constexpr (std::is_integral_v<C>) {
        loop([](C x, C y) { return integerDivide(x, y); });
      } else {
        loop([](C x, C y) { return C(x / y); });
      }
      break;
    case BinaryOpType::POWER:
      loop([](C x, C y) { return C(std::pow(x, y)); }); break;
    case BinaryOpType::MAXIMUM:
      loop([](C x, C y) { return x > y ? x : y; }); break;
    case BinaryOpType::MINIMUM:
      loop([](C x, C y) { return x < y ? x : y; }); break;
    case BinaryOpType::REMAINDER:
      if constexpr (std::is_integral_v<C>) {
        loop([](C x, C y) { return integerRemainder(x, y); });
      } else {
        loop([](C x, C y) { return C(std::fmod(x, y)); });
      }
      break;
    case BinaryOpType::EQUAL: loop([](C x, C y) { return x == y; }); break;
    case BinaryOpType::NOT_EQUAL: loop([](C x, C y) { return x != y; }); break;
    case BinaryOpType::LESS_THAN: loop([](C x, C y) { return x < y; }); break;
    case BinaryOpType::LESS_THAN_EQUAL:
      loop([](C x, C y) { return x <= y; }); break;
    case BinaryOpType::GREATER_THAN: loop([](C x, C y) { return x > y; }); break;
    case BinaryOpType::GREATER_THAN_EQUAL:
      loop([](C x, C y) { return x >= y; }); break;
    case BinaryOpType::LOGICAL_AND:
      loop([](C x, C y) { return bool(x) && bool(y); }); break;
    case BinaryOpType::LOGICAL_OR:
      loop([](C x, C y) { return bool(x) || bool(y); }); break;
    case BinaryOpType::RELU_GRAD:
      loop([](C out, C g) { return out > C(0) ? g : C(0); }); break;
    case BinaryOpType::SIGMOID_GRAD:
      loop([](C out, C g) { return C(g * out * (C(1) - out)); }); break;
    case BinaryOpType::TANH_GRAD:
      loop([](C out, C g) { return C(g * (C(1) - out * out)); }); break;
  }
}

}  // namespace internal
}  // namespace popops
}  // namespace poplar_sim

#endif  // POPLAR_SIM_POPOPS_EXPR_TYPES_H_
