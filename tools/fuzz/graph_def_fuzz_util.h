// The body shared by the GraphDef fuzz targets (binary and text): whatever
// GraphDef the fuzzer made, give it to Session::Create and, when it is
// valid and small enough to run quickly, Run it with generated feeds.
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
//     absl::StatusOr<GraphDef> def = GraphDefFromText(...);
//     if (def.ok()) tensorflow_ipu::fuzz::CreateAndRun(*def);
//     return 0;
//   }
//
// Any outcome but a crash, a hang or a sanitizer report is fine: errors are
// the expected answer to most inputs. What "small enough" means (bounds that
// keep each execution in milliseconds, not limits of the library) is in
// graph_def_fuzz_util.cc.
#ifndef TOOLS_FUZZ_GRAPH_DEF_FUZZ_UTIL_H_
#define TOOLS_FUZZ_GRAPH_DEF_FUZZ_UTIL_H_

#include "tensorflow_ipu/core/proto/graph.pb.h"

namespace tensorflow_ipu {
namespace fuzz {

// Configures a 4-tile, single-IPU IPU Model once per process, so nodes the
// fuzzer places on /device:IPU:0 are compiled and run on the simulator; and
// silences protobuf's log of refused strings.
void ConfigureIpuModelOnce();

void CreateAndRun(const GraphDef& def);

}  // namespace fuzz
}  // namespace tensorflow_ipu

#endif  // TOOLS_FUZZ_GRAPH_DEF_FUZZ_UTIL_H_
