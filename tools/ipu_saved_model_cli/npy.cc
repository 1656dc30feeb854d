#include "tools/ipu_saved_model_cli/npy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"

// The element bytes are copied as they are: the format's '<' is the host's
// order on every machine the project builds for.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "npy.cc assumes a little-endian host");

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kArrayAlign = 64;
// numpy.save leaves room to grow the first axis in place: the header gets
// this many characters minus the digits of shape[0] as extra spaces.
constexpr size_t kGrowthAxisMaxDigits = 21;

struct TypeCode {
  const char* code;  // the descr without its byte-order character
  DataType dtype;
};
constexpr TypeCode kTypeCodes[] = {
    {"f2", DT_HALF}, {"f4", DT_FLOAT}, {"f8", DT_DOUBLE}, {"i4", DT_INT32},
    {"i8", DT_INT64}, {"u1", DT_UINT8}, {"b1", DT_BOOL},
};

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// A reader of the header's Python dict literal: strings, True/False and
// tuples of non-negative ints, nothing else. numpy reads it with
// ast.literal_eval; these are all the values a .npy header of a plain
// array holds.
class HeaderParser {
 public:
  HeaderParser(absl::string_view text, absl::string_view file) : text_(text), file_(file) {}

  absl::StatusOr<Header> Parse() {
    Header h;
    bool has_descr = false, has_order = false, has_shape = false;
    SkipSpace();
    if (!Eat('{')) return Error("is not a dict");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      ASSIGN_OR_RETURN(std::string key, ParseString());
      SkipSpace();
      if (!Eat(':')) return Error(absl::StrCat("has no ':' after the key '", key, "'"));
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') {
          return absl::UnimplementedError(absl::StrCat(
              file_, ": the array has a structured dtype (a record of fields); only plain "
                     "arrays of numbers or bools can be read: save one array per field"));
        }
        ASSIGN_OR_RETURN(h.descr, ParseString());
        has_descr = true;
      } else if (key == "fortran_order") {
        ASSIGN_OR_RETURN(h.fortran_order, ParseBool());
        has_order = true;
      } else if (key == "shape") {
        ASSIGN_OR_RETURN(h.shape, ParseShape());
        has_shape = true;
      } else {
        return Error(absl::StrCat("has the unknown key '", key,
                                  "' (a .npy header has 'descr', 'fortran_order' and 'shape')"));
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Error(absl::StrCat("has an unexpected character at offset ", pos_));
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      return Error(absl::StrCat("has text after the dict at offset ", pos_));
    }
    if (!has_descr || !has_order || !has_shape) {
      return Error("lacks one of the keys 'descr', 'fortran_order' and 'shape'");
    }
    return h;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(file_, ": the .npy header ", what, "; the file is not one numpy.save wrote"));
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  absl::StatusOr<std::string> ParseString() {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') {
      return Error(absl::StrCat("has a non-string where a string belongs, at offset ", pos_));
    }
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == absl::string_view::npos) return Error("has an unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }
  absl::StatusOr<bool> ParseBool() {
    if (absl::StartsWith(text_.substr(pos_), "True")) {
      pos_ += 4;
      return true;
    }
    if (absl::StartsWith(text_.substr(pos_), "False")) {
      pos_ += 5;
      return false;
    }
    return Error("has a 'fortran_order' that is neither True nor False");
  }
  absl::StatusOr<std::vector<int64_t>> ParseShape() {
    std::vector<int64_t> shape;
    if (!Eat('(')) return Error("has a 'shape' that is not a tuple");
    while (true) {
      SkipSpace();
      if (Eat(')')) return shape;
      const size_t start = pos_;
      while (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
      int64_t dim;
      if (start == pos_ || !absl::SimpleAtoi(text_.substr(start, pos_ - start), &dim)) {
        return Error(absl::StrCat("has a 'shape' entry that is not a non-negative int below 2^63, "
                                  "at offset ", start));
      }
      Eat('L');  // Python 2 wrote longs as 3L.
      shape.push_back(dim);
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat(')')) return shape;
      return Error(absl::StrCat("has a 'shape' tuple with an unexpected character at offset ",
                                pos_));
    }
  }

  absl::string_view text_;
  absl::string_view file_;
  size_t pos_ = 0;
};

