// Model::summary and print_pipeline_stage_assignment_summary: the model's
// cells for the tables of utils/print_summary.h.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/keras/model.h"
#include "tensorflow_ipu/keras/utils/print_summary.h"

namespace tensorflow_ipu {
namespace keras {
namespace {

std::function<void(const std::string&)> OrStdout(
    const std::function<void(const std::string&)>& print_fn) {
  if (print_fn) return print_fn;
  return [](const std::string& line) { std::cout << line << "\n"; };
}

}  // namespace

void Model::summary(const std::function<void(const std::string&)>& print_fn) const {
  // The models here are chains (one input per layer), which Keras prints
  // in its three-column form, Functional or Sequential alike.
  utils::SummaryTable table = utils::ModelSummaryTable(name_, /*sequential_like=*/true);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Layer& layer = *nodes_[i].layer;
    // A Sequential model does not list its InputLayer; a Functional model
    // prints the input's shape as a list.
    if (i == 0 && is_sequential()) continue;
    const Shape& shape = layer.inbound_nodes()[nodes_[i].node_index].output_shape;
    std::string shape_cell =
        i == 0 ? utils::FormatShapeList({shape}) : utils::FormatShape(shape);
    table.rows.push_back({{absl::StrCat(layer.name(), " (", layer.class_name(), ")"),
                           shape_cell, absl::StrCat(layer.count_params())}});
  }
  const int64_t total = count_params();
  table.footer_lines = utils::ParamCountLines(total, total, 0);
  utils::PrintSummary(table, OrStdout(print_fn));
}

void Model::print_pipeline_stage_assignment_summary(
    const std::function<void(const std::string&)>& print_fn) const {
  utils::SummaryTable table = utils::PipelineStageSummaryTable(name_, is_sequential());
  for (size_t i = 1; i < nodes_.size(); ++i) {
    const Layer& layer = *nodes_[i].layer;
    const LayerNode& node = layer.inbound_nodes()[nodes_[i].node_index];
    const std::string stage =
        node.pipeline_stage ? absl::StrCat(*node.pipeline_stage) : std::string("None");
    const std::string name = absl::StrCat(layer.name(), " (", layer.class_name(), ")");
    if (is_sequential()) {
      table.rows.push_back({{name, stage}});
    } else {
      table.rows.push_back({{absl::StrCat(name, " (", nodes_[i].node_index, ")"),
                             node.inputs[0].layer()->name(), stage}});
    }
  }
  utils::PrintSummary(table, OrStdout(print_fn));
}

}  // namespace keras
}  // namespace tensorflow_ipu
