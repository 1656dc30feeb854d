#include "tools/ipu_saved_model_cli/convert/python_literal.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// Deeper lists are refused before the recursion could exhaust the stack.
constexpr int kMaxDepth = 64;

// A parsed literal: a string, a list, or a scalar the grammar recognises
// only to name its kind in an error (Python's type names).
struct Value {
  std::string kind;  // "str", "list", "int", "float", "bool", "NoneType"
  std::string text;  // of a str
  std::vector<Value> items;  // of a list
};

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view option) : text_(text), option_(option) {}

  absl::StatusOr<Value> ParseAll() {
    absl::StatusOr<Value> v = ParseValue(0);
    if (!v.ok()) return v;
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the closing ']'");
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        option_, " is not a Python list of lists of strings (like '[[\"^add$\"], [\"^mul$\"]]'): ",
        what, " at position ", pos_, " of '", text_, "'"));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  absl::StatusOr<Value> ParseValue(int depth) {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a list or a string, found the end");
    const char c = text_[pos_];
    if (c == '[') return ParseList(depth);
    if (c == '\'' || c == '"') return ParseString();
    return ParseScalar();
  }

  absl::StatusOr<Value> ParseList(int depth) {
    if (depth >= kMaxDepth) return Error("lists nested too deeply");
    ++pos_;  // '['
    Value list{"list", "", {}};
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return list;
    }
    while (true) {
      absl::StatusOr<Value> item = ParseValue(depth + 1);
      if (!item.ok()) return item;
      list.items.push_back(*std::move(item));
      SkipSpace();
      if (pos_ >= text_.size()) return Error("expected ',' or ']', found the end");
      if (text_[pos_] == ']') {
        ++pos_;
        return list;
      }
      if (text_[pos_] != ',') return Error("expected ',' or ']'");
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {  // a trailing comma
        ++pos_;
        return list;
      }
    }
  }

  absl::StatusOr<Value> ParseString() {
    const char quote = text_[pos_++];
    Value s{"str", "", {}};
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        const char e = text_[pos_++];
        switch (e) {
          case '\\': case '\'': case '"': c = e; break;
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          default:
            // Python keeps an unknown escape as it is ("\d" is "\\d"),
            // which is what regular expressions need.
            s.text.push_back('\\');
            c = e;
        }
      }
      s.text.push_back(c);
    }
    if (pos_ >= text_.size()) return Error("a string is not closed");
    ++pos_;  // the closing quote
    return s;
  }

  // Numbers, True, False and None: only their kind matters.
  absl::StatusOr<Value> ParseScalar() {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '_')) {
      ++pos_;
    }
    const absl::string_view token = text_.substr(start, pos_ - start);
    if (token == "True" || token == "False") return Value{"bool", "", {}};
    if (token == "None") return Value{"NoneType", "", {}};
    if (!token.empty() && (std::isdigit(static_cast<unsigned char>(token[0])) ||
                           token[0] == '-' || token[0] == '+' || token[0] == '.')) {
      const bool is_float = token.find_first_of(".eE") != absl::string_view::npos;
      return Value{is_float ? "float" : "int", "", {}};
    }
    pos_ = start;
    return Error("expected a list or a string");
  }

  absl::string_view text_;
  absl::string_view option_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<std::vector<std::string>>> ParseListOfStringLists(
    absl::string_view text, absl::string_view option) {
  absl::StatusOr<Value> value = Parser(text, option).ParseAll();
  if (!value.ok()) return value.status();
  if (value->kind != "list") {
    return absl::InvalidArgumentError(
        absl::StrCat(option, " must be a list of lists of strings, not ", value->kind, "."));
  }
  std::vector<std::vector<std::string>> result;
  for (const Value& inner : value->items) {
    if (inner.kind != "list") {
      return absl::InvalidArgumentError(absl::StrCat(
          option, " must only contain lists of strings, not ", inner.kind, "."));
    }
    std::vector<std::string> strings;
    for (const Value& s : inner.items) {
      if (s.kind != "str") {
        return absl::InvalidArgumentError(absl::StrCat(
            option, " must only contain lists of strings, not lists of ", s.kind, "."));
      }
      strings.push_back(s.text);
    }
    result.push_back(std::move(strings));
  }
  return result;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
