// Lists of regular expressions over node names, as the converter's options
// give them (--excluded_nodes, --precision_conversion_excluded_nodes,
// manual_sharding, GELU replacement): a name matches a list when one of the
// patterns matches anywhere in it, as Python's re.search does ("add" matches
// "add_1"; "^add$" only "add").
//
//   ASSIGN_OR_RETURN(NodePatterns p, NodePatterns::Compile({"^add$"}, "excluded_nodes"));
//   p.Search("add");   // true
//
// Patterns are RE2's (third_party/re2): Python's syntax without
// backreferences and lookaround, matched in time linear in the name.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_NODE_PATTERNS_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_NODE_PATTERNS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace re2 {
class RE2;
}

namespace tensorflow_ipu {
namespace saved_model_cli {

class NodePatterns {
 public:
  NodePatterns() = default;  // matches nothing

  // InvalidArgument naming `option`, the pattern and RE2's reason for a
  // pattern that does not compile.
  static absl::StatusOr<NodePatterns> Compile(const std::vector<std::string>& patterns,
                                              absl::string_view option);

  // True when a pattern matches somewhere in `name` (re.search).
  bool Search(absl::string_view name) const;
  // True when a pattern matches at the start of `name` (re.match).
  bool MatchAtStart(absl::string_view name) const;

  bool empty() const { return regexes_.empty(); }

 private:
  std::vector<std::shared_ptr<const re2::RE2>> regexes_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_NODE_PATTERNS_H_
