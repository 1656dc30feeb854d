#include "tools/bench/peer_env.h"

#include <map>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

using Env = std::map<std::string, std::string>;
using Changes = std::vector<std::pair<std::string, std::string>>;

Changes ChangesFor(const Env& env, bool have_openblas) {
  return PeerEnvironmentChanges(
      [&env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      have_openblas);
}

TEST(PeerEnvTest, PrependsOpenBlasAndSetsPassiveWaitOnce) {
  Changes c = ChangesFor({{"LD_LIBRARY_PATH", "/opt/x"}}, true);
  EXPECT_EQ(c, (Changes{{"LD_LIBRARY_PATH", std::string(kOpenBlasDir) + ":/opt/x"},
                        {"OMP_WAIT_POLICY", "passive"},
                        {kPeerEnvMarker, "1"}}));
  EXPECT_TRUE(ChangesFor({{kPeerEnvMarker, "1"}}, true).empty());
}

TEST(PeerEnvTest, KeepsAnExplicitWaitPolicyAndHonoursTheOptOut) {
  Changes c = ChangesFor({{"OMP_WAIT_POLICY", "active"}}, true);
  EXPECT_EQ(c, (Changes{{"LD_LIBRARY_PATH", kOpenBlasDir}, {kPeerEnvMarker, "1"}}));
  EXPECT_TRUE(ChangesFor({{"TFIPU_BENCH_NO_REEXEC", "1"}}, true).empty());
  EXPECT_TRUE(ChangesFor({{"OMP_WAIT_POLICY", "passive"}}, false).empty());
}

// OpenBLAS pinned to older kernels by the machine's environment is unpinned
// for the peer's run (an empty value: unset), and only when it was set.
TEST(PeerEnvTest, UnpinsOpenBlasKernels) {
  Changes c = ChangesFor({{"OMP_WAIT_POLICY", "passive"},
                          {"OPENBLAS_CORETYPE", "Haswell"},
                          {"OPENBLAS_L2_SIZE", "512"}},
                         true);
  EXPECT_EQ(c, (Changes{{"LD_LIBRARY_PATH", kOpenBlasDir},
                        {"OPENBLAS_CORETYPE", ""},
                        {"OPENBLAS_L2_SIZE", ""},
                        {kPeerEnvMarker, "1"}}));
  EXPECT_EQ(ChangesFor({{"OMP_WAIT_POLICY", "passive"}, {"OPENBLAS_CORETYPE", "Haswell"}}, false),
            (Changes{{"OPENBLAS_CORETYPE", ""}, {kPeerEnvMarker, "1"}}));
}

}  // namespace
}  // namespace tfipu_bench
