// Tensor::DebugString: prints values the way numpy's str() does, because
// users compare our output with what their Python programs printed.
//
// Floats follow numpy's default "maxprec" mode with precision 8: each value
// gets its shortest round-trip digits (at most 8 after the point), then all
// values are padded to a common layout (`[ 1.5 10. ]`). Scientific notation
// is used when the largest magnitude is >= 1e8, the smallest non-zero is
// < 1e-4, or their ratio exceeds 1000. Lines wrap at 75 columns and arrays of
// more than 1000 elements are summarised with "...", as numpy does.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/core/tensor.h"

namespace tensorflow_ipu {
namespace {

constexpr int kPrecision = 8;
constexpr int kLineWidth = 75;
constexpr int64_t kSummariseThreshold = 1000;
constexpr int kEdgeItems = 3;

// Shortest decimal digits that read back as the same value of type T, in
// "%g"-like form from std::to_chars (or a search for half).
template <typename T>
std::string ShortestRepr(T v, std::chars_format fmt) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, fmt);
  return std::string(buf, res.ptr);
}

std::string ShortestHalf(half h, bool scientific) {
  const float v = static_cast<float>(h);
  char buf[64];
  for (int digits = 1; digits <= 6; ++digits) {
    std::snprintf(buf, sizeof(buf), scientific ? "%.*e" : "%.*g",
                  scientific ? digits - 1 : digits, v);
    if (static_cast<half>(std::strtof(buf, nullptr)) == h) break;
  }
  if (scientific) return buf;
  // Re-express in positional form with the digits found.
  double parsed = std::strtod(buf, nullptr);
  return ShortestRepr(parsed, std::chars_format::fixed);
}

// One float value split into the parts numpy aligns.
struct FloatParts {
  std::string special;  // "nan", "inf", "-inf" or empty
  std::string int_part;  // with sign, e.g. "-1"
  std::string frac_part;  // digits after the point, may be empty
  std::string exp_part;  // e.g. "e+08" in scientific mode
};

// Splits "digits.digits[e±dd]" into parts, trimming trailing zeros of the
// fraction and limiting it to kPrecision digits.
FloatParts SplitNumber(std::string s, bool scientific, double value) {
  FloatParts p;
  std::string exp;
  if (scientific) {
    auto e = s.find_first_of("eE");
    if (e != std::string::npos) {
      exp = s.substr(e + 1);
      s = s.substr(0, e);
    }
    int expv = exp.empty() ? 0 : std::stoi(exp);
    p.exp_part = absl::StrCat("e", expv < 0 ? "-" : "+",
                              std::abs(expv) < 10 ? "0" : "", std::abs(expv));
  }
  auto dot = s.find('.');
  p.int_part = dot == std::string::npos ? s : s.substr(0, dot);
  p.frac_part = dot == std::string::npos ? "" : s.substr(dot + 1);
  if (static_cast<int>(p.frac_part.size()) > kPrecision) {
    char buf[64];
    if (scientific) {
      std::snprintf(buf, sizeof(buf), "%.*e", kPrecision, value);
      return SplitNumber(buf, true, value);
    }
    std::snprintf(buf, sizeof(buf), "%.*f", kPrecision, value);
    std::string r = buf;
    dot = r.find('.');
    p.int_part = r.substr(0, dot);
    p.frac_part = r.substr(dot + 1);
  }
  while (!p.frac_part.empty() && p.frac_part.back() == '0') {
    p.frac_part.pop_back();
  }
  return p;
}

template <typename T>
FloatParts FormatFloat(T v, bool scientific) {
  const double d = static_cast<double>(v);
  FloatParts p;
  if (std::isnan(d)) {
    p.special = "nan";
    return p;
  }
  if (std::isinf(d)) {
    p.special = d < 0 ? "-inf" : "inf";
    return p;
  }
  std::string s;
  if constexpr (std::is_same_v<T, half>) {
    s = ShortestHalf(v, scientific);
  } else {
    s = ShortestRepr(v, scientific ? std::chars_format::scientific
                                   : std::chars_format::fixed);
  }
  return SplitNumber(s, scientific, d);
}

