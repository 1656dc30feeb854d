#include "tools/bench/machine_info.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "poplar_sim/host_handoff.h"

namespace tfipu_bench {
namespace {

std::string CpuInfoField(absl::string_view field) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, field)) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return "";
}

}  // namespace

std::string CpuModel() {
  std::string m = CpuInfoField("model name");
  return m.empty() ? "unknown" : m;
}

int LogicalCores() { return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)); }

std::string CpuVectorFlags() {
  static const char* kInteresting[] = {
      "sse4_2",      "avx",        "avx2",     "fma",      "f16c",
      "avx512f",     "avx512bw",   "avx512dq", "avx512vl", "avx512_vnni",
      "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16"};
  std::vector<std::string> have = absl::StrSplit(CpuInfoField("flags"), ' ');
  std::string out;
  for (const char* f : kInteresting) {
    for (const std::string& h : have) {
      if (h == f) {
        absl::StrAppend(&out, out.empty() ? "" : " ", f);
        break;
      }
    }
  }
  return out;
}

std::string BuildSummary() {
  std::string isa;
#ifdef __AVX512F__
  isa = "avx512f";
#elif defined(__AVX2__)
  isa = "avx2";
#elif defined(__AVX__)
  isa = "avx";
#else
  isa = "sse2 only (no -march=native)";
#endif
#ifdef __FMA__
  absl::StrAppend(&isa, " fma");
#endif
#ifdef __OPTIMIZE__
  const char* opt = "optimised";
#else
  const char* opt = "NOT optimised (use -c opt)";
#endif
  return absl::StrCat(opt, ", vector ISA ", isa, ", g++ ", __VERSION__);
}

double LoadAverage1m() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

double CoreToCoreRoundTripNs() {
  // The simulator's own measurement, the one value per process that sizes
  // the engine's lanes, so that the header shows what the engine saw.
  const uint64_t ns = poplar_sim::internal::HostHandOffRoundTripNs();
  return ns == 0 ? -1 : static_cast<double>(ns);
}

std::string MachineSummary() {
  const double load = LoadAverage1m();
  const double round_trip = CoreToCoreRoundTripNs();
  return absl::StrCat(
      "CPU: ", CpuModel(), ", ", LogicalCores(), " logical cores, flags: ", CpuVectorFlags(), "\n",
      "build: ", BuildSummary(), "\n", "core-to-core round trip of a cache line: ",
      round_trip < 0 ? std::string("not measured") : absl::StrFormat("%.0f ns", round_trip),
      absl::StrFormat(" (so the engine's lanes take debug.minLaneWork = %d by default)",
                      poplar_sim::internal::DefaultMinLaneWork(
                          round_trip < 0 ? 0 : static_cast<uint64_t>(round_trip))),
      "\n",
      "load average (1 min) at start: ", absl::StrFormat("%.2f", load),
      load > 0.5 ? " -- WARNING: the machine is busy; these figures "
                   "are not representative"
                 : "",
      "\n");
}

std::string LoadedLibraryPath(absl::string_view needle) {
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    absl::string_view base = path;
    size_t last = base.rfind('/');
    if (last != absl::string_view::npos) base.remove_prefix(last + 1);
    if (absl::StrContains(base, needle)) return path;
  }
  return "";
}

}  // namespace tfipu_bench
