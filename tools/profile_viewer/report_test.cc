#include "tools/profile_viewer/report.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace profile_viewer {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

Json CostJson(uint64_t compute) {
  return Json{{"cycles", compute + 5},     {"computeCycles", compute}, {"exchangeCycles", 2},
              {"syncCycles", 3},           {"interIpuCycles", 0},      {"hostCycles", 0},
              {"controlCycles", 0},        {"exchangeBytes", 8},       {"interIpuBytes", 0},
              {"hostBytesToDevice", 0},    {"hostBytesFromDevice", 0}};
}

// A report as poplar_sim writes it: 2 IPUs x 2 tiles, a Sequence holding
// one Execute run twice.
Json SmallReport() {
  Json tiles = Json::array();
  for (int t = 0; t < 4; ++t) {
    tiles.push_back(Json{{"tile", t}, {"total", 0}, {"variables", 100 * t}, {"constants", 4},
                         {"vertexState", 8}, {"exchange", 16}, {"code", 40}, {"controlCode", 10},
                         {"notAlwaysLive", 50 * t}});
  }
  return Json{
      {"target", {{"arch", "ipu2"}, {"chip", "GC200"}, {"numIPUs", 2}, {"replicationFactor", 1},
                  {"tilesPerIPU", 2}, {"bytesPerTile", 256}, {"clockHz", 1.33e9}}},
      {"memory", {{"tiles", tiles}, {"tilesUsed", 4}}},
      {"liveness", Json::array({{{"step", 1}, {"notAlwaysLiveBytes", 300}}})},
      {"load", {{"bytes", 1000}, {"cycles", 10}, {"seconds", 1e-6}}},
      {"programs", Json::array({{{"index", 0}, {"name", "main"}, {"rootStep", 0}}})},
      {"steps", Json::array({{{"id", 0}, {"parent", -1}, {"kind", "Sequence"}, {"name", ""},
                              {"ipus", Json::array()}, {"costPerExecution", CostJson(0)},
                              {"executions", 1}, {"totalCycles", 30}},
                             {{"id", 1}, {"parent", 0}, {"kind", "Execute"}, {"name", "add"},
                              {"ipus", {0, 1}}, {"costPerExecution", CostJson(10)},
                              {"executions", 2}, {"totalCycles", 30}}})},
      {"computeSets", Json::array({{{"name", "add"}, {"vertices", 4}, {"tiles", 4},
                                    {"costPerExecution", CostJson(10)}, {"maxTileCycles", 10},
                                    {"meanTileCycles", 5}, {"slowestTile", 3}, {"executions", 2},
                                    {"totalCycles", 30}, {"vertexStateBytes", 32},
                                    {"exchangeBufferBytes", 64}, {"flops", 48}}})},
      {"runs", Json::array()},
      {"total", {{"runs", 1}, {"cycles", 530}, {"seconds", 4e-7}, {"overheadCycles", 500},
                 {"breakdown", CostJson(20)}}},
      {"trace", Json::array({{{"step", 1}, {"startCycle", 500}, {"cycles", 15}},
                             {{"step", 1}, {"startCycle", 515}, {"cycles", 15}}})},
      {"droppedTraceEvents", 0},
  };
}

TEST(ReportTest, ReadsEveryPartOfAReport) {
  absl::StatusOr<Report> r = ParseReport(SmallReport().dump(), "small.json");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->chip, "GC200");
  EXPECT_EQ(r->numIPUs, 2u);
  EXPECT_EQ(r->tilesPerIPU, 2u);
  ASSERT_EQ(r->tiles.size(), 4u);
  EXPECT_EQ(r->tiles[3].variables, 300u);
  EXPECT_EQ(r->tiles[3].notAlwaysLive, 150u);
  EXPECT_EQ(r->tiles[3].alwaysLive(), 300u - 150u + 4u);
  EXPECT_EQ(r->tiles[3].total(), 300u + 4 + 8 + 16 + 40);
  EXPECT_EQ(r->tiles[3].vertexCode(), 30u);
  ASSERT_EQ(r->steps.size(), 2u);
  EXPECT_EQ(r->steps[1].name, "add");
  EXPECT_EQ(r->steps[1].ipus, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(r->steps[1].costPerExecution.compute, 10u);
  EXPECT_EQ(r->steps[1].costPerExecution.cycles(), 15u);
  ASSERT_EQ(r->computeSets.size(), 1u);
  EXPECT_EQ(r->computeSets[0].exchangeBufferBytes, 64u);
  EXPECT_EQ(r->computeSets[0].flops, 48u);
  EXPECT_EQ(r->programs[0].name, "main");
  EXPECT_EQ(r->totalCycles, 530u);
  EXPECT_EQ(r->overheadCycles, 500u);
  EXPECT_EQ(r->loadBytes, 1000u);
  ASSERT_EQ(r->trace.size(), 2u);
  EXPECT_EQ(r->trace[1].startCycle, 515u);
  ASSERT_EQ(r->liveness.size(), 1u);
  EXPECT_EQ(r->liveness[0].notAlwaysLiveBytes, 300u);
}

