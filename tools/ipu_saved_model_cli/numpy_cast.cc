#include "tools/ipu_saved_model_cli/numpy_cast.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, half>;

// One element from `From` to `To`; false if numpy would not give back the
// value (see the header).
template <typename To, typename From>
bool CastOne(From v, To* out) {
  if constexpr (std::is_same_v<To, bool>) {
    *out = static_cast<double>(v) != 0;
  } else if constexpr (kIsFloat<To> && !std::is_same_v<To, double>) {
    // float and half: out of float's range numpy gives +-inf; a plain
    // conversion of such a double would be undefined behaviour.
    const double d = static_cast<double>(v);
    float f;
    if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
      f = d > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    } else {
      f = static_cast<float>(d);
    }
    *out = static_cast<To>(f);
  } else if constexpr (kIsFloat<To>) {
    *out = static_cast<double>(v);
  } else if constexpr (kIsFloat<From>) {
    // The range check is on the truncated value, in double, where the
    // bounds -2^31, 2^31, -2^63, 2^63, 0 and 256 are exact.
    const double t = std::trunc(static_cast<double>(v));
    const double lo = static_cast<double>(std::numeric_limits<To>::min());
    const double hi = std::ldexp(1.0, std::numeric_limits<To>::digits);
    if (!std::isfinite(t) || t < lo || t >= hi) return false;
    *out = static_cast<To>(t);
  } else {
    // Integer (or bool) to integer; To is never 64-bit unsigned.
    const int64_t i = static_cast<int64_t>(v);
    if (i < static_cast<int64_t>(std::numeric_limits<To>::min()) ||
        i > static_cast<int64_t>(std::numeric_limits<To>::max())) {
      return false;
    }
    *out = static_cast<To>(i);
  }
  return true;
}

template <typename T>
std::string ElementString(T v) {
  if constexpr (kIsFloat<T>) {
    return absl::StrCat(static_cast<double>(v));
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}

}  // namespace

absl::StatusOr<Tensor> CastLikeNumpy(const Tensor& tensor, DataType to, absl::string_view what) {
  if (tensor.dtype() == to) return tensor;
  if (tensor.dtype() == DT_STRING || to == DT_STRING) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has type ", DataTypeString(tensor.dtype()), " but ", DataTypeString(to),
        " is needed; strings and numbers do not convert"));
  }
  ASSIGN_OR_RETURN(Tensor out, Tensor::Create(to, tensor.shape()));
  absl::Status status = absl::OkStatus();
  RETURN_IF_ERROR(SwitchOnType(tensor.dtype(), [&](auto from_tag) -> absl::Status {
    using From = decltype(from_tag);
    return SwitchOnType(to, [&](auto to_tag) -> absl::Status {
      using To = decltype(to_tag);
      const From* src = tensor.data<From>();
      To* dst = out.data<To>();
      for (int64_t i = 0; i < tensor.NumElements(); ++i) {
        if (!CastOne<To, From>(src[i], &dst[i])) {
          return absl::InvalidArgumentError(absl::StrCat(
              what, ": element ", i, " (", ElementString(src[i]),
              ") does not fit ", DataTypeString(to), ", the type it is fed as; give values in ",
              DataTypeString(to), "'s range"));
        }
      }
      return absl::OkStatus();
    });
  }));
  return out;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
