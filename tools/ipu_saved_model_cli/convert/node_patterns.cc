#include "tools/ipu_saved_model_cli/convert/node_patterns.h"

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

absl::StatusOr<NodePatterns> NodePatterns::Compile(const std::vector<std::string>& patterns,
                                                   absl::string_view option) {
  NodePatterns result;
  RE2::Options options;
  options.set_log_errors(false);  // the error goes into the status instead
  for (const std::string& pattern : patterns) {
    auto re = std::make_shared<const RE2>(pattern, options);
    if (!re->ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          option, ": \"", pattern, "\" is not a valid regular expression (", re->error(),
          "); write it in Python's re syntax, without backreferences or lookaround"));
    }
    result.regexes_.push_back(std::move(re));
  }
  return result;
}

bool NodePatterns::Search(absl::string_view name) const {
  for (const auto& re : regexes_) {
    if (RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re)) return true;
  }
  return false;
}

bool NodePatterns::MatchAtStart(absl::string_view name) const {
  for (const auto& re : regexes_) {
    if (re->Match(re2::StringPiece(name.data(), name.size()), 0, name.size(), RE2::ANCHOR_START, nullptr, 0)) return true;
  }
  return false;
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