std::string ShapeRepr(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

uint32_t ReadLittleEndian(absl::string_view bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return v;
}

// Reorders Fortran-ordered (first index fastest) elements into row-major
// order, element by element.
void FortranToRowMajor(const char* src, char* dst, const std::vector<int64_t>& shape,
                       int64_t count, size_t item) {
  const size_t rank = shape.size();
  std::vector<int64_t> fstride(rank, 1), index(rank, 0);
  for (size_t k = 1; k < rank; ++k) fstride[k] = fstride[k - 1] * shape[k - 1];
  int64_t offset = 0;  // Fortran offset of `index`
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * item, src + offset * item, item);
    for (size_t k = rank; k-- > 0;) {  // the last index is the fastest in row-major order
      if (++index[k] < shape[k]) {
        offset += fstride[k];
        break;
      }
      offset -= (shape[k] - 1) * fstride[k];
      index[k] = 0;
    }
  }
}

}  // namespace

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view file) {
  if (bytes.size() < kMagicLen || bytes.substr(0, kMagicLen) != absl::string_view(kMagic, kMagicLen)) {
    if (absl::StartsWith(bytes, "PK\x03\x04")) {
      return absl::UnimplementedError(absl::StrCat(
          file, " is a .npz archive (a zip of .npy files); reading .npz needs a zip reader, "
                "which this build does not have: save each array with numpy.save as a .npy file"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        file, " is not a .npy file: it does not start with the magic \\x93NUMPY"));
  }
  if (bytes.size() < kMagicLen + 2) {
    return absl::DataLossError(absl::StrCat(file, " is cut short inside its .npy version"));
  }
  const int major = static_cast<uint8_t>(bytes[kMagicLen]);
  const int minor = static_cast<uint8_t>(bytes[kMagicLen + 1]);
  if (minor != 0 || major < 1 || major > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, " has .npy format version ", major, ".", minor, "; known versions are 1.0, 2.0, 3.0"));
  }
  const size_t len_size = major == 1 ? 2 : 4;
  const size_t prefix = kMagicLen + 2 + len_size;
  if (bytes.size() < prefix) {
    return absl::DataLossError(absl::StrCat(file, " is cut short inside its .npy header length"));
  }
  const uint64_t header_len = ReadLittleEndian(bytes.substr(kMagicLen + 2, len_size));
  if (header_len > bytes.size() - prefix) {
    return absl::DataLossError(absl::StrCat(file, " is cut short: its .npy header announces ",
                                            header_len, " bytes but the file has ",
                                            bytes.size() - prefix, " after the header length"));
  }
  ASSIGN_OR_RETURN(Header h, HeaderParser(bytes.substr(prefix, header_len), file).Parse());

  // The element type.
  const char order = h.descr.empty() ? '\0' : h.descr[0];
  const std::string code = h.descr.size() > 1 ? h.descr.substr(1) : "";
  std::optional<DataType> dtype;
  for (const TypeCode& t : kTypeCodes) {
    if (code == t.code) dtype = t.dtype;
  }
  if (!dtype.has_value() || (order != '<' && order != '>' && order != '=' && order != '|')) {
    return absl::UnimplementedError(absl::StrCat(
        file, " holds elements of dtype '", h.descr,
        "', which cannot be fed; supported: f2 f4 f8 i4 i8 u1 b1 (e.g. '<f4'): convert the "
        "array with .astype() before saving it"));
  }
  const size_t item = DataTypeSize(*dtype);
  const bool swap = order == '>' && item > 1;

  // The element count, checked against the bytes before anything is
  // allocated, so a header cannot ask for more memory than the file holds.
  int64_t count = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && count > INT64_MAX / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ": the .npy shape ", ShapeRepr(h.shape), " has more elements than 2^63"));
    }
    count *= d;
  }
  const absl::string_view data = bytes.substr(prefix + header_len);
  if (count > static_cast<int64_t>(INT64_MAX / item) ||
      static_cast<uint64_t>(count) * item != data.size()) {
    return absl::DataLossError(absl::StrCat(
        file, " holds ", data.size(), " bytes of data, but shape ", ShapeRepr(h.shape), " of '",
        h.descr, "' needs ", count, " elements of ", item,
        " bytes: the file is cut short or damaged"));
  }
  // Only an empty array gets here with a shape a Tensor cannot hold, such
  // as (2^40, 0): numpy makes it, but TensorShape refuses dimensions that
  // multiply to more than 2^38 before the 0.
  if (!TensorShape::FromDims(h.shape).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": the .npy shape ", ShapeRepr(h.shape), " is empty, but its dimensions before "
        "the 0 multiply to more than 2^38, which a tensor's shape cannot hold: save the array "
        "with a smaller shape"));
  }
  absl::StatusOr<Tensor> created = Tensor::Create(*dtype, TensorShape(h.shape));
  if (!created.ok()) {
    return absl::Status(created.status().code(),
                        absl::StrCat(file, ": ", created.status().message()));
  }
  Tensor t = *std::move(created);
  char* out = static_cast<char*>(t.raw_data());
  if (h.fortran_order && h.shape.size() > 1) {
    FortranToRowMajor(data.data(), out, h.shape, count, item);
  } else if (count > 0) {
    std::memcpy(out, data.data(), data.size());
  }
  if (swap) {
    for (int64_t i = 0; i < count; ++i) std::reverse(out + i * item, out + (i + 1) * item);
  }
  if (*dtype == DT_BOOL) {
    for (int64_t i = 0; i < count; ++i) {
      const uint8_t b = static_cast<uint8_t>(out[i]);
      if (b > 1) {
        return absl::DataLossError(absl::StrCat(file, ": bool element ", i, " has the byte ",
                                                b, ", which is neither 0 nor 1"));
      }
    }
  }
  return t;
}

