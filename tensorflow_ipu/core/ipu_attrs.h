// The internal node attrs (names starting with "_ipu_") and graph
// collections through which the IPU API tells placement, partitioning and
// lowering what to do with a node. They are set by the user-facing IPU layer
// (ipu/scopes, ipu/ipu_compiler, ipu/loops) and by train/, and read by
// runtime/ and compiler/; every layer takes the names from here, so a
// rename cannot leave one layer behind.
//
//   Scope s = scope.WithAttr(kShardAttr, MakeAttrValue(int64_t{1}));
//   auto it = node.def().attr().find(kOutsideCompilationAttr);
#ifndef TENSORFLOW_IPU_CORE_IPU_ATTRS_H_
#define TENSORFLOW_IPU_CORE_IPU_ATTRS_H_

namespace tensorflow_ipu {

// string: the compile() call whose cluster the op belongs to
// ("compile_<n>"); ops of one call form one cluster of their own.
inline constexpr char kCompileClusterAttr[] = "_ipu_compile";

// bool: the op of a compiled function runs on the host
// (ipu::scopes::outside_compilation_scope).
inline constexpr char kOutsideCompilationAttr[] = "_ipu_outside_compilation";

// int: the IPU of a multi-IPU device the op runs on (ipu::scopes::ipu_shard).
inline constexpr char kShardAttr[] = "_ipu_shard";

// string: the on-device loop (ipu::loops::repeat) whose body holds the op;
// int: that loop's iteration count.
inline constexpr char kLoopAttr[] = "_ipu_loop";
inline constexpr char kLoopCountAttr[] = "_ipu_loop_count";

// int N: the op belongs to the weight update of gradient accumulation
// (train::GradientAccumulationOptimizerV2) and runs once every N iterations
// of its loop, after the N-th; so do the loop's ops that depend on it.
inline constexpr char kGradientAccumulationAttr[] = "_ipu_gradient_accumulation";

// bool: the op is the output of ipu::ops::ipu_stateful_gradient_accumulate;
// true: only ops that write variables (optimizer updates) may use it
// (verify_usage, checked by the gradient-accumulation pass).
inline constexpr char kStatefulGradientAccumulateAttr[] = "_ipu_stateful_gradient_accumulate";

// The pipeline of ipu::pipelining_ops::pipeline. Every op of its loop has
// int kPipelineDepthAttr (micro-batches per weight update: the
// gradient_accumulation_count), int kPipelineStagesAttr (the number of
// stages) and int kPipelineScheduleAttr (Grouped 0, Interleaved 1,
// Sequential 2, as the vendor numbers them). The ops a stage function builds
// have int kPipelineStageAttr; their gradients (cc/gradients gives a
// gradient op its forward op's shard and stage) also bool
// kPipelineBackwardAttr.
inline constexpr char kPipelineDepthAttr[] = "_ipu_pipeline_depth";
inline constexpr char kPipelineStagesAttr[] = "_ipu_pipeline_stages";
inline constexpr char kPipelineScheduleAttr[] = "_ipu_pipeline_schedule";
inline constexpr char kPipelineStageAttr[] = "_ipu_pipeline_stage";
inline constexpr char kPipelineBackwardAttr[] = "_ipu_pipeline_backward";

// Graph collection (key: kLoopSideEffectsPrefix + loop id) of ops that must
// run once each Run of the loop, after it (e.g. a global_step increment).
inline constexpr char kLoopSideEffectsPrefix[] = "ipu_loop_side_effects:";

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_CORE_IPU_ATTRS_H_
