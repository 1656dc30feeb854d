// The process environment a fair libtorch peer needs, set up by re-running
// the benchmark once with it, so that each benchmark is one command:
//
//   int main(int argc, char** argv) {
//     ReexecWithPeerEnvironment(argc, argv);   // returns in the re-run
//     ...
//
// - LD_LIBRARY_PATH starts with /usr/lib/x86_64-linux-gnu/openblas-pthread:
//   libtorch then calls OpenBLAS (pthreads) and not the netlib reference
//   BLAS that Debian's libtorch-dev links by default (about 3 GFLOP/s,
//   single-threaded). The dynamic loader reads it only at start-up, hence
//   the re-run.
// - OMP_WAIT_POLICY=passive (unless set): with 2 threads libtorch's OpenMP
//   pool and OpenBLAS's threads otherwise spin against each other on the 2
//   cores and training halves in speed (docs: /work/shared/PEERS.md).
// - OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset: some of these machines
//   set them (OPENBLAS_CORETYPE=Haswell), which holds OpenBLAS to its AVX2
//   kernels on an AVX-512 CPU (PEERS.md); on an AMD EPYC VM its n = 1024
//   product ran at 92 GFLOP/s on one thread with them, 159 without. The
//   kernel OpenBLAS picked shows in PeerEnvironmentSummary.
// The library under test calls no BLAS (its products are oneDNN's and
// Eigen's). Set TFIPU_BENCH_NO_REEXEC=1 to run in the environment as it is.
#ifndef TOOLS_BENCH_PEER_ENV_H_
#define TOOLS_BENCH_PEER_ENV_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tfipu_bench {

inline constexpr char kOpenBlasDir[] = "/usr/lib/x86_64-linux-gnu/openblas-pthread";
// Set in the re-run, so that it does not re-run again.
inline constexpr char kPeerEnvMarker[] = "TFIPU_BENCH_PEER_ENV";

// The variables to set (name, value; an empty value: unset) given the current environment
// (`getenv`) and whether the OpenBLAS directory exists; empty when nothing
// is to change (already re-run, opted out, or no OpenBLAS and the wait
// policy already set).
std::vector<std::pair<std::string, std::string>> PeerEnvironmentChanges(
    const std::function<const char*(const char*)>& getenv, bool have_openblas);

// Applies PeerEnvironmentChanges and re-executes /proc/self/exe with the
// same arguments; returns (without re-running) when there is nothing to
// change or exec fails, after a warning on stderr when OpenBLAS is missing.
void ReexecWithPeerEnvironment(int argc, char** argv);

// One line saying how the peer runs: "OMP_WAIT_POLICY=passive, BLAS:
// /usr/lib/.../libblas.so.3 (OpenBLAS, kernels for SkylakeX)". Call it after
// libtorch is loaded.
std::string PeerEnvironmentSummary();

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_PEER_ENV_H_
