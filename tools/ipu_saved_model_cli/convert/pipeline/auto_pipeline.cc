#include "tools/ipu_saved_model_cli/convert/pipeline/auto_pipeline.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/memory_tuning.h"
#include "tools/ipu_saved_model_cli/convert/pipeline/split.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// The stage of each compute node, from the number of nodes per stage.
std::map<std::string, int> StagesFromSizes(const ServingGraph& graph,
                                           const std::vector<int>& sizes) {
  std::map<std::string, int> stages;
  size_t i = 0;
  for (size_t s = 0; s < sizes.size(); ++s) {
    for (int k = 0; k < sizes[s] && i < graph.compute_order().size(); ++k) {
      stages[graph.compute_order()[i++]] = static_cast<int>(s);
    }
  }
  return stages;
}

// Stage s on IPU s.
std::vector<int> OneIpuPerStage(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

bool Fits(const ProfileSummary& p) {
  for (int64_t used : p.ipu_memory_bytes) {
    if (used > p.ipu_capacity_bytes) return false;
  }
  return true;
}

// The cost of a run's slowest stage: its IPU's Execute cycles, or memory.
int64_t Slowest(CostKind kind, const ProfileSummary& p) {
  const std::vector<int64_t>& per_ipu =
      kind == CostKind::kCycles ? p.ipu_execute_cycles : p.ipu_memory_bytes;
  int64_t slowest = 0;
  for (int64_t v : per_ipu) slowest = std::max(slowest, v);
  return slowest;
}

int FloorLog2(int v) {
  int k = 0;
  while ((2 << k) <= v) ++k;
  return k;
}

}  // namespace

