// Integer arithmetic that wraps round (two's complement) for the CPU
// kernels: TensorFlow's integer Add, Sub, Mul, Neg, Square, sums and
// products give the wrapped value on overflow, while in C++ a signed
// overflow is undefined (and a short's product is computed as an int).
// Integers are computed in the unsigned type of their promoted width and
// converted back; floating-point types keep their own operators.
//
//   // An Eigen tensor expression, wrapping for int32 and int64:
//   out.flat<T>() = wrapping::Plus(a.flat<T>(), b.flat<T>());
//   // A reduction: Map(...).reduce(dims, wrapping::SumReducer<T>())
#ifndef TENSORFLOW_IPU_CORE_KERNELS_WRAPPING_ARITHMETIC_H_
#define TENSORFLOW_IPU_CORE_KERNELS_WRAPPING_ARITHMETIC_H_

#include <type_traits>

#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow_ipu {
namespace wrapping {

template <typename T>
inline constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
using Unsigned = std::make_unsigned_t<std::common_type_t<T, unsigned>>;

template <typename T>
T Add(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(Unsigned<T>(a) + Unsigned<T>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T Subtract(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(Unsigned<T>(a) - Unsigned<T>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T Multiply(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(Unsigned<T>(a) * Unsigned<T>(b));
  } else {
    return a * b;
  }
}
template <typename T>
T Negate(T a) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(Unsigned<T>(0) - Unsigned<T>(a));
  } else {
    return -a;
  }
}

// Functors for Eigen's binaryExpr / unaryExpr (scalar only: the integer
// kernels are not the fast path).
template <typename T>
struct AddOp {
  T operator()(const T& a, const T& b) const { return Add(a, b); }
};
template <typename T>
struct SubtractOp {
  T operator()(const T& a, const T& b) const { return Subtract(a, b); }
};
template <typename T>
struct MultiplyOp {
  T operator()(const T& a, const T& b) const { return Multiply(a, b); }
};
template <typename T>
struct NegateOp {
  T operator()(const T& a) const { return Negate(a); }
};
template <typename T>
struct SquareOp {
  T operator()(const T& a) const { return Multiply(a, a); }
};

// The scalar type of an Eigen tensor expression.
template <typename X>
using ScalarOf = std::remove_const_t<typename Eigen::internal::traits<X>::Scalar>;

// a + b, a - b, a * b, -a and a * a of Eigen tensor expressions: Eigen's
// own operators for floating point, the wrapping functors for integers.
template <typename A, typename B>
auto Plus(const A& a, const B& b) {
  if constexpr (kWraps<ScalarOf<A>>) {
    return a.binaryExpr(b, AddOp<ScalarOf<A>>());
  } else {
    return a + b;
  }
}
template <typename A, typename B>
auto Minus(const A& a, const B& b) {
  if constexpr (kWraps<ScalarOf<A>>) {
    return a.binaryExpr(b, SubtractOp<ScalarOf<A>>());
  } else {
    return a - b;
  }
}
template <typename A, typename B>
auto Times(const A& a, const B& b) {
  if constexpr (kWraps<ScalarOf<A>>) {
    return a.binaryExpr(b, MultiplyOp<ScalarOf<A>>());
  } else {
    return a * b;
  }
}
template <typename A>
auto Negated(const A& a) {
  if constexpr (kWraps<ScalarOf<A>>) {
    return a.unaryExpr(NegateOp<ScalarOf<A>>());
  } else {
    return -a;
  }
}
template <typename A>
auto Squared(const A& a) {
  if constexpr (kWraps<ScalarOf<A>>) {
    return a.unaryExpr(SquareOp<ScalarOf<A>>());
  } else {
    return a.square();
  }
}

// Eigen tensor reducers (Tensor::reduce) of integer sums and products that
// wrap round; scalar, as above. For floating point use Eigen's own
// SumReducer and ProdReducer.
template <typename T>
struct SumReducer {
  static constexpr bool PacketAccess = false;
  static constexpr bool IsStateful = false;
  void reduce(const T t, T* accum) const { *accum = Add(*accum, t); }
  T initialize() const { return T(0); }
  T finalize(const T accum) const { return accum; }
};
template <typename T>
struct ProdReducer {
  static constexpr bool PacketAccess = false;
  static constexpr bool IsStateful = false;
  void reduce(const T t, T* accum) const { *accum = Multiply(*accum, t); }
  T initialize() const { return T(1); }
  T finalize(const T accum) const { return accum; }
};

}  // namespace wrapping
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_KERNELS_WRAPPING_ARITHMETIC_H_
