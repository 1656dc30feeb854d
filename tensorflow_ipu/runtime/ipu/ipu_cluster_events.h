// What the compile and the runs of an IPU cluster put in the event trace
// (ipu_event_trace.h). IpuClusterRuntime calls these where the things
// happen; they only build and record events.
//
//   const int64_t begin = RecordCompileBegin(ir.name, ordinal);
//   absl::StatusOr<...> compiled = compiler::CompileCluster(ir, target);
//   RecordCompileEnd(ir.name, ordinal, begin, compiled.status());
//   ...
//   const int64_t run_begin = TraceNowMicros();
//   ASSIGN_OR_RETURN(stats, compiled->Run(device, inputs, &outputs));
//   RecordClusterRun(ir, ordinal, stats, run_begin);
//
// A run records, in this order: LOAD_ENGINE (only when the engine had to be
// loaded), HOST_TO_DEVICE_TRANSFER (only when the run streamed inputs in),
// EXECUTE, DEVICE_TO_HOST_TRANSFER (only when it streamed results out).
// Transfers carry the bytes the engine streamed over the host link and the
// tensors that make them up (the cluster's arguments, named after their host
// tensors, and its results); EXECUTE the simulated cycles and seconds.
#ifndef TENSORFLOW_IPU_RUNTIME_IPU_IPU_CLUSTER_EVENTS_H_
#define TENSORFLOW_IPU_RUNTIME_IPU_IPU_CLUSTER_EVENTS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "tensorflow_ipu/compiler/cluster_compiler.h"
#include "tensorflow_ipu/compiler/cluster_ir.h"
#include "tensorflow_ipu/runtime/ipu_event_trace.h"

namespace tensorflow_ipu {

// Records COMPILE_BEGIN of `cluster` on /device:IPU:`ordinal`; returns its
// timestamp, for RecordCompileEnd.
int64_t RecordCompileBegin(const std::string& cluster, int ordinal,
                           IpuEventTrace* trace = &IpuEventTrace::Global());

// Records COMPILE_END, with the compile's duration and, when `status` is an
// error, its message (a failed compile ends too).
void RecordCompileEnd(const std::string& cluster, int ordinal,
                      int64_t begin_us, const absl::Status& status,
                      IpuEventTrace* trace = &IpuEventTrace::Global());

// Records the events of one successful run of `ir` that began (on the host
// clock) at `begin_us` and ended now. `stats` is what CompiledCluster::Run
// returned.
void RecordClusterRun(const compiler::ClusterIr& ir, int ordinal,
                      const compiler::ClusterRunStats& stats, int64_t begin_us,
                      IpuEventTrace* trace = &IpuEventTrace::Global());

}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_RUNTIME_IPU_IPU_CLUSTER_EVENTS_H_
