#include "tools/ipu_saved_model_cli/input_exprs.h"

#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/numpy_cast.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

constexpr char kWhatIsAllowed[] =
    "an expression is a number, True, False, a list or tuple of those, np.ones(shape), "
    "np.zeros(shape) or np.array(value), with an optional dtype";

enum class TokenKind { kEnd, kNumber, kName, kString, kPunct };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  size_t pos = 0;
};

// One literal scalar; numpy's inference ranks bool < int64 < float64.
enum class ScalarKind { kBool = 0, kInt = 1, kFloat = 2 };
struct Scalar {
  ScalarKind kind;
  int64_t i = 0;  // kBool and kInt
  double d = 0;   // kFloat
};

// A rectangular nest of literal scalars, row-major.
struct Literal {
  std::vector<int64_t> shape;
  std::vector<Scalar> values;
  // The numbers' kind, as numpy infers it; an empty literal is float64.
  ScalarKind Kind() const {
    ScalarKind k = ScalarKind::kBool;
    for (const Scalar& s : values) k = std::max(k, s.kind);
    return values.empty() ? ScalarKind::kFloat : k;
  }
};

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<Token>> Tokens() {
    std::vector<Token> tokens;
    while (true) {
      while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      }
      Token t;
      t.pos = pos_;
      if (pos_ == text_.size()) {
        tokens.push_back(t);
        return tokens;
      }
      const char c = text_[pos_];
      if (absl::ascii_isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && pos_ + 1 < text_.size() &&
           absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
        t.kind = TokenKind::kNumber;
        t.text = Number();
        // Python refuses "095" (an integer with a leading zero and more
        // digits), though "00", "0.5" and "01.5" are numbers.
        if (t.text.size() > 1 && t.text[0] == '0' &&
            t.text.find_first_not_of("0123456789") == std::string::npos &&
            t.text.find_first_not_of('0') != std::string::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              "at position ", t.pos, ": leading zeros in decimal integer literals are not "
              "permitted (", t.text, "); write the number without them"));
        }
      } else if (absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.kind = TokenKind::kName;
        const size_t start = pos_;
        while (pos_ < text_.size() && (absl::ascii_isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                       text_[pos_] == '_')) {
          ++pos_;
        }
        t.text = std::string(text_.substr(start, pos_ - start));
      } else if (c == '\'' || c == '"') {
        const size_t end = text_.find(c, pos_ + 1);
        if (end == absl::string_view::npos) {
          return absl::InvalidArgumentError(
              absl::StrCat("at position ", pos_, ": the string is not closed"));
        }
        t.kind = TokenKind::kString;
        t.text = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
      } else if (absl::string_view("()[],=.+-").find(c) != absl::string_view::npos) {
        t.kind = TokenKind::kPunct;
        t.text = std::string(1, c);
        ++pos_;
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "at position ", pos_, ": the character '", std::string(1, c), "' is not allowed; ",
            kWhatIsAllowed));
      }
      tokens.push_back(std::move(t));
    }
  }

 private:
  bool Digit() const {
    return pos_ < text_.size() && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]));
  }
  // digits [. digits] [(e|E) [+-] digits], as Python writes numbers.
  std::string Number() {
    const size_t start = pos_;
    while (Digit()) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (Digit()) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      const size_t mark = pos_;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!Digit()) {
        pos_ = mark;  // "1e" alone: the 'e' is left for the parser to refuse.
      } else {
        while (Digit()) ++pos_;
      }
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<Tensor> ParseAll() {
    ASSIGN_OR_RETURN(Tensor t, ParseExpr());
    if (Peek().kind != TokenKind::kEnd) return Unexpected("after the expression");
    return t;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(next_ + ahead, tokens_.size() - 1)];
  }
  const Token& Take() {
    const Token& t = Peek();
    if (next_ < tokens_.size() - 1) ++next_;
    return t;
  }
  bool IsPunct(const char* p, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kPunct && Peek(ahead).text == p;
  }
  absl::Status Expect(const char* p) {
    if (!IsPunct(p)) return Unexpected(absl::StrCat("where '", p, "' belongs"));
    Take();
    return absl::OkStatus();
  }
  absl::Status Unexpected(absl::string_view where) const {
    const Token& t = Peek();
    if (t.kind == TokenKind::kEnd) {
      return absl::InvalidArgumentError(
          absl::StrCat("at position ", t.pos, ": the expression ends ", where));
    }
    const std::string what = t.kind == TokenKind::kName ? absl::StrCat("the name '", t.text, "'")
                                                        : absl::StrCat("'", t.text, "'");
    return absl::InvalidArgumentError(absl::StrCat("at position ", t.pos, ": ", what,
                                                   " is not allowed ", where, "; ",
                                                   kWhatIsAllowed));
  }
  bool AtNumpyCall() const {
    return Peek().kind == TokenKind::kName && (Peek().text == "np" || Peek().text == "numpy") &&
           IsPunct(".", 1);
  }

  absl::StatusOr<Tensor> ParseExpr() {
    if (AtNumpyCall()) return ParseCall();
    ASSIGN_OR_RETURN(Literal lit, ParseLiteral(0));
    return ToTensor(lit);
  }

  absl::StatusOr<Literal> ParseLiteral(int depth) {
    const Token& t = Peek();
    if (IsPunct("[") || IsPunct("(")) {
      const bool tuple = IsPunct("(");
      const char* close = tuple ? ")" : "]";
      if (depth >= kMaxInputExprDepth) {
        return absl::InvalidArgumentError(absl::StrCat(
            "at position ", t.pos, ": lists nest deeper than ", kMaxInputExprDepth,
            " levels, numpy's limit of dimensions"));
      }
      Take();
      std::vector<Literal> items;
      bool comma = false;
      while (!IsPunct(close)) {
        const size_t item_pos = Peek().pos;
        ASSIGN_OR_RETURN(Literal item, ParseLiteral(depth + 1));
        if (!items.empty() && item.shape != items[0].shape) {
          return absl::InvalidArgumentError(absl::StrCat(
              "at position ", item_pos, ": the list is ragged: this element has shape (",
              absl::StrJoin(item.shape, ", "), ") but the first has (",
              absl::StrJoin(items[0].shape, ", "), "); every element of a list must have the "
              "same shape"));
        }
        items.push_back(std::move(item));
        if (IsPunct(",")) {
          Take();
          comma = true;
        } else if (!IsPunct(close)) {
          return Unexpected(absl::StrCat("inside a list, where ',' or '", close, "' belongs"));
        }
      }
      Take();
      // (x) is x itself; (x,) and [x] are sequences.
      if (tuple && items.size() == 1 && !comma) return items[0];
      Literal lit;
      lit.shape.push_back(static_cast<int64_t>(items.size()));
      if (!items.empty()) {
        lit.shape.insert(lit.shape.end(), items[0].shape.begin(), items[0].shape.end());
      }
      for (Literal& item : items) {
        lit.values.insert(lit.values.end(), item.values.begin(), item.values.end());
      }
      return lit;
    }
    ASSIGN_OR_RETURN(Scalar s, ParseScalar());
    Literal lit;
    lit.values.push_back(s);
    return lit;
  }

  absl::StatusOr<Scalar> ParseScalar() {
    bool negative = false;
    if (IsPunct("-") || IsPunct("+")) {
      negative = Take().text == "-";
      if (Peek().kind != TokenKind::kNumber) return Unexpected("after a sign");
    }
    const Token& t = Peek();
    if (t.kind == TokenKind::kName && (t.text == "True" || t.text == "False") && !negative) {
      Take();
      return Scalar{ScalarKind::kBool, t.text == "True" ? 1 : 0, 0};
    }
    if (t.kind != TokenKind::kNumber) return Unexpected("where a number belongs");
    Take();
    const std::string text = (negative ? "-" : "") + t.text;
    if (t.text.find_first_of(".eE") == std::string::npos) {
      int64_t i;
      if (!absl::SimpleAtoi(text, &i)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "at position ", t.pos, ": the integer ", text,
            " does not fit int64; write it as a float (", text, ".0)"));
      }
      return Scalar{ScalarKind::kInt, i, 0};
    }
    double d;
    if (!absl::SimpleAtod(text, &d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("at position ", t.pos, ": '", text, "' is not a number"));
    }
    return Scalar{ScalarKind::kFloat, 0, d};
  }

  absl::StatusOr<Tensor> ToTensor(const Literal& lit) {
    const ScalarKind kind = lit.Kind();
    const DataType dtype = kind == ScalarKind::kFloat ? DT_DOUBLE
                           : kind == ScalarKind::kInt ? DT_INT64
                                                      : DT_BOOL;
    ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, TensorShape(lit.shape)));
    for (size_t i = 0; i < lit.values.size(); ++i) {
      const Scalar& s = lit.values[i];
      if (dtype == DT_DOUBLE) {
        t.data<double>()[i] = s.kind == ScalarKind::kFloat ? s.d : static_cast<double>(s.i);
      } else if (dtype == DT_INT64) {
        t.data<int64_t>()[i] = s.i;
      } else {
        t.data<bool>()[i] = s.i != 0;
      }
    }
    return t;
  }

  // np.ones / np.zeros / np.array, with positional and keyword arguments.
  // np.array's value may itself be a call: the nesting is bounded before
  // recursing, so that np.array(np.array(... 100,000 deep cannot exhaust
  // the stack (it did).
  absl::StatusOr<Tensor> ParseCall() {
    const size_t call_pos = Peek().pos;
    if (call_depth_ >= kMaxInputExprDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "at position ", call_pos, ": np calls nest deeper than ", kMaxInputExprDepth,
          " levels; write the value once, as np.array(value, dtype)"));
    }
    ++call_depth_;
    absl::StatusOr<Tensor> t = ParseCallBody(call_pos);
    --call_depth_;
    return t;
  }

  absl::StatusOr<Tensor> ParseCallBody(size_t call_pos) {
    Take();  // np or numpy
    Take();  // .
    const Token& fn = Peek();
    if (fn.kind != TokenKind::kName ||
        (fn.text != "ones" && fn.text != "zeros" && fn.text != "array")) {
      return Unexpected("after 'np.'");
    }
    const std::string name = Take().text;
    RETURN_IF_ERROR(Expect("("));
    std::optional<Tensor> value;                  // array's object
    std::optional<std::vector<int64_t>> shape;    // ones' and zeros' shape
    std::optional<DataType> dtype;
    int positional = 0;
    while (!IsPunct(")")) {
      std::string keyword;
      if (Peek().kind == TokenKind::kName && IsPunct("=", 1)) {
        keyword = Take().text;
        Take();
      } else if (!keyword.empty() || positional >= 2) {
        return Unexpected(absl::StrCat("as an argument of np.", name));
      } else {
        keyword = positional++ == 0 ? (name == "array" ? "object" : "shape") : "dtype";
      }
      const size_t arg_pos = Peek().pos;
      if (keyword == "dtype" && !dtype.has_value()) {
        ASSIGN_OR_RETURN(dtype, ParseDtype());
      } else if (keyword == "shape" && name != "array" && !shape.has_value()) {
        ASSIGN_OR_RETURN(shape, ParseShape());
      } else if (keyword == "object" && name == "array" && !value.has_value()) {
        ASSIGN_OR_RETURN(value, ParseExpr());
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "at position ", arg_pos, ": np.", name, " takes no argument '", keyword,
            "' here; ", name == "array" ? "np.array(value, dtype=...)" : "np." + name + "(shape, dtype=...)"));
      }
      if (IsPunct(",")) {
        Take();
      } else if (!IsPunct(")")) {
        return Unexpected(absl::StrCat("in the arguments of np.", name));
      }
    }
    Take();
    if (name == "array") {
      if (!value.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("at position ", call_pos, ": np.array needs a value"));
      }
      if (!dtype.has_value()) return *value;
      return CastLikeNumpy(*value, *dtype, absl::StrCat("np.array at position ", call_pos));
    }
    if (!shape.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("at position ", call_pos, ": np.", name, " needs a shape"));
    }
    ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype.value_or(DT_DOUBLE), TensorShape(*shape)));
    const double fill = name == "ones" ? 1.0 : 0.0;
    RETURN_IF_ERROR(SwitchOnType(t.dtype(), [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      std::fill(t.data<T>(), t.data<T>() + t.NumElements(), static_cast<T>(fill));
      return absl::OkStatus();
    }));
    return t;
  }

  absl::StatusOr<std::vector<int64_t>> ParseShape() {
    const size_t pos = Peek().pos;
    ASSIGN_OR_RETURN(Literal lit, ParseLiteral(kMaxInputExprDepth - 1));
    if (lit.shape.size() > 1 || (!lit.values.empty() && lit.Kind() != ScalarKind::kInt)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "at position ", pos, ": a shape is an int or a tuple of ints, such as (2, 3)"));
    }
    // numpy's limit on dimensions, as for nested lists: a shape tuple of
    // 33 ints is short text, and was accepted.
    if (lit.values.size() > static_cast<size_t>(kMaxInputExprDepth)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "at position ", pos, ": the shape has ", lit.values.size(), " dimensions, more than ",
          kMaxInputExprDepth, ", numpy's limit of dimensions"));
    }
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (const Scalar& s : lit.values) {
      if (s.i < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "at position ", pos, ": the shape has the negative dimension ", s.i));
      }
      if (s.i != 0 && count > kMaxInputExprElements / s.i) count = kMaxInputExprElements + 1;
      else count *= s.i;
      shape.push_back(s.i);
    }
    if (count > kMaxInputExprElements) {
      return absl::InvalidArgumentError(absl::StrCat(
          "at position ", pos, ": the shape (", absl::StrJoin(shape, ", "), ") has more than ",
          kMaxInputExprElements, " elements; give a larger input as a .npy file with --inputs"));
    }
    // Only an empty shape gets here with dimensions a Tensor cannot hold,
    // such as (2^40, 0): numpy makes it, but TensorShape refuses
    // dimensions that multiply to more than 2^38 before the 0.
    if (!TensorShape::FromDims(shape).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "at position ", pos, ": the shape (", absl::StrJoin(shape, ", "),
          ") is empty, but its dimensions before the 0 multiply to more than 2^38, which a "
          "tensor's shape cannot hold"));
    }
    return shape;
  }

  absl::StatusOr<DataType> ParseDtype() {
    const Token& t = Peek();
    std::string name;
    if (t.kind == TokenKind::kString) {
      name = Take().text;
    } else if (AtNumpyCall()) {
      Take();
      Take();
      if (Peek().kind != TokenKind::kName) return Unexpected("where a dtype belongs");
      name = Take().text;
    } else if (t.kind == TokenKind::kName &&
               (t.text == "float" || t.text == "int" || t.text == "bool")) {
      name = Take().text;
    } else {
      return Unexpected("where a dtype belongs");
    }
    static const std::pair<const char*, DataType> kDtypes[] = {
        {"float16", DT_HALF},  {"half", DT_HALF},     {"float32", DT_FLOAT},
        {"single", DT_FLOAT},  {"float64", DT_DOUBLE}, {"double", DT_DOUBLE},
        {"float_", DT_DOUBLE}, {"float", DT_DOUBLE},   {"int32", DT_INT32},
        {"int64", DT_INT64},   {"int_", DT_INT64},     {"int", DT_INT64},
        {"uint8", DT_UINT8},   {"bool_", DT_BOOL},     {"bool", DT_BOOL},
    };
    for (const auto& [n, dtype] : kDtypes) {
      if (name == n) return dtype;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "at position ", t.pos, ": the dtype '", name,
        "' is not supported; use float16, float32, float64, int32, int64, uint8 or bool"));
  }

  std::vector<Token> tokens_;
  size_t next_ = 0;
  int call_depth_ = 0;  // np calls being parsed, one inside the other
};

}  // namespace

absl::StatusOr<Tensor> ParseInputExpr(absl::string_view expr) {
  ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer(expr).Tokens());
  if (tokens.size() == 1) {
    return absl::InvalidArgumentError("the expression is empty; " + std::string(kWhatIsAllowed));
  }
  return Parser(std::move(tokens)).ParseAll();
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
