#include "tools/bench/peer_env.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "tools/bench/machine_info.h"

namespace tfipu_bench {

std::vector<std::pair<std::string, std::string>> PeerEnvironmentChanges(
    const std::function<const char*(const char*)>& getenv, bool have_openblas) {
  std::vector<std::pair<std::string, std::string>> changes;
  if (getenv(kPeerEnvMarker) != nullptr) return changes;
  const char* opt_out = getenv("TFIPU_BENCH_NO_REEXEC");
  if (opt_out != nullptr && std::strcmp(opt_out, "") != 0 && std::strcmp(opt_out, "0") != 0) {
    return changes;
  }
  if (have_openblas) {
    const char* old = getenv("LD_LIBRARY_PATH");
    changes.emplace_back("LD_LIBRARY_PATH", old != nullptr && *old != '\0'
                                                ? absl::StrCat(kOpenBlasDir, ":", old)
                                                : std::string(kOpenBlasDir));
  }
  if (getenv("OMP_WAIT_POLICY") == nullptr) {
    changes.emplace_back("OMP_WAIT_POLICY", "passive");
  }
  for (const char* pinned : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    if (getenv(pinned) != nullptr) changes.emplace_back(pinned, "");
  }
  if (!changes.empty()) changes.emplace_back(kPeerEnvMarker, "1");
  return changes;
}

void ReexecWithPeerEnvironment(int argc, char** argv) {
  (void)argc;
  struct stat st;
  const bool have_openblas = ::stat(kOpenBlasDir, &st) == 0;
  auto changes =
      PeerEnvironmentChanges([](const char* name) { return std::getenv(name); }, have_openblas);
  if (changes.empty()) return;
  if (!have_openblas) {
    std::cerr << "warning: " << kOpenBlasDir
              << " is missing: the libtorch peer will use the reference BLAS "
                 "and is not a fair peer; install libopenblas0-pthread "
                 "(tools/bench/bootstrap_peers.sh)\n";
  }
  for (const auto& [name, value] : changes) {
    if (value.empty()) {
      ::unsetenv(name.c_str());
    } else {
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ::execv("/proc/self/exe", argv);
  std::cerr << "warning: could not re-run with the peer environment (" << std::strerror(errno)
            << "); continuing without it\n";
}

std::string PeerEnvironmentSummary() {
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  std::string blas = LoadedLibraryPath("libblas.so");
  if (blas.empty()) blas = LoadedLibraryPath("libopenblas");
  // The kernel set OpenBLAS chose for this CPU (looked up at run time: the
  // benchmarks have no OpenBLAS headers).
  using CoreNameFn = char* (*)();
  auto core_name = reinterpret_cast<CoreNameFn>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const std::string core = core_name != nullptr && core_name() != nullptr
                               ? absl::StrCat(", kernels for ", core_name())
                               : "";
  std::string kind = blas.find("openblas") != std::string::npos
                         ? absl::StrCat(" (OpenBLAS", core, ")")
                     : blas.empty() ? "(none loaded)"
                                    : " (not OpenBLAS!)";
  return absl::StrCat("OMP_WAIT_POLICY=", wait ? wait : "(unset)", ", BLAS: ", blas, kind);
}

}  // namespace tfipu_bench
