#include "tools/poprun/poprun_options.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace poprun {
namespace {

absl::StatusOr<int> ParseCount(const std::string& flag, const std::string& text) {
  int value = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(text, &value) || value < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", text, "' is not a whole number of at least 1"));
  }
  return value;
}

absl::Status Validate(const PoprunOptions& o) {
  if (o.num_replicas % o.num_instances != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--num-replicas ", o.num_replicas, " is not divisible by --num-instances ",
        o.num_instances, ": replicas are divided evenly among the instances; use a "
        "multiple of ", o.num_instances, " replicas or a divisor of ", o.num_replicas,
        " instances"));
  }
  if (!o.hosts.empty() && o.num_instances % static_cast<int>(o.hosts.size()) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--num-instances ", o.num_instances, " is not divisible by the ", o.hosts.size(),
        " hosts of -H: instances are divided evenly among the hosts"));
  }
  if (o.only_output_from_instance.has_value() &&
      *o.only_output_from_instance >= o.num_instances) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--only-output-from-instance ", *o.only_output_from_instance,
        " is not an instance: there are ", o.num_instances, " (0 to ", o.num_instances - 1,
        ")"));
  }
  if (o.program.empty() && !o.help) {
    return absl::InvalidArgumentError(
        "no program to run: poprun [options] program [args...] (--help lists the options)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitShellWords(const std::string& text,
                                                         const std::string& flag) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\\' && i + 1 < text.size() && (quote == 0 || text[i + 1] == '"' ||
                                                    text[i + 1] == '\\')) {
      word += text[++i];
      in_word = true;
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " has an unmatched ", quote == '"' ? "double" : "single", " quote: ", text));
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

absl::StatusOr<PoprunOptions> ParsePoprunArgs(const std::vector<std::string>& args) {
  PoprunOptions o;
  size_t i = 0;
  // The value of the option at args[i]: after '=' or the next argument.
  auto value_of = [&](const std::string& flag, const std::optional<std::string>& inline_value)
      -> absl::StatusOr<std::string> {
    if (inline_value.has_value()) return *inline_value;
    if (i + 1 >= args.size()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
    }
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;  // the program
    std::string flag = arg;
    std::optional<std::string> inline_value;
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    if (flag == "--num-instances" || flag == "--num-replicas" || flag == "--ipus-per-replica" ||
        flag == "--only-output-from-instance") {
      ASSIGN_OR_RETURN(std::string text, value_of(flag, inline_value));
      if (flag == "--only-output-from-instance") {
        int index = -1;
        if (text.find_first_not_of("0123456789") != std::string::npos || text.empty() ||
            !absl::SimpleAtoi(text, &index)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--only-output-from-instance '", text, "' is not an instance index (0, 1, ...)"));
        }
        o.only_output_from_instance = index;
        continue;
      }
      ASSIGN_OR_RETURN(int value, ParseCount(flag, text));
      if (flag == "--num-instances") o.num_instances = value;
      if (flag == "--num-replicas") o.num_replicas = value;
      if (flag == "--ipus-per-replica") o.ipus_per_replica = value;
    } else if (flag == "-H" || flag == "--host") {
      ASSIGN_OR_RETURN(std::string text, value_of(flag, inline_value));
      for (absl::string_view host : absl::StrSplit(text, ',')) {
        if (host.empty() || host.find_first_of(" \t:") != absl::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              flag, " '", text, "' is not a comma-separated list of host names "
              "(no blanks or :slots; poprun gives each host its share of the instances)"));
        }
        o.hosts.emplace_back(host);
      }
    } else if (flag == "--mpi-global-args" || flag == "--mpi-local-args") {
      ASSIGN_OR_RETURN(std::string text, value_of(flag, inline_value));
      ASSIGN_OR_RETURN(std::vector<std::string> words, SplitShellWords(text, flag));
      std::vector<std::string>& into =
          flag == "--mpi-global-args" ? o.mpi_global_args : o.mpi_local_args;
      into.insert(into.end(), words.begin(), words.end());
    } else if (flag == "--print-topology") {
      o.print_topology = true;
    } else if (flag == "-v") {
      o.verbosity = std::max(o.verbosity, 1);
    } else if (flag == "-vv") {
      o.verbosity = 2;
    } else if (flag == "-h" || flag == "--help") {
      o.help = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", arg, "'; --help lists the options (put the program's own "
          "options after the program's name)"));
    }
  }
  o.program.assign(args.begin() + std::min(i, args.size()), args.end());
  RETURN_IF_ERROR(Validate(o));
  return o;
}

std::string Usage() {
  return R"(usage: poprun [options] program [args...]

Runs `program` as several instances (processes) over Open MPI's mpirun, each
running its share of the replicas; each instance reads its share from the
POPDIST_* environment (tensorflow_ipu/distributed/popdist.h).

  --num-instances N         processes (default 1)
  --num-replicas R          replicas in total, divided evenly among the
                            instances (default 1)
  --ipus-per-replica I      IPUs of each replica (default 1)
  -H, --host h1,h2,...      hosts the instances are divided evenly among
                            (default: this host)
  --mpi-global-args "..."   arguments for mpirun, given once
  --mpi-local-args "..."    arguments for mpirun, given for every instance
                            (e.g. "-x PATH -x LD_LIBRARY_PATH")
  --only-output-from-instance K
                            show only instance K's output (hides the
                            others' errors too)
  --print-topology          print which host, replicas and IPUs each
                            instance has, then run
  -v, -vv                   say more; -vv prints the mpirun command
  -h, --help                this text
)";
}

}  // namespace poprun
}  // namespace tensorflow_ipu
