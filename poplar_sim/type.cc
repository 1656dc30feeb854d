#include "poplar_sim/type.h"

#include <cmath>
#include <limits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"

namespace poplar_sim {

size_t typeSize(Type t) {
  return dispatchType(t, [](auto tag) { return sizeof(tag); });
}

std::string typeName(Type t) {
  switch (t) {
    case Type::FLOAT: return "float";
    case Type::HALF: return "half";
    case Type::INT: return "int";
    case Type::UNSIGNED_INT: return "unsigned int";
    case Type::LONGLONG: return "long long";
    case Type::BOOL: return "bool";
    case Type::CHAR: return "char";
    case Type::UNSIGNED_CHAR: return "unsigned char";
  }
  return "?";
}

absl::StatusOr<Type> typeFromName(absl::string_view name) {
  for (Type t : {FLOAT, HALF, INT, UNSIGNED_INT, LONGLONG, BOOL, CHAR,
                 UNSIGNED_CHAR}) {
    if (typeName(t) == name) return t;
  }
  return absl::NotFoundError(absl::StrCat(
      "Unknown element type '", name,
      "'; expected one of float, half, int, unsigned int, long long, bool, "
      "char, unsigned char"));
}

bool isFloatingPoint(Type t) { return t == FLOAT || t == HALF; }
bool isIntegral(Type t) { return !isFloatingPoint(t); }

double loadAsDouble(Type t, const void* data, size_t i) {
  return dispatchType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      // Read as a byte: any nonzero byte is true (loading a byte other than
      // 0 or 1 as a bool is undefined).
      return static_cast<const unsigned char*>(data)[i] != 0 ? 1.0 : 0.0;
    } else {
      return static_cast<double>(static_cast<const T*>(data)[i]);
    }
  });
}

void storeFromDouble(Type t, void* data, size_t i, double v) {
  dispatchType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      static_cast<bool*>(data)[i] = v != 0;
    } else if constexpr (std::is_same_v<T, Eigen::half>) {
      static_cast<T*>(data)[i] = Eigen::half(static_cast<float>(v));
    } else if constexpr (std::is_integral_v<T>) {
      static_cast<T*>(data)[i] = saturatingToInteger<T>(v);
    } else {
      static_cast<T*>(data)[i] = static_cast<T>(v);
    }
    return 0;
  });
}

void convertElements(Type from, const void* src, Type to, void* dst,
                     size_t n) {
  dispatchType(from, [&](auto ftag) {
    using F = decltype(ftag);
    const F* s = static_cast<const F*>(src);
    return dispatchType(to, [&](auto ttag) {
      using T = decltype(ttag);
      T* d = static_cast<T*>(dst);
      for (size_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, bool>) {
          d[i] = static_cast<float>(s[i]) != 0.0f;
        } else if constexpr (std::is_integral_v<T> &&
                             (std::is_floating_point_v<F> ||
                              std::is_same_v<F, Eigen::half>)) {
          d[i] = saturatingToInteger<T>(static_cast<double>(
              static_cast<float>(s[i])));
        } else if constexpr (std::is_same_v<T, Eigen::half> ||
                             std::is_same_v<F, Eigen::half>) {
          d[i] = static_cast<T>(static_cast<float>(s[i]));
        } else {
          d[i] = static_cast<T>(s[i]);
        }
      }
      return 0;
    });
  });
}

}  // namespace poplar_sim
