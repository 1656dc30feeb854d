#include "tensorflow_ipu/keras/utils/print_summary.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {
namespace {

// The defaults Keras 2.6 and Graphcore's Keras choose for each table.
constexpr int kSequentialSummaryLength = 65;
constexpr int kFunctionalSummaryLength = 98;
constexpr int kSequentialPipelineLength = 60;
constexpr int kFunctionalPipelineLength = 89;

SummaryTable EmptyTable(const std::string& model_name, int line_length,
                        std::vector<double> positions,
                        std::vector<std::string> headers) {
  SummaryTable table;
  table.title_line = absl::StrCat("Model: \"", model_name, "\"");
  table.line_length = line_length;
  table.positions = std::move(positions);
  table.headers = std::move(headers);
  return table;
}

}  // namespace

std::vector<int> ColumnStops(int line_length,
                             const std::vector<double>& positions) {
  std::vector<int> stops;
  stops.reserve(positions.size());
  const bool fractions = !positions.empty() && positions.back() <= 1;
  for (double p : positions) {
    // Truncation, not rounding: .33 of 98 is column 32.
    stops.push_back(static_cast<int>(fractions ? line_length * p : p));
  }
  return stops;
}

std::string FormatRow(const std::vector<std::string>& cells,
                      const std::vector<int>& stops) {
  std::string line;
  const size_t n = std::min(cells.size(), stops.size());
  for (size_t i = 0; i < n; ++i) {
    // The column before a cell is always blank, even when the previous cell
    // filled its width: that is what separates two cut cells.
    if (i > 0) {
      if (!line.empty()) line.pop_back();
      line += ' ';
    }
    line += cells[i];
    const size_t stop = static_cast<size_t>(std::max(stops[i], 0));
    if (line.size() > stop) line.resize(stop);
    line.append(stop - line.size(), ' ');
  }
  return line;
}

void PrintSummary(const SummaryTable& table,
                  const std::function<void(const std::string&)>& print_fn) {
  const std::vector<int> stops =
      ColumnStops(table.line_length, table.positions);
  const std::string thin_rule(std::max(table.line_length, 0), '_');
  const std::string thick_rule(std::max(table.line_length, 0), '=');

  print_fn(table.title_line);
  print_fn(thin_rule);
  print_fn(FormatRow(table.headers, stops));
  print_fn(thick_rule);
  for (size_t r = 0; r < table.rows.size(); ++r) {
    for (const std::vector<std::string>& cells : table.rows[r]) {
      print_fn(FormatRow(cells, stops));
    }
    print_fn(r + 1 == table.rows.size() ? thick_rule : thin_rule);
  }
  if (table.footer_lines.empty()) return;
  for (const std::string& line : table.footer_lines) print_fn(line);
  print_fn(thin_rule);
}

SummaryTable ModelSummaryTable(const std::string& model_name,
                               bool sequential_like, int line_length) {
  if (sequential_like) {
    return EmptyTable(model_name,
                      line_length > 0 ? line_length : kSequentialSummaryLength,
                      {.45, .85, 1.},
                      {"Layer (type)", "Output Shape", "Param #"});
  }
  return EmptyTable(
      model_name, line_length > 0 ? line_length : kFunctionalSummaryLength,
      {.33, .55, .67, 1.},
      {"Layer (type)", "Output Shape", "Param #", "Connected to"});
}

SummaryTable PipelineStageSummaryTable(const std::string& model_name,
                                       bool sequential, int line_length) {
  if (sequential) {
    return EmptyTable(
        model_name, line_length > 0 ? line_length : kSequentialPipelineLength,
        {.5, 1.}, {"Layer (type)", "Pipeline Stage"});
  }
  return EmptyTable(
      model_name, line_length > 0 ? line_length : kFunctionalPipelineLength,
      {.4, .8, 1.},
      {"Layer (type) (node index)", "Input Layers", "Pipeline Stage"});
}

std::vector<std::string> ParamCountLines(int64_t total, int64_t trainable,
                                         int64_t non_trainable) {
  return {absl::StrCat("Total params: ", FormatCount(total)),
          absl::StrCat("Trainable params: ", FormatCount(trainable)),
          absl::StrCat("Non-trainable params: ", FormatCount(non_trainable))};
}

std::string FormatShape(const std::vector<int64_t>& dims) {
  std::vector<std::string> parts;
  parts.reserve(dims.size());
  for (int64_t d : dims) {
    parts.push_back(d == -1 ? "None" : absl::StrCat(d));
  }
  // A one-element tuple keeps its comma, as Python prints it.
  return absl::StrCat("(", absl::StrJoin(parts, ", "),
                      dims.size() == 1 ? ",)" : ")");
}

std::string FormatShapeList(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::string> parts;
  parts.reserve(shapes.size());
  for (const auto& dims : shapes) parts.push_back(FormatShape(dims));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string FormatCount(int64_t count) {
  // Group the magnitude's digits; the sign stays in front.
  const bool negative = count < 0;
  const uint64_t magnitude =
      negative ? ~static_cast<uint64_t>(count) + 1 : static_cast<uint64_t>(count);
  std::string digits = absl::StrCat(magnitude);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return negative ? "-" + grouped : grouped;
}

}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu
