#include "tensorflow_ipu/keras/utils/print_summary.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {
namespace {

std::vector<std::string> Lines(const SummaryTable& table) {
  std::vector<std::string> lines;
  PrintSummary(table, [&](const std::string& line) { lines.push_back(line); });
  return lines;
}

// The tutorial's CNN built with the Functional API, keras.Input(28, 28, 1)
// through Dense(10): its layers form a chain, so the table has three
// columns on 65 characters, and the InputLayer's row shows a list of shapes.
TEST(PrintSummaryTest, FunctionalCnnAsKerasPrintsIt) {
  SummaryTable table = ModelSummaryTable("model", /*sequential_like=*/true);
  table.rows = {
      {{"input_1 (InputLayer)", FormatShapeList({{-1, 28, 28, 1}}), "0"}},
      {{"conv2d (Conv2D)", FormatShape({-1, 26, 26, 32}), "320"}},
      {{"max_pooling2d (MaxPooling2D)", FormatShape({-1, 13, 13, 32}), "0"}},
      {{"conv2d_1 (Conv2D)", FormatShape({-1, 11, 11, 64}), "18496"}},
      {{"max_pooling2d_1 (MaxPooling2D)", FormatShape({-1, 5, 5, 64}), "0"}},
      {{"flatten (Flatten)", FormatShape({-1, 1600}), "0"}},
      {{"dropout (Dropout)", FormatShape({-1, 1600}), "0"}},
      {{"dense (Dense)", FormatShape({-1, 10}), "16010"}},
  };
  table.footer_lines = ParamCountLines(34826, 34826, 0);

  const std::string thin(65, '_');
  const std::string thick(65, '=');
  const std::vector<std::string> expected = {
      "Model: \"model\"",
      thin,
      "Layer (type)                 Output Shape              Param #   ",
      thick,
      "input_1 (InputLayer)         [(None, 28, 28, 1)]       0         ",
      thin,
      "conv2d (Conv2D)              (None, 26, 26, 32)        320       ",
      thin,
      "max_pooling2d (MaxPooling2D) (None, 13, 13, 32)        0         ",
      thin,
      "conv2d_1 (Conv2D)            (None, 11, 11, 64)        18496     ",
      thin,
      "max_pooling2d_1 (MaxPooling2 (None, 5, 5, 64)          0         ",
      thin,
      "flatten (Flatten)            (None, 1600)              0         ",
      thin,
      "dropout (Dropout)            (None, 1600)              0         ",
      thin,
      "dense (Dense)                (None, 10)                16010     ",
      thick,
      "Total params: 34,826",
      "Trainable params: 34,826",
      "Non-trainable params: 0",
      thin,
  };
  EXPECT_EQ(Lines(table), expected);
}

// A model with two inputs is not a chain: four columns on 98 characters,
// and a layer with two inputs lists the second on a continuation line.
TEST(PrintSummaryTest, FunctionalWithConnectionsListsEachInputOnItsLine) {
  SummaryTable table = ModelSummaryTable("model_1", /*sequential_like=*/false);
  table.rows = {
      {{"input_a (InputLayer)", FormatShapeList({{-1, 32}}), "0", ""}},
      {{"input_b (InputLayer)", FormatShapeList({{-1, 32}}), "0", ""}},
      {{"concatenate (Concatenate)", FormatShape({-1, 64}), "0",
        "input_a[0][0]"},
       {"", "", "", "input_b[0][0]"}},
      {{"dense (Dense)", FormatShape({-1, 4}), "260", "concatenate[0][0]"}},
  };
  table.footer_lines = ParamCountLines(260, 260, 0);

  const std::string thin(98, '_');
  const std::string thick(98, '=');
  const std::vector<std::string> expected = {
      "Model: \"model_1\"",
      thin,
      "Layer (type)                    Output Shape         Param #     "
      "Connected to                     ",
      thick,
      "input_a (InputLayer)            [(None, 32)]         0           "
      "                                 ",
      thin,
      "input_b (InputLayer)            [(None, 32)]         0           "
      "                                 ",
      thin,
      "concatenate (Concatenate)       (None, 64)           0           "
      "input_a[0][0]                    ",
      "                                                                 "
      "input_b[0][0]                    ",
      thin,
      "dense (Dense)                   (None, 4)            260         "
      "concatenate[0][0]                ",
      thick,
      "Total params: 260",
      "Trainable params: 260",
      "Non-trainable params: 0",
      thin,
  };
  EXPECT_EQ(Lines(table), expected);
}

// Graphcore's Keras test of a Sequential model's stage assignment, printed
// with line_length=65; the table ends at its '=' rule.
TEST(PrintSummaryTest, PipelineStagesOfSequentialModel) {
  SummaryTable table =
      PipelineStageSummaryTable("sequential", /*sequential=*/true, 65);
  table.rows = {{{"flatten (Flatten)", "None"}}, {{"dense (Dense)", "None"}}};
  const std::vector<std::string> expected = {
      "Model: \"sequential\"",
      std::string(65, '_'),
      "Layer (type)                    Pipeline Stage                   ",
      std::string(65, '='),
      "flatten (Flatten)               None                             ",
      std::string(65, '_'),
      "dense (Dense)                   None                             ",
      std::string(65, '='),
  };
  EXPECT_EQ(Lines(table), expected);
}

TEST(PrintSummaryTest, PipelineStagesOfSequentialModelDefaultWidth) {
  SummaryTable table = PipelineStageSummaryTable("sequential", true);
  table.rows = {{{"flatten (Flatten)", "0"}}, {{"dense (Dense)", "1"}}};
  const std::vector<std::string> expected = {
      "Model: \"sequential\"",
      std::string(60, '_'),
      "Layer (type)                  Pipeline Stage                ",
      std::string(60, '='),
      "flatten (Flatten)             0                             ",
      std::string(60, '_'),
      "dense (Dense)                 1                             ",
      std::string(60, '='),
  };
  EXPECT_EQ(Lines(table), expected);
}

// Graphcore's Keras test of a Functional model (line_length=85): a node
// with two input layers lists the second on a continuation line, with no
// stage; the longest name fills its column to the separator.
TEST(PrintSummaryTest, PipelineStagesOfFunctionalModel) {
  SummaryTable table =
      PipelineStageSummaryTable("model", /*sequential=*/false, 85);
  table.rows = {
      {{"flatten (Flatten) (0)", "input_a", "None"}},
      {{"flatten_1 (Flatten) (0)", "input_b", "None"}},
      {{"concatenate (Concatenate) (0)", "flatten", "None"},
       {"", "flatten_1", ""}},
      {{"dense (Dense) (0)", "concatenate", "None"}},
      {{"tf.math.multiply (TFOpLambda) (0)", "dense", "None"}},
  };
  const std::string thin(85, '_');
  const std::vector<std::string> expected = {
      "Model: \"model\"",
      thin,
      "Layer (type) (node index)         Input Layers                      "
      "Pipeline Stage   ",
      std::string(85, '='),
      "flatten (Flatten) (0)             input_a                           "
      "None             ",
      thin,
      "flatten_1 (Flatten) (0)           input_b                           "
      "None             ",
      thin,
      "concatenate (Concatenate) (0)     flatten                           "
      "None             ",
      "                                  flatten_1                         "
      "                 ",
      thin,
      "dense (Dense) (0)                 concatenate                       "
      "None             ",
      thin,
      "tf.math.multiply (TFOpLambda) (0) dense                             "
      "None             ",
      std::string(85, '='),
  };
  EXPECT_EQ(Lines(table), expected);
}

TEST(PrintSummaryTest, DefaultFunctionalPipelineWidthIs89) {
  SummaryTable table = PipelineStageSummaryTable("model", false);
  EXPECT_EQ(table.line_length, 89);
  EXPECT_EQ(ColumnStops(table.line_length, table.positions),
            (std::vector<int>{35, 71, 89}));
}

TEST(PrintSummaryTest, ColumnStopsTruncateFractionsOrTakeColumns) {
  EXPECT_EQ(ColumnStops(98, {.33, .55, .67, 1.}),
            (std::vector<int>{32, 53, 65, 98}));
  EXPECT_EQ(ColumnStops(65, {.45, .85, 1.}), (std::vector<int>{29, 55, 65}));
  // A last stop beyond 1 means the stops are columns already.
  EXPECT_EQ(ColumnStops(80, {10, 20, 40}), (std::vector<int>{10, 20, 40}));
}

TEST(PrintSummaryTest, FormatRowCutsEachCellOneColumnBeforeTheNext) {
  EXPECT_EQ(FormatRow({"abcdef", "ghijkl", "mn"}, {4, 8, 12}),
            "abc ghi mn  ");
  // Fewer cells than stops: the line ends after the last cell's stop.
  EXPECT_EQ(FormatRow({"ab"}, {4, 8}), "ab  ");
  // More cells than stops: the extra cells are not printed.
  EXPECT_EQ(FormatRow({"ab", "cd", "ef"}, {4, 8}), "ab  cd  ");
  EXPECT_EQ(FormatRow({}, {4, 8}), "");
}

TEST(PrintSummaryTest, EmptyModelHasOnlyHeaderAndFooter) {
  SummaryTable table = ModelSummaryTable("empty", true, 20);
  table.footer_lines = ParamCountLines(0, 0, 0);
  const std::vector<std::string> expected = {
      "Model: \"empty\"",
      std::string(20, '_'),
      // Stops 9, 17 and 20: each header is cut a column before the next.
      "Layer (t Output  Par",
      std::string(20, '='),
      "Total params: 0",
      "Trainable params: 0",
      "Non-trainable params: 0",
      std::string(20, '_'),
  };
  EXPECT_EQ(Lines(table), expected);
}

TEST(PrintSummaryTest, FormatShapeAsPythonTuples) {
  EXPECT_EQ(FormatShape({-1, 26, 26, 32}), "(None, 26, 26, 32)");
  EXPECT_EQ(FormatShape({-1, 10}), "(None, 10)");
  EXPECT_EQ(FormatShape({-1}), "(None,)");
  EXPECT_EQ(FormatShape({}), "()");
  EXPECT_EQ(FormatShapeList({{-1, 28, 28, 1}}), "[(None, 28, 28, 1)]");
  EXPECT_EQ(FormatShapeList({{-1, 32}, {-1, 16}}),
            "[(None, 32), (None, 16)]");
}

TEST(PrintSummaryTest, FormatCountGroupsThousands) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(34826), "34,826");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(-1234), "-1,234");
  EXPECT_EQ(FormatCount(INT64_MIN), "-9,223,372,036,854,775,808");
}

}  // namespace
}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu
