// The tables Keras users read: model.summary() and the IPU's
// print_pipeline_stage_assignment_summary(), laid out byte for byte as
// Keras 2.6 and Graphcore's Keras print them. The model gathers the cells;
// this file only lays them out.
//
//   SummaryTable table = ModelSummaryTable("model", /*sequential_like=*/true);
//   table.rows.push_back({{"conv2d (Conv2D)", FormatShape({-1, 26, 26, 32}),
//                          "320"}});
//   table.footer_lines = ParamCountLines(34826, 34826, 0);
//   PrintSummary(table, [](const std::string& line) {
//     std::cout << line << "\n";
//   });
//
// Layout: the title, a rule of '_', the header row, a rule of '='; each row
// followed by a rule of '_', the last by a rule of '='; then the footer
// lines and a closing rule of '_' (no footer, no closing rule: the pipeline
// table ends at its '=' rule). Every rule is line_length characters long.
//
// A row's cells are laid out left to right: each cell starts one column
// after the previous cell's stop, then the line is cut or padded with
// spaces up to the cell's stop. The character just before each cell after
// the first becomes a space, so a cell cut at its stop ends one character
// early ("max_pooling2d_1 (MaxPooling2 (None, 5, 5, 64)"). Lines keep
// their trailing spaces. Lengths count bytes, so cells are expected in ASCII
// (Keras counts characters).
#ifndef TENSORFLOW_IPU_KERAS_UTILS_PRINT_SUMMARY_H_
#define TENSORFLOW_IPU_KERAS_UTILS_PRINT_SUMMARY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tensorflow_ipu {
namespace keras {
namespace utils {

struct SummaryTable {
  std::string title_line;  // `Model: "model"`
  int line_length = 65;
  // Each cell's stop: fractions of line_length when the last is at most 1
  // (each stop is int(line_length * fraction)), else columns.
  std::vector<double> positions;
  std::vector<std::string> headers;
  // One entry per layer: its lines, each a list of cells. Lines after the
  // first continue the row (more inputs of the layer, one per line) and share
  // its rules. Cells beyond the stops are dropped; missing cells end the
  // line early, unpadded, as Keras does.
  std::vector<std::vector<std::vector<std::string>>> rows;
  std::vector<std::string> footer_lines;
};

// Calls print_fn once per line of the table, without line terminators.
void PrintSummary(const SummaryTable& table,
                  const std::function<void(const std::string&)>& print_fn);

// The column stops of `positions` for lines of `line_length`.
std::vector<int> ColumnStops(int line_length,
                             const std::vector<double>& positions);
// One line of cells laid out at `stops` (see the file comment).
std::string FormatRow(const std::vector<std::string>& cells,
                      const std::vector<int>& stops);

// The empty tables of model.summary(), titled `Model: "<model_name>"`. A
// model whose layers form a chain (a Sequential model, a subclassed one, or
// a Functional model with one input per layer and no shared layer) has the
// three columns "Layer (type)", "Output Shape", "Param #" on 65 characters;
// any other Functional model adds "Connected to" on 98. line_length 0 keeps
// that default.
SummaryTable ModelSummaryTable(const std::string& model_name,
                               bool sequential_like, int line_length = 0);

// The empty tables of print_pipeline_stage_assignment_summary(). A
// Sequential model: "Layer (type)", "Pipeline Stage" on 60 characters; a
// Functional or subclassed model: "Layer (type) (node index)",
// "Input Layers", "Pipeline Stage" on 89. line_length 0 keeps that default.
SummaryTable PipelineStageSummaryTable(const std::string& model_name,
                                       bool sequential, int line_length = 0);

// "Total params: 34,826", "Trainable params: 34,826",
// "Non-trainable params: 0".
std::vector<std::string> ParamCountLines(int64_t total, int64_t trainable,
                                         int64_t non_trainable);

// A shape as Python prints a shape tuple, -1 printed as None:
// {-1, 26, 26, 32} -> "(None, 26, 26, 32)", {-1} -> "(None,)", {} -> "()".
std::string FormatShape(const std::vector<int64_t>& dims);
// A list of shapes, as an InputLayer's output shape in a Functional model:
// {{-1, 28, 28, 1}} -> "[(None, 28, 28, 1)]".
std::string FormatShapeList(const std::vector<std::vector<int64_t>>& shapes);
// A count with thousands separators: 34826 -> "34,826", -1234 -> "-1,234".
// (The "Param #" cells are plain digits: "18496".)
std::string FormatCount(int64_t count);

}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_UTILS_PRINT_SUMMARY_H_