// Formats every element of a flat array into same-width strings.
template <typename T>
std::vector<std::string> FormatElements(const std::vector<T>& values) {
  std::vector<std::string> out;
  out.reserve(values.size());
  if constexpr (std::is_same_v<T, bool>) {
    for (bool b : values) out.push_back(b ? " True" : "False");
    return out;
  } else if constexpr (std::is_integral_v<T>) {
    size_t width = 0;
    for (T v : values) {
      out.push_back(absl::StrCat(static_cast<int64_t>(v)));
      width = std::max(width, out.back().size());
    }
    for (auto& s : out) s.insert(0, width - s.size(), ' ');
    return out;
  } else {
    double max_abs = 0, min_abs = 0;
    bool any = false;
    for (T v : values) {
      double a = std::fabs(static_cast<double>(v));
      if (!std::isfinite(a) || a == 0) continue;
      max_abs = any ? std::max(max_abs, a) : a;
      min_abs = any ? std::min(min_abs, a) : a;
      any = true;
    }
    const bool scientific =
        any && (max_abs >= 1e8 || min_abs < 1e-4 || max_abs / min_abs > 1e3);
    std::vector<FloatParts> parts;
    size_t pad_left = 0, pad_right = 0, exp_width = 0;
    for (T v : values) {
      parts.push_back(FormatFloat(v, scientific));
      const FloatParts& p = parts.back();
      if (!p.special.empty()) continue;
      pad_left = std::max(pad_left, p.int_part.size());
      pad_right = std::max(pad_right, p.frac_part.size());
      exp_width = std::max(exp_width, p.exp_part.size());
    }
    // As numpy: non-finite values widen the integer part so that "nan",
    // "inf" and "-inf" fit the common width.
    bool any_special = false, neg_inf = false;
    for (const FloatParts& p : parts) {
      any_special |= !p.special.empty();
      neg_inf |= p.special == "-inf";
    }
    if (any_special && !scientific) {
      const size_t offset = pad_right + 1;
      const size_t needed = 3 + (neg_inf ? 1 : 0);
      if (needed > offset) pad_left = std::max(pad_left, needed - offset);
    }
    for (const FloatParts& p : parts) {
      size_t width = pad_left + 1 + pad_right + exp_width;
      std::string s;
      if (!p.special.empty()) {
        s = p.special;
        if (s.size() < width) s.insert(0, width - s.size(), ' ');
      } else {
        s = std::string(pad_left - p.int_part.size(), ' ') + p.int_part + "." +
            p.frac_part;
        if (scientific) {
          s += std::string(pad_right - p.frac_part.size(), '0') + p.exp_part;
        } else {
          s += std::string(pad_right - p.frac_part.size(), ' ');
        }
      }
      out.push_back(std::move(s));
    }
    return out;
  }
}

// Recursively lays out the (possibly summarised) array with numpy's
// brackets, separators, line wrapping and blank lines between blocks.
class ArrayPrinter {
 public:
  ArrayPrinter(const TensorShape& shape, const std::vector<std::string>& words,
               bool summarise)
      : shape_(shape), words_(words), summarise_(summarise) {
    strides_.assign(shape.dims(), 1);
    for (int i = shape.dims() - 2; i >= 0; --i) {
      strides_[i] = strides_[i + 1] * shape.dim_size(i + 1);
    }
  }

  std::string Print() {
    std::string out;
    Recurse(0, 0, " ", &out);
    return out;
  }

 private:
  // Indices of axis `axis` that are printed; -1 stands for "...".
  std::vector<int64_t> Indices(int axis) const {
    const int64_t n = shape_.dim_size(axis);
    std::vector<int64_t> idx;
    if (summarise_ && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  // `indent` is the prefix of continuation lines at this depth.
  void Recurse(int axis, int64_t offset, const std::string& indent,
               std::string* out) {
    const int rank = shape_.dims();
    std::vector<int64_t> idx = Indices(axis);
    if (axis == rank - 1) {
      std::string line = "[";
      std::string result;
      for (size_t k = 0; k < idx.size(); ++k) {
        std::string word = idx[k] < 0 ? "..." : words_[offset + idx[k]];
        const bool last = k + 1 == idx.size();
        std::string sep = last ? "" : " ";
        // numpy reserves room for the closing bracket on the last word.
        size_t limit = kLineWidth - (last ? 1 : 0);
        if (line.size() + word.size() > limit && line.size() > 1) {
          result += StripRight(line) + "\n";
          line = indent;
        }
        line += word + sep;
      }
      result += line + "]";
      *out += result;
      return;
    }
    *out += "[";
    const std::string blank_lines(rank - axis - 2, '\n');
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k > 0) *out += "\n" + blank_lines + indent;
      if (idx[k] < 0) {
        *out += "...";
        continue;
      }
      Recurse(axis + 1, offset + idx[k] * strides_[axis], indent + " ", out);
    }
    *out += "]";
  }

  static std::string StripRight(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }

  const TensorShape& shape_;
  const std::vector<std::string>& words_;
  bool summarise_;
  std::vector<int64_t> strides_;
};

// The positions (in row-major order) that a summarised print shows.
bool IsShown(const TensorShape& shape, int64_t flat_index, bool summarise) {
  if (!summarise) return true;
  for (int axis = shape.dims() - 1; axis >= 0; --axis) {
    const int64_t n = shape.dim_size(axis);
    const int64_t i = flat_index % n;
    flat_index /= n;
    if (n > 2 * kEdgeItems && i >= kEdgeItems && i < n - kEdgeItems) {
      return false;
    }
  }
  return true;
}

template <typename T>
std::string FormatScalar(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    return absl::StrCat(static_cast<int64_t>(v));
  } else {
    // numpy prints a float scalar as Python's repr: "3.0", "0.1", "1e+20".
    const double d = static_cast<double>(v);
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    const double a = std::fabs(d);
    const bool scientific = a != 0 && (a >= 1e16 || a < 1e-4);
    std::string s;
    if constexpr (std::is_same_v<T, half>) {
      s = ShortestHalf(v, scientific);
    } else {
      s = ShortestRepr(v, scientific ? std::chars_format::scientific
                                     : std::chars_format::fixed);
    }
    if (!scientific && s.find('.') == std::string::npos) s += ".0";
    return s;
  }
}

template <typename T>
std::string FormatTensor(const Tensor& t) {
  absl::Span<const T> values = t.values<T>();
  if (t.dims() == 0) return FormatScalar<T>(values[0]);
  if (t.NumElements() == 0) return "[]";
  const bool summarise = t.NumElements() > kSummariseThreshold;
  // Summarised arrays are padded to the width of the shown values only.
  std::vector<T> shown;
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (IsShown(t.shape(), i, summarise)) {
      shown.push_back(values[i]);
      positions.push_back(i);
    }
  }
  std::vector<std::string> formatted =
      FormatElements<T>(shown);
  std::vector<std::string> words(summarise ? t.NumElements() : 0);
  if (summarise) {
    for (size_t k = 0; k < positions.size(); ++k) {
      words[positions[k]] = std::move(formatted[k]);
    }
  }
  ArrayPrinter printer(t.shape(), summarise ? words : formatted, summarise);
  return printer.Print();
}

// numpy's repr of a bytes element: b'abc', with \\, \' and non-printable
// bytes escaped.
std::string BytesRepr(const std::string& s) {
  std::string out = "b'";
  for (unsigned char c : s) {
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out + "'";
}

std::string FormatStrings(const Tensor& t) {
  absl::Span<const std::string> values = t.values<std::string>();
  if (t.dims() == 0) return BytesRepr(values[0]);
  if (t.NumElements() == 0) return "[]";
  const bool summarise = t.NumElements() > kSummariseThreshold;
  std::vector<std::string> words(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (IsShown(t.shape(), i, summarise)) words[i] = BytesRepr(values[i]);
  }
  ArrayPrinter printer(t.shape(), words, summarise);
  return printer.Print();
}

}  // namespace

std::string Tensor::DebugString() const {
  if (!IsInitialized()) return "<uninitialized tensor>";
  if (dtype_ == DT_RESOURCE) return "<resource handle>";
  if (dtype_ == DT_STRING) return FormatStrings(*this);
  std::string result;
  absl::Status s = SwitchOnType(dtype_, [&](auto tag) {
    result = FormatTensor<decltype(tag)>(*this);
    return absl::OkStatus();
  });
  if (!s.ok()) return absl::StrCat("<", s.message(), ">");
  return result;
}

}  // namespace tensorflow_ipu