absl::StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the input file ", path, " is a directory; give the path of a .npy file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open the input file ", path,
                                            ": check the path given to --inputs"));
  }
  std::ostringstream s;
  s << in.rdbuf();
  return ParseNpy(s.str(), path);
}

bool NpyCanWrite(DataType dtype) {
  for (const TypeCode& t : kTypeCodes) {
    if (t.dtype == dtype) return true;
  }
  return false;
}

absl::StatusOr<std::string> EncodeNpy(const Tensor& tensor) {
  const char* descr = nullptr;
  for (const TypeCode& t : kTypeCodes) {
    if (t.dtype == tensor.dtype()) descr = t.code;
  }
  if (descr == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "a tensor of type ", DataTypeString(tensor.dtype()),
        " cannot be written as .npy; supported: half, float, double, int32, int64, uint8, bool"));
  }
  const char order = DataTypeSize(tensor.dtype()) == 1 ? '|' : '<';
  std::vector<int64_t> shape;
  for (int i = 0; i < tensor.dims(); ++i) shape.push_back(tensor.dim_size(i));
  std::string header = absl::StrCat("{'descr': '", std::string(1, order), descr,
                                    "', 'fortran_order': False, 'shape': ", ShapeRepr(shape),
                                    ", }");
  if (!shape.empty()) {
    const size_t digits = absl::StrCat(shape[0]).size();
    header.append(kGrowthAxisMaxDigits - std::min(digits, kGrowthAxisMaxDigits), ' ');
  }
  // Version 1.0 has a 2-byte length; numpy moves to 2.0 only when it is
  // too small.
  size_t hlen = header.size() + 1;  // with the final '\n'
  int major = 1;
  size_t pad = kArrayAlign - (kMagicLen + 2 + 2 + hlen) % kArrayAlign;
  if (hlen + pad > 0xffff) {
    major = 2;
    pad = kArrayAlign - (kMagicLen + 2 + 4 + hlen) % kArrayAlign;
  }
  const uint32_t total = static_cast<uint32_t>(hlen + pad);
  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) {
    out.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
  }
  out += header;
  out.append(pad, ' ');
  out.push_back('\n');
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes());
  return out;
}

absl::Status WriteNpyFile(const std::string& path, const Tensor& tensor) {
  ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(tensor));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return absl::PermissionDeniedError(absl::StrCat("cannot write ", path,
                                                    ": check that its directory is writable"));
  }
  return absl::OkStatus();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
