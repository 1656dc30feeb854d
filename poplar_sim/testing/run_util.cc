#include "poplar_sim/testing/run_util.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace testing {

std::vector<std::vector<double>> RunOnce(const BuildFn& build, unsigned tiles,
                                         const OptionFlags& options, HostThreads* threads) {
  Device device = SmallDevice(tiles);
  Graph graph(device.getTarget());
  program::Sequence prog;
  std::vector<Tensor> outs = build(graph, prog);
  for (size_t i = 0; i < outs.size(); ++i) {
    graph.createHostRead(absl::StrCat("out", i), outs[i]);
  }
  EXPECT_TRUE(graph.status().ok()) << graph.status();
  auto engine = Engine::create(graph, prog, options);
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return {};
  {
    absl::Status status = engine->load(device);
    EXPECT_TRUE(status.ok()) << status;
  }
  engine->setHostThreads(threads);
  absl::Status s = engine->run();
  EXPECT_TRUE(s.ok()) << s;
  std::vector<std::vector<double>> results;
  for (size_t i = 0; i < outs.size(); ++i) {
    const size_t n = outs[i].numElements();
    std::vector<char> buf(n * typeSize(outs[i].elementType()) + 1);
    absl::Status read =
        engine->readTensor(absl::StrCat("out", i), buf.data(), buf.data() + buf.size() - 1);
    EXPECT_TRUE(read.ok()) << read;
    std::vector<double> v(n);
    for (size_t k = 0; k < n; ++k) v[k] = loadAsDouble(outs[i].elementType(), buf.data(), k);
    results.push_back(std::move(v));
  }
  return results;
}

std::vector<std::vector<double>> RunBothModes(const BuildFn& build,
                                              unsigned tiles, double tolerance) {
  std::vector<std::vector<double>> results[2];
  for (int mode = 0; mode < 2; ++mode) {
    results[mode] = RunOnce(
        build, tiles, {{"debug.executeVerticesIndividually", mode ? "true" : "false"}},
        nullptr);
  }
  EXPECT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size() && i < results[1].size(); ++i) {
    for (size_t k = 0; k < results[0][i].size(); ++k) {
      const double a = results[0][i][k], b = results[1][i][k];
      if (tolerance == 0) {
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
            << "output " << i << " element " << k << ": bulk " << a
            << " vs per-vertex " << b;
      } else {
        EXPECT_NEAR(a, b, tolerance) << "output " << i << " element " << k;
      }
    }
  }
  return results[0];
}

}  // namespace testing
}  // namespace poplar_sim
