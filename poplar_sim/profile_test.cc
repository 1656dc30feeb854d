#include "poplar_sim/profile.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/testing/test_vertices.h"

namespace poplar_sim {
namespace {

using namespace program;  // NOLINT
using ::testing::HasSubstr;

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Two IPUs: an add on IPU 0, a copy to IPU 1, in a loop of 3.
absl::StatusOr<Engine> Build(Device& device, const OptionFlags& opts = {}) {
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {64}, "a");
  Tensor b = graph.addVariable(FLOAT, {64}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 5);
  ComputeSet cs = graph.addComputeSet("addSelf");
  graph.setTileMapping(graph.addVertex(cs, "test::AddVectors", {{"a", a}, {"b", a}, {"out", a}}), 0);
  return Engine::create(graph, Repeat(3, Sequence({Execute(cs), Copy(a, b, "toIpu1")})),
                        opts);
}

TEST(ProfileTest, SummaryJsonAndTrace) {
  Device device = testing::SmallDevice(4, 2);
  auto e = Build(device);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_TRUE(e->load(device).ok());
  ASSERT_TRUE(e->run().ok());
  const Profile& p = e->getProfile();
  EXPECT_EQ(p.computeSets[0].executions, 3u);
  EXPECT_EQ(p.total.runs, 1u);
  EXPECT_EQ(p.total.cost.interIpuBytes, 3u * 256);
  EXPECT_EQ(p.trace.size(), 6u);  // 3 x (Execute + Copy)

  std::ostringstream os;
  e->printProfileSummary(os, {{"showExecutionSteps", "true"}});
  const std::string s = os.str();
  EXPECT_THAT(s, HasSubstr("ipu2 (GC200), 2 IPU(s) x 4 tiles"));
  EXPECT_THAT(s, HasSubstr("Total cycles: " + std::to_string(p.total.cycles)));
  EXPECT_THAT(s, HasSubstr("addSelf"));
  EXPECT_THAT(s, HasSubstr("Repeat"));
  EXPECT_THAT(s, HasSubstr("Copy 'toIpu1'"));
  EXPECT_THAT(s, HasSubstr("inter-IPU 768"));

  const std::string json = profileToJson(p);
  EXPECT_THAT(json, HasSubstr("\"target\":{\"arch\":\"ipu2\""));
  EXPECT_THAT(json, HasSubstr("\"memory\":{\"tiles\":[{\"tile\":0,"));
  EXPECT_THAT(json, HasSubstr("\"computeSets\":[{\"name\":\"addSelf\""));
  EXPECT_THAT(json, HasSubstr("\"interIpuBytes\":768"));

  const std::string trace = profileToChromeTrace(p);
  EXPECT_THAT(trace, HasSubstr("\"traceEvents\":["));
  EXPECT_THAT(trace, HasSubstr("{\"name\":\"IPU 0\"}"));
  EXPECT_THAT(trace, HasSubstr("{\"name\":\"IPU 1\"}"));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"toIpu1\",\"cat\":\"Copy\",\"ph\":\"X\",\"pid\":0,\"tid\":1"));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"addSelf\",\"cat\":\"Execute\",\"ph\":\"X\",\"pid\":0,\"tid\":0"));

  e->resetExecutionProfile();
  EXPECT_EQ(e->getProfile().trace.size(), 0u);
  EXPECT_EQ(e->getProfile().computeSets[0].executions, 0u);
}

TEST(ProfileTest, TraceIsBounded) {
  Device device = testing::SmallDevice(4, 2);
  auto e = Build(device, {{"debug.maxTraceEvents", "4"}});
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE(e->load(device).ok());
  ASSERT_TRUE(e->run().ok());
  EXPECT_EQ(e->getProfile().trace.size(), 4u);
  EXPECT_EQ(e->getProfile().droppedTraceEvents, 2u);
}

TEST(ProfileTest, PoplarEngineOptionsWritesReports) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") / "poplar_sim_report";
  std::filesystem::remove_all(dir);
  const std::string env = "{\"autoReport.all\":\"true\",\"autoReport.directory\":\"" +
                          dir.string() + "\"}";
  setenv("POPLAR_ENGINE_OPTIONS", env.c_str(), 1);
  Device device = testing::SmallDevice(4, 2);
  auto e = Build(device);
  unsetenv("POPLAR_ENGINE_OPTIONS");
  ASSERT_TRUE(e.ok()) << e.status();
  // Written at compile time (memory) ...
  EXPECT_TRUE(std::filesystem::exists(dir / "profile.json"));
  ASSERT_TRUE(e->load(device).ok());
  ASSERT_TRUE(e->run().ok());
  // ... and after each run (execution).
  EXPECT_THAT(ReadFile(dir / "profile.txt"), HasSubstr("Runs: 1"));
  EXPECT_THAT(ReadFile(dir / "trace.json"), HasSubstr("toIpu1"));
  EXPECT_THAT(ReadFile(dir / "profile.json"), HasSubstr("\"runs\":[{\"program\":0"));
}

// Two engines given different autoReport.subdirectory options write into
// their own subdirectories of the one directory the environment chose.
TEST(ProfileTest, SubdirectoryKeepsEnginesReportsApart) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") / "poplar_sim_sub_report";
  std::filesystem::remove_all(dir);
  const std::string env = "{\"autoReport.all\":\"true\",\"autoReport.directory\":\"" +
                          dir.string() + "\"}";
  setenv("POPLAR_ENGINE_OPTIONS", env.c_str(), 1);
  Device device = testing::SmallDevice(4, 2);
  auto first = Build(device, {{"autoReport.subdirectory", "first"}});
  auto second = Build(device, {{"autoReport.subdirectory", "second"}});
  unsetenv("POPLAR_ENGINE_OPTIONS");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_TRUE(first->load(device).ok());
  ASSERT_TRUE(first->run().ok());
  EXPECT_THAT(ReadFile(dir / "first" / "profile.txt"), HasSubstr("Runs: 1"));
  EXPECT_THAT(ReadFile(dir / "second" / "profile.txt"), HasSubstr("Runs: 0"));
  EXPECT_FALSE(std::filesystem::exists(dir / "profile.txt"));
}

TEST(ProfileTest, OutOfMemoryStillWritesAReport) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") / "poplar_sim_oom_report";
  std::filesystem::remove_all(dir);
  Graph graph(testing::SmallTarget(2));
  Tensor big = graph.addVariable(FLOAT, {200000}, "big");
  graph.setTileMapping(big, 0);
  auto e = Engine::create(graph, Sequence(),
                          {{"autoReport.all", "true"},
                           {"autoReport.directory", dir.string()}});
  EXPECT_EQ(e.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(ReadFile(dir / "profile.txt"), HasSubstr("Tiles over memory: 1"));
}

}  // namespace
}  // namespace poplar_sim
