// The simulated IPU system of the benchmarks, configured the way a user
// program does it (ipu::config::IPUConfig), and a line describing it.
//
//   RETURN_IF_ERROR(ConfigureBenchIpus(1));
//   std::cout << IpuSummary();   // "IPU: simulated hardware, 1 device of 1 IPU x 1472 tiles"
//
// TF_POPLAR_FLAGS=--use_ipu_model (and --ipu_model_tiles=N) select the IPU
// Model instead, as for any program of this library.
#ifndef TOOLS_BENCH_IPU_SETUP_H_
#define TOOLS_BENCH_IPU_SETUP_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "tensorflow_ipu/cc/client_session.h"

namespace tfipu_bench {

// One device (/device:IPU:0) of `ipus` IPUs, replacing an earlier
// configuration of another size or buffer (contestants on 1, 2 and 4 IPUs
// run one after the other; none may hold a session across the change).
// `cross_replica_sum_buffer`: IPUConfig's
// optimizations.maximum_cross_replica_sum_buffer_size.
absl::Status ConfigureBenchIpus(int ipus, int64_t cross_replica_sum_buffer = 0);
std::string IpuSummary();

// "; simulated IPU time 67.67 us/step": what a Run cost on the simulated
// IPU (its RunMetadata), in microseconds per `per` ("step", "call").
std::string SimulatedIpuTimeNote(const tensorflow_ipu::RunMetadata& metadata,
                                 const char* per);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_IPU_SETUP_H_