// A run spanning processes: its network cycles are part of the step's
// cycles (profiles of one process have no network fields: 0, as above).
TEST(ReportTest, NetworkCyclesOfARunSpanningProcessesCount) {
  Json j = SmallReport();
  j["total"]["breakdown"]["networkCycles"] = 7;
  j["total"]["breakdown"]["networkBytes"] = 4096;
  absl::StatusOr<Report> r = ParseReport(j.dump(), "distributed.json");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->totalCost.network, 7u);
  EXPECT_EQ(r->totalCost.networkBytes, 4096u);
  EXPECT_EQ(r->totalCost.cycles(), 20u + 2 + 3 + 7);
  EXPECT_EQ(r->steps[1].costPerExecution.network, 0u);
  j["total"]["breakdown"]["networkCycles"] = -1;
  EXPECT_FALSE(ParseReport(j.dump(), "bad.json").ok());
}

TEST(ReportTest, AnOlderReportWithoutTheLaterFieldsStillReads) {
  Json j = SmallReport();
  j.erase("liveness");
  j.erase("trace");
  for (Json& t : j["memory"]["tiles"]) t.erase("notAlwaysLive");
  j["computeSets"][0].erase("vertexStateBytes");
  absl::StatusOr<Report> r = ParseReport(j.dump(), "old.json");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->trace.empty());
  EXPECT_TRUE(r->liveness.empty());
  EXPECT_EQ(r->tiles[3].notAlwaysLive, 0u);
  EXPECT_EQ(r->tiles[3].alwaysLive(), 304u);
  EXPECT_EQ(r->computeSets[0].vertexStateBytes, 0u);
}

void ExpectRefused(const Json& j, const std::string& message) {
  absl::StatusOr<Report> r = ParseReport(j.dump(), "bad.json");
  ASSERT_FALSE(r.ok()) << "accepted; expected: " << message;
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Report 'bad.json'"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(message));
}

TEST(ReportTest, BadReportsAreRefusedNamingTheField) {
  absl::StatusOr<Report> notJson = ParseReport("{\"target\": ", "cut.json");
  ASSERT_FALSE(notJson.ok());
  EXPECT_EQ(notJson.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(notJson.status().message()), HasSubstr("'cut.json' is not valid JSON"));

  Json j = SmallReport();
  j.erase("steps");
  ExpectRefused(j, "field 'report.steps' is missing");
  j = SmallReport();
  j["memory"]["tiles"][2]["exchange"] = "16";
  ExpectRefused(j, "field 'memory.tiles[2].exchange' is string, not a non-negative integer");
  j = SmallReport();
  j["memory"]["tiles"][1]["controlCode"] = 41;
  ExpectRefused(j, "memory.tiles[1] has a part larger than its whole");
  j = SmallReport();
  j["target"]["tilesPerIPU"] = 3;
  ExpectRefused(j, "memory.tiles has 4 tiles, but the target has 2 IPUs x 3 tiles");
  j = SmallReport();
  j["trace"][1]["step"] = 7;
  ExpectRefused(j, "trace[1] names unknown step 7");
  j = SmallReport();
  j["steps"][1]["ipus"] = {0, 2};
  ExpectRefused(j, "steps[1].ipus holds 2, not an IPU below 2");
  j = SmallReport();
  j["steps"][1]["parent"] = 1;
  ExpectRefused(j, "steps must be in id order, each after its parent");
  j = SmallReport();
  j["programs"][0]["rootStep"] = 9;
  ExpectRefused(j, "program 'main' has root step 9 of 2");
  ExpectRefused(Json::array(), "report is not a JSON object");
}

class FindReportFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = fs::path(tmp ? tmp : "/tmp") / "find_report";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void Touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << SmallReport().dump();
  }
  fs::path dir_;
};

TEST_F(FindReportFileTest, AcceptsAFileADirectoryOrAnAutoReportDirectory) {
  Touch(dir_ / "a" / "profile.json");
  Touch(dir_ / "auto" / "cluster_0" / "profile.json");
  Touch(dir_ / "named.json");
  EXPECT_EQ(*FindReportFile((dir_ / "named.json").string()), (dir_ / "named.json").string());
  EXPECT_EQ(*FindReportFile((dir_ / "a").string()), (dir_ / "a" / "profile.json").string());
  EXPECT_EQ(*FindReportFile((dir_ / "auto").string()),
            (dir_ / "auto" / "cluster_0" / "profile.json").string());
  absl::StatusOr<Report> r = LoadReport((dir_ / "auto").string());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, (dir_ / "auto" / "cluster_0" / "profile.json").string());
}

TEST_F(FindReportFileTest, SeveralReportsOrNoneAreErrors) {
  Touch(dir_ / "two" / "cluster_0" / "profile.json");
  Touch(dir_ / "two" / "cluster_1" / "profile.json");
  absl::StatusOr<std::string> two = FindReportFile((dir_ / "two").string());
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(two.status().message()), HasSubstr("holds 2 reports"));
  EXPECT_THAT(std::string(two.status().message()), HasSubstr("cluster_1/profile.json"));
  EXPECT_THAT(std::string(two.status().message()), HasSubstr("pass one of them"));

  fs::create_directories(dir_ / "empty");
  absl::StatusOr<std::string> none = FindReportFile((dir_ / "empty").string());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("autoReport.all"));
  absl::StatusOr<Report> missing = LoadReport((dir_ / "nothing.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("nothing.json"));
}

}  // namespace
}  // namespace profile_viewer