absl::Status AutoPipeline::Apply(GraphDef* graph, SignatureDef* signature) {
  ASSIGN_OR_RETURN(ServingGraph serving, ServingGraph::Make(*graph, *signature));
  const int num_nodes = static_cast<int>(serving.compute_order().size());
  const CostKind kind = config_.priority == "memory" ? CostKind::kMemory : CostKind::kCycles;
  const bool exact = config_.split == SplitMethod::kExact;
  const std::string base = exact ? "exact_split_solutions" : "greedy_search_solutions";
  tries_.clear();
  std::vector<std::string> findings;
  for (int k = std::max(FloorLog2(config_.min_ipu_quantity), 1);
       k <= FloorLog2(config_.max_ipu_quantity); ++k) {
    const int n = 1 << k;
    if (num_nodes < n) {
      findings.push_back(absl::StrCat(n, " stages: the graph has only ", num_nodes,
                                      " nodes to split (lower min_ipu_quantity)"));
      break;
    }
    AutoPipelineTry attempt;
    attempt.num_stages = n;
    const std::string dir =
        ResolvePath(context_, absl::StrCat(config_.profiling_root_dir, "/auto_pipeline_solver-", n,
                                           "-b", context_.batch_size, "-", config_.priority));
    // 1. First try: equal node counts.
    const int chunk = num_nodes / n + 1;
    std::map<std::string, int> first;
    int first_stages = 0;
    for (int i = 0; i < num_nodes; ++i) {
      first[serving.compute_order()[i]] = i / chunk;
      first_stages = i / chunk + 1;
    }
    ASSIGN_OR_RETURN(PipelineSolution first_solution,
                     MakeSolution(serving, first, OneIpuPerStage(first_stages)));
    ASSIGN_OR_RETURN(
        ProfileSummary first_profile,
        ProfileSolution(*graph, *signature, serving, first_solution, context_, dir + "/first-try"));
    for (int64_t used : first_profile.ipu_memory_bytes) {
      attempt.first_try_free_bytes += first_profile.ipu_capacity_bytes - used;
    }
    if (attempt.first_try_free_bytes < kVertexAllowanceBytes) {
      findings.push_back(absl::StrCat(n, " stages: ", attempt.first_try_free_bytes,
                                      " bytes free on the IPUs after the first try, below ",
                                      kVertexAllowanceBytes));
      tries_.push_back(std::move(attempt));
      continue;
    }
    // 2. The split of the profiled costs, run and profiled, then split
    // again with the costs that run measured (see auto_pipeline.h).
    const auto split = [&](const std::vector<int64_t>& costs) {
      return exact ? ExactSplit(costs, n) : GreedySplit(costs, n);
    };
    std::vector<int64_t> costs = ComputeNodeCosts(first_profile, serving, kind);
    std::set<std::vector<int>> seen;
    PipelineSolution solution;
    ProfileSummary profile;
    int64_t best_slowest = -1;
    for (int round = 0; round <= kRefinementRounds; ++round) {
      ASSIGN_OR_RETURN(std::vector<int> sizes, split(costs));
      if (!seen.insert(sizes).second) break;
      ASSIGN_OR_RETURN(PipelineSolution candidate,
                       MakeSolution(serving, StagesFromSizes(serving, sizes), OneIpuPerStage(n)));
      ASSIGN_OR_RETURN(ProfileSummary measured,
                       ProfileSolution(*graph, *signature, serving, candidate, context_,
                                       absl::StrCat(dir, "/split-", round)));
      const int64_t slowest = Slowest(kind, measured);
      attempt.measured_slowest_per_round.push_back(slowest);
      if (best_slowest < 0 || slowest < best_slowest) {
        best_slowest = slowest;
        solution = std::move(candidate);
        profile = measured;
        attempt.node_costs = costs;
        attempt.stage_sizes = sizes;
      }
      costs = ComputeNodeCosts(measured, serving, kind);
    }
    // 3. Move nodes off the stages that are out of memory.
    std::string file = absl::StrCat(base, ".pipeconf");
    const std::vector<int64_t> memory = ComputeNodeCosts(profile, serving, CostKind::kMemory);
    attempt.fits = Fits(profile);
    for (int move = 0; !attempt.fits && move < config_.fine_tune_iter; ++move) {
      const std::vector<int> tuned = TuneIfOom(
          attempt.stage_sizes, memory, profile.ipu_memory_bytes, profile.ipu_capacity_bytes);
      if (tuned == attempt.stage_sizes) break;
      attempt.stage_sizes = tuned;
      attempt.tuning_moves = move + 1;
      file = absl::StrCat(base, "_tune_", move, ".pipeconf");
      ASSIGN_OR_RETURN(solution,
                       MakeSolution(serving, StagesFromSizes(serving, tuned), OneIpuPerStage(n)));
      ASSIGN_OR_RETURN(profile, ProfileSolution(*graph, *signature, serving, solution, context_,
                                                absl::StrCat(dir, "/tune-", move)));
      attempt.fits = Fits(profile);
    }
    attempt.predicted_stage_costs = StageCosts(attempt.node_costs, attempt.stage_sizes);
    attempt.measured_stage_cycles = profile.ipu_execute_cycles;
    attempt.measured_stage_memory = profile.ipu_memory_bytes;
    if (!attempt.fits) {
      findings.push_back(absl::StrCat(n, " stages: an IPU's memory is exceeded after ",
                                      attempt.tuning_moves, " tuning moves"));
      tries_.push_back(std::move(attempt));
      continue;
    }
    const std::string path = ResolvePath(context_, config_.solution_dir + "/" + file);
    RETURN_IF_ERROR(WriteSolutionFile(path, solution));
    GraphDef staged = *graph;
    RETURN_IF_ERROR(ApplySolution(solution, &staged));
    *graph = std::move(staged);
    tries_.push_back(std::move(attempt));
    num_ipus_ = n;
    solution_path_ = path;
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "(IPU-END) Can not find the optimal solution. ",
      findings.empty() ? std::string("No number of stages was tried: check min_ipu_quantity and "
                                     "max_ipu_quantity")
                       : absl::StrCat("Tried: ", absl::StrJoin(findings, "; "),
                                      ". A model that does not fit needs more IPUs "
                                      "(max_ipu_quantity) or a smaller batch_size.")));
}

}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
