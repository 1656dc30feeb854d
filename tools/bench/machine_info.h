// What machine and build a benchmark ran on, for the header of its output
// (numbers from different machines or build modes do not compare).
//
//   std::cout << MachineSummary();
//   // CPU: Intel(R) Xeon(R) Processor, 2 logical cores, avx2 avx512f ...
//   // build: optimised, vector ISA avx512f fma, g++ 12.2.0
//   // load average (1 min) at start: 0.12
#ifndef TOOLS_BENCH_MACHINE_INFO_H_
#define TOOLS_BENCH_MACHINE_INFO_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tfipu_bench {

// The "model name" of /proc/cpuinfo ("unknown" if unreadable).
std::string CpuModel();
// Online logical cores.
int LogicalCores();
// Which of the vector-ISA flags that matter here /proc/cpuinfo lists
// (sse4_2 avx avx2 fma avx512f avx512bw avx512dq avx512vl avx512_vnni
// avx512_bf16 amx_tile ...), space-separated.
std::string CpuVectorFlags();
// How this translation unit was compiled: optimisation and target ISA.
std::string BuildSummary();
// The 1-minute load average (/proc/loadavg), -1 if unreadable. Other
// processes' work makes every figure, and multi-threaded ones most, slower.
double LoadAverage1m();
// The median time, in nanoseconds, for a cache line to go from one host
// thread to another and back (poplar_sim/host_handoff.h, the measurement
// the engine sizes its lanes by), over at most 50 ms of trials; -1 with one
// core, or when the second thread did not get a core in time. On some VMs
// the two vCPUs sit on distant parts of the host's processor (seen:
// 430-510 ns on an AMD EPYC VM, where a core read 512 KB another core had
// just written at 28 GB/s against 100 GB/s from its own cache), and
// whatever a benchmark's threads hand each other costs that.
double CoreToCoreRoundTripNs();
// Four lines: CPU, build, the core-to-core round trip, and the load average
// now (with a warning when above 0.5: the machine is busy and the figures
// of this run are not).
std::string MachineSummary();

// The path of the first shared object mapped into this process whose file
// name contains `needle` ("" if none), from /proc/self/maps.
std::string LoadedLibraryPath(absl::string_view needle);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_MACHINE_INFO_H_
