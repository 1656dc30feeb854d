#include "tools/ipu_saved_model_cli/cli_args.h"

#include <algorithm>
#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// argparse formats for a terminal of 80 columns: text up to column 78,
// help at column 24 at most.
constexpr size_t kWidth = 78;
constexpr size_t kMaxHelpPosition = 24;
// The payload that tells ErrorText which (sub)command an error concerns.
constexpr char kProgPayload[] = "type.googleapis.com/tensorflow_ipu.cli_args.prog";

absl::Status ParserError(const std::string& prog, std::string message) {
  absl::Status s = absl::InvalidArgumentError(std::move(message));
  s.SetPayload(kProgPayload, absl::Cord(prog));
  return s;
}

// argparse takes "-1" and "-.5" for values, "-x" and "--x" for options.
bool LooksLikeOption(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return false;
  double unused;
  return !absl::SimpleAtod(arg, &unused);
}

// Words of `text` in lines of at most `width` characters.
std::vector<std::string> Wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : " ", word);
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::optional<std::string> ParsedArgs::GetString(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.text;
}

std::optional<int64_t> ParsedArgs::GetInt(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !it->second.text.has_value()) return std::nullopt;
  return it->second.int_value;
}

std::optional<double> ParsedArgs::GetFloat(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !it->second.text.has_value()) return std::nullopt;
  return it->second.float_value;
}

bool ParsedArgs::GetBool(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.bool_value;
}

std::vector<std::string> ParsedArgs::GetStringList(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>() : it->second.list;
}

bool ParsedArgs::IsSet(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.set;
}

ArgParser::ArgParser(std::string prog, std::string description)
    : prog_(std::move(prog)), description_(std::move(description)) {}

void ArgParser::AddOption(OptionSpec spec) {
  for (OptionSpec& o : options_) {
    if (o.name == spec.name) {
      o = std::move(spec);
      return;
    }
  }
  options_.push_back(std::move(spec));
}

void ArgParser::SetSubcommandGroup(std::string title, std::string description,
                                   std::string help) {
  group_title_ = std::move(title);
  group_description_ = std::move(description);
  group_help_ = std::move(help);
}

ArgParser* ArgParser::AddSubcommand(const std::string& name, const std::string& help,
                                    const std::string& description) {
  subcommands_.push_back(
      {name, help, std::make_unique<ArgParser>(absl::StrCat(prog_, " ", name), description)});
  return subcommands_.back().parser.get();
}

std::string ArgParser::Metavar(const OptionSpec& spec) const {
  return spec.metavar.empty() ? absl::AsciiStrToUpper(spec.name) : spec.metavar;
}

// " DIR", " [NODES ...]" (nargs='*'), " NODES [NODES ...]" (nargs='+'),
// or nothing for a flag, as argparse shows an option's values.
std::string ArgParser::ValuePart(const OptionSpec& spec) const {
  switch (spec.kind) {
    case OptionKind::kBool: return "";
    case OptionKind::kStringList: return " [" + Metavar(spec) + " ...]";
    case OptionKind::kNonEmptyStringList:
      return " " + Metavar(spec) + " [" + Metavar(spec) + " ...]";
    default: return " " + Metavar(spec);
  }
}

const OptionSpec* ArgParser::Find(const std::string& flag, absl::Status* error) const {
  const std::string name = flag.substr(2);
  for (const OptionSpec& o : options_) {
    if (o.name == name) return &o;
  }
  std::vector<const OptionSpec*> matches;
  for (const OptionSpec& o : options_) {
    if (!name.empty() && absl::StartsWith(o.name, name)) matches.push_back(&o);
  }
  if (matches.size() == 1) return matches[0];
  if (matches.size() > 1) {
    std::vector<std::string> names;
    for (const OptionSpec* o : matches) names.push_back("--" + o->name);
    *error = ParserError(prog_, absl::StrCat("ambiguous option: ", flag, " could match ",
                                             absl::StrJoin(names, ", ")));
  }
  return nullptr;
}

absl::Status ArgParser::ParseInto(const std::vector<std::string>& args, size_t begin,
                                  std::vector<std::string>* unrecognized,
                                  ParsedArgs* out) const {
  for (const OptionSpec& o : options_) {
    ParsedArgs::Value v;
    v.kind = o.kind;
    if (o.default_value.has_value()) {
      v.text = o.default_value;
      if (o.kind == OptionKind::kInt) absl::SimpleAtoi(*o.default_value, &v.int_value);
      if (o.kind == OptionKind::kFloat) absl::SimpleAtod(*o.default_value, &v.float_value);
    }
    out->values_[o.name] = std::move(v);
  }
  std::vector<std::string> seen;
  bool chose_subcommand = false;
  for (size_t i = begin; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out->help_ = Help();
      return absl::OkStatus();
    }
    if (!version_.empty() && (arg == "-v" || arg == "--version")) {
      out->help_ = version_ + "\n";
      return absl::OkStatus();
    }
    if (absl::StartsWith(arg, "--") && arg.size() > 2) {
      const size_t eq = arg.find('=');
      const std::string flag = arg.substr(0, eq);
      std::optional<std::string> inline_value;
      if (eq != std::string::npos) inline_value = arg.substr(eq + 1);
      absl::Status error;
      const OptionSpec* spec = Find(flag, &error);
      RETURN_IF_ERROR(error);
      if (spec == nullptr) {
        unrecognized->push_back(arg);
        continue;
      }
      const std::string shown = "--" + spec->name;
      ParsedArgs::Value& v = out->values_[spec->name];
      v.set = true;
      seen.push_back(spec->name);
      switch (spec->kind) {
        case OptionKind::kBool:
          if (inline_value.has_value()) {
            return ParserError(prog_, absl::StrCat("argument ", shown,
                                                   ": ignored explicit argument '",
                                                   *inline_value, "'"));
          }
          v.bool_value = true;
          break;
        case OptionKind::kStringList:
        case OptionKind::kNonEmptyStringList:
          v.list.clear();
          if (inline_value.has_value()) {
            v.list.push_back(*inline_value);
          } else {
            while (i + 1 < args.size() && !LooksLikeOption(args[i + 1])) v.list.push_back(args[++i]);
          }
          if (v.list.empty() && spec->kind == OptionKind::kNonEmptyStringList) {
            return ParserError(prog_, absl::StrCat("argument ", shown,
                                                   ": expected at least one argument"));
          }
          break;
        default: {
          std::string text;
          if (inline_value.has_value()) {
            text = *inline_value;
          } else if (i + 1 < args.size() && !LooksLikeOption(args[i + 1])) {
            text = args[++i];
          } else {
            return ParserError(prog_, absl::StrCat("argument ", shown, ": expected one argument"));
          }
          if (spec->kind == OptionKind::kInt && !absl::SimpleAtoi(text, &v.int_value)) {
            return ParserError(prog_, absl::StrCat("argument ", shown, ": invalid int value: '",
                                                   text, "'"));
          }
          if (spec->kind == OptionKind::kFloat && !absl::SimpleAtod(text, &v.float_value)) {
            return ParserError(prog_, absl::StrCat("argument ", shown,
                                                   ": invalid float value: '", text, "'"));
          }
          v.text = text;
        }
      }
      continue;
    }
    if (LooksLikeOption(arg) || subcommands_.empty()) {
      unrecognized->push_back(arg);
      continue;
    }
    // A positional argument: the subcommand, which takes the rest.
    const Subcommand* sub = nullptr;
    for (const Subcommand& s : subcommands_) {
      if (s.name == arg) sub = &s;
    }
    if (sub == nullptr) {
      std::vector<std::string> names, quoted;
      for (const Subcommand& s : subcommands_) {
        names.push_back(s.name);
        quoted.push_back("'" + s.name + "'");
      }
      return ParserError(prog_, absl::StrCat("argument {", absl::StrJoin(names, ","),
                                             "}: invalid choice: '", arg, "' (choose from ",
                                             absl::StrJoin(quoted, ", "), ")"));
    }
    out->subcommands_.push_back(sub->name);
    RETURN_IF_ERROR(sub->parser->ParseInto(args, i + 1, unrecognized, out));
    if (!out->help_.empty()) return absl::OkStatus();
    chose_subcommand = true;
    break;
  }
  std::vector<std::string> missing;
  for (const OptionSpec& o : options_) {
    if (o.required && std::find(seen.begin(), seen.end(), o.name) == seen.end()) {
      missing.push_back("--" + o.name);
    }
  }
  if (!missing.empty()) {
    return ParserError(prog_, absl::StrCat("the following arguments are required: ",
                                           absl::StrJoin(missing, ", ")));
  }
  if (!subcommands_.empty() && !chose_subcommand) {
    return ParserError(prog_, "too few arguments");
  }
  return absl::OkStatus();
}

absl::StatusOr<ParsedArgs> ArgParser::Parse(const std::vector<std::string>& args) const {
  ParsedArgs out;
  std::vector<std::string> unrecognized;
  RETURN_IF_ERROR(ParseInto(args, 0, &unrecognized, &out));
  if (out.help_.empty() && !unrecognized.empty()) {
    return ParserError(prog_, absl::StrCat("unrecognized arguments: ",
                                           absl::StrJoin(unrecognized, " ")));
  }
  return out;
}

