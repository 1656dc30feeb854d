// A safe reader of the one Python literal the converter's command line
// takes: --manual_sharding '[["^add$"], ["^mul$"]]', a list of lists of
// strings (the original evaluates it with ast.literal_eval; here nothing is
// evaluated: the text is parsed by this grammar and nothing else).
//
//   list   := '[' [ item { ',' item } [','] ] ']'
//   item   := list | string
//   string := '...' | "..."   with the escapes \\ \' \" \n \t
//
// Whitespace may surround every token.
//
//   ASSIGN_OR_RETURN(auto shards, ParseListOfStringLists("[['^a'], ['^b']]", "manual_sharding"));
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PYTHON_LITERAL_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PYTHON_LITERAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// InvalidArgument naming `option` for text that is not such a literal: a
// syntax error says where (the 0-based character position) and what was
// expected; an element of the wrong kind says what it is, as the original's
// "manual_sharding must only contain lists of strings, not ..." does.
absl::StatusOr<std::vector<std::vector<std::string>>> ParseListOfStringLists(
    absl::string_view text, absl::string_view option);

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PYTHON_LITERAL_H_
