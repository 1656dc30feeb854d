#include "tools/bench/peak_rss.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace tfipu_bench {
namespace {

size_t StatusFieldBytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, field.size(), field) == 0 && line.size() > field.size() &&
        line[field.size()] == ':') {
      return static_cast<size_t>(std::strtoull(line.c_str() + field.size() + 1,
                                               nullptr, 10)) *
             1024;  // reported in kB
    }
  }
  return 0;
}

}  // namespace

size_t CurrentRssBytes() { return StatusFieldBytes("VmRSS"); }
size_t PeakRssBytes() { return StatusFieldBytes("VmHWM"); }

}  // namespace tfipu_bench