std::string ArgParser::Usage() const {
  std::vector<std::string> parts = {"[-h]"};
  if (!version_.empty()) parts.push_back("[-v]");
  for (const OptionSpec& o : options_) {
    const std::string part = "--" + o.name + ValuePart(o);
    parts.push_back(o.required ? part : "[" + part + "]");
  }
  if (!subcommands_.empty()) {
    std::vector<std::string> names;
    for (const Subcommand& s : subcommands_) names.push_back(s.name);
    parts.push_back("{" + absl::StrJoin(names, ",") + "} ...");
  }
  const std::string head = "usage: " + prog_ + " ";
  const std::string one_line = head + absl::StrJoin(parts, " ");
  if (one_line.size() <= kWidth) return one_line;
  // As argparse: the parts in lines aligned after the program's name.
  const std::string indent(head.size(), ' ');
  std::string out = head, line;
  for (const std::string& part : parts) {
    if (!line.empty() && head.size() + line.size() + 1 + part.size() > kWidth) {
      absl::StrAppend(&out, line, "\n", indent);
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : " ", part);
  }
  return out + line;
}

std::string ArgParser::Help() const {
  struct Entry {
    size_t indent;
    std::string invocation;
    std::string help;
  };
  std::vector<Entry> positional, optional;
  if (!subcommands_.empty()) {
    std::vector<std::string> names;
    for (const Subcommand& s : subcommands_) names.push_back(s.name);
    positional.push_back({2, "{" + absl::StrJoin(names, ",") + "}", group_help_});
    // As argparse, a subcommand declared without help is not listed.
    for (const Subcommand& s : subcommands_) {
      if (!s.help.empty()) positional.push_back({4, s.name, s.help});
    }
  }
  optional.push_back({2, "-h, --help", "show this help message and exit"});
  if (!version_.empty()) {
    optional.push_back({2, "-v, --version", "show program's version number and exit"});
  }
  for (const OptionSpec& o : options_) {
    optional.push_back({2, "--" + o.name + ValuePart(o), o.help});
  }
  size_t longest = 0;
  for (const auto* list : {&positional, &optional}) {
    for (const Entry& e : *list) longest = std::max(longest, e.indent + e.invocation.size());
  }
  const size_t help_position = std::min(longest + 2, kMaxHelpPosition);
  auto format = [&](const Entry& e) {
    std::string out = std::string(e.indent, ' ') + e.invocation;
    std::vector<std::string> lines =
        raw_help_ ? std::vector<std::string>(absl::StrSplit(e.help, '\n'))
                  : Wrap(e.help, std::max<size_t>(kWidth - help_position, 11));
    if (lines.size() == 1 && lines[0].empty()) lines.clear();
    if (lines.empty()) return out + "\n";
    if (e.indent + e.invocation.size() + 2 <= help_position) {
      out.append(help_position - out.size(), ' ');
    } else {
      out += "\n" + std::string(help_position, ' ');
    }
    out += absl::StrJoin(lines, "\n" + std::string(help_position, ' '));
    return out + "\n";
  };
  std::string out = Usage() + "\n";
  if (!description_.empty()) absl::StrAppend(&out, "\n", description_, "\n");
  if (!positional.empty() && group_title_.empty()) {
    out += "\npositional arguments:\n";
    for (const Entry& e : positional) out += format(e);
  }
  out += "\noptional arguments:\n";
  for (const Entry& e : optional) out += format(e);
  if (!positional.empty() && !group_title_.empty()) {
    absl::StrAppend(&out, "\n", group_title_, ":\n");
    if (!group_description_.empty()) absl::StrAppend(&out, "  ", group_description_, "\n\n");
    for (const Entry& e : positional) out += format(e);
  }
  return out;
}

std::string ArgParser::ErrorText(const absl::Status& error) const {
  const auto prog = error.GetPayload(kProgPayload);
  const ArgParser* parser = this;
  if (prog.has_value()) {
    const std::string wanted(*prog);
    std::function<const ArgParser*(const ArgParser*)> find = [&](const ArgParser* p) {
      if (p->prog_ == wanted) return p;
      for (const Subcommand& s : p->subcommands_) {
        if (const ArgParser* found = find(s.parser.get())) return found;
      }
      return static_cast<const ArgParser*>(nullptr);
    };
    if (const ArgParser* found = find(this)) parser = found;
  }
  return absl::StrCat(parser->Usage(), "\n", parser->prog_, ": error: ", error.message(), "\n");
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
