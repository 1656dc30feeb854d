// pipeline_cfg {"converter": "auto"}: choose the number of pipeline stages
// and the stages themselves from a profile of the model on the simulator.
//
//   {"converter": "auto", "priority": "cycle", "min_ipu_quantity": 2,
//    "max_ipu_quantity": 8}
//
// As the original does, for n = 2^k stages (k from max(floor(log2
// min_ipu_quantity), 1) to floor(log2 max_ipu_quantity)), one stage per
// IPU:
//  1. first try: the compute nodes (serving_graph.h) in topological order
//     cut into chunks of N/n + 1 nodes, run once on n simulated IPUs with
//     profiling; when the IPUs' summed free memory is below 160 MB (the
//     original's allowance for vertices), try the next n;
//  2. split: the profile gives each node a cost (node_costs.h): its cycles
//     with priority "cycle", its memory with "memory". The nodes are cut
//     into n contiguous stages by the exact split, which minimises the
//     most expensive stage ("split": "greedy" selects the original's
//     find_opt instead; split.h), and the split is run and profiled.
//     A node's cost depends on where its inputs come from (one whose
//     input arrives from another IPU first rearranges it over its tiles,
//     which the first try measured only at its own boundaries), so the
//     costs that run measured are split again, up to kRefinementRounds
//     times or until a split repeats; the split whose run had the
//     cheapest slowest stage (measured, not predicted) is kept. Both
//     split methods go through the same rounds. (Not in the original,
//     which kept its first split.);
//  3. when an IPU's memory is exceeded, up to fine_tune_iter tune-if-OOM
//     moves (memory_tuning.h), each run and profiled again; a split that
//     still does not fit tries the next n (the original kept it).
// The first n that fits wins: its solution is written to solution_dir as
// exact_split_solutions.pipeconf (greedy_search_solutions.pipeconf with
// the greedy split; "_tune_<i>" before the suffix after tuning move i),
// and applied to the graph (pipeline_solution.h). No n fits:
// ResourceExhausted "(IPU-END) Can not find the optimal solution.", with
// what each try found. Reports go to <profiling_root_dir>/
// auto_pipeline_solver-<n>-b<batch_size>-<priority>/{first-try,split-<round>,
// tune-<i>}.
#ifndef TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_AUTO_PIPELINE_H_
#define TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_AUTO_PIPELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/ipu_saved_model_cli/convert/converter.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_config.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/pipeline_context.h"

namespace tensorflow_ipu {
namespace saved_model_cli {

// Re-splits with the costs measured on the previous split (step 2).
inline constexpr int kRefinementRounds = 3;

// The original's estimate of the memory vertices need beyond the profile.
inline constexpr int64_t kVertexAllowanceBytes = 160'000'000;

// What one n tried.
struct AutoPipelineTry {
  int num_stages = 0;
  // Free memory summed over the IPUs of the first try.
  int64_t first_try_free_bytes = 0;
  // The cost of each compute node (in compute order) the split balanced.
  std::vector<int64_t> node_costs;
  // Nodes per stage of the split (after tuning moves, if any).
  std::vector<int> stage_sizes;
  // The split's stage costs predicted from node_costs, and what the run of
  // the split measured: each IPU's Execute cycles and memory.
  std::vector<int64_t> predicted_stage_costs;
  std::vector<int64_t> measured_stage_cycles;
  std::vector<int64_t> measured_stage_memory;
  // The slowest stage each split round measured (cycles or bytes).
  std::vector<int64_t> measured_slowest_per_round;
  int tuning_moves = 0;
  bool fits = false;
};

class AutoPipeline : public Converter {
 public:
  AutoPipeline(AutoPipelineConfig config, PipelineContext context)
      : config_(std::move(config)), context_(std::move(context)) {}
  absl::string_view name() const override { return "AutoPipeline"; }
  absl::Status Apply(GraphDef* graph, SignatureDef* signature) override;

  // After a successful Apply: the IPUs the pipeline uses (the number of
  // stages; the original set num_ipus to it), the solution file written,
  // and every n tried.
  int num_ipus() const { return num_ipus_; }
  const std::string& solution_path() const { return solution_path_; }
  const std::vector<AutoPipelineTry>& tries() const { return tries_; }

 private:
  AutoPipelineConfig config_;
  PipelineContext context_;
  int num_ipus_ = 0;
  std::string solution_path_;
  std::vector<AutoPipelineTry> tries_;
};

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu

#endif  // TOOLS_IPU_SAVED_MODEL_CLI_CONVERT_PIPELINE_AUTO_PIPELINE_H_
