#include "tools/bench/openblas_threads.h"

#include <dlfcn.h>

namespace tfipu_bench {

bool SetOpenBlasThreads(int n) {
  using SetFn = void (*)(int);
  auto set = reinterpret_cast<SetFn>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set == nullptr) return false;
  set(n);
  return true;
}

int OpenBlasThreads() {
  using GetFn = int (*)();
  auto get = reinterpret_cast<GetFn>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return get == nullptr ? -1 : get();
}

}  // namespace tfipu_bench
