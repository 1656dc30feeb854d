#include "poplar_sim/option_flags.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace poplar_sim {
namespace {

using ::testing::HasSubstr;

TEST(OptionFlagsTest, ParsesJsonObjects) {
  auto o = parseOptionsJson(
      R"({"autoReport.all":"true", "autoReport.directory" : "./r", "n": 5, "b":false})");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->get("autoReport.all"), "true");
  EXPECT_EQ(*o->get("autoReport.directory"), "./r");
  EXPECT_EQ(*o->get("n"), "5");
  EXPECT_EQ(*o->get("b"), "false");
  EXPECT_TRUE(parseOptionsJson("{}").ok());
  EXPECT_FALSE(parseOptionsJson("{\"a\":").ok());
  EXPECT_FALSE(parseOptionsJson("[1]").ok());
  EXPECT_FALSE(parseOptionsJson("{\"a\":\"b\"} x").ok());
}

TEST(OptionFlagsTest, ResolvesKnownOptionsAndRejectsUnknown) {
  unsetenv("POPLAR_ENGINE_OPTIONS");
  auto o = resolveEngineOptions({{"debug.allowOutOfMemory", "true"}});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->allowOutOfMemory);
  EXPECT_FALSE(o->autoReportAll);
  auto bad = resolveEngineOptions({{"autoReport.al", "true"}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("autoReport.al"));
  auto badBool = resolveEngineOptions({{"autoReport.all", "yes"}});
  EXPECT_THAT(std::string(badBool.status().message()),
              HasSubstr("\"true\" or \"false\""));
}

TEST(OptionFlagsTest, EnvironmentOverridesCode) {
  setenv("POPLAR_ENGINE_OPTIONS",
         R"({"autoReport.all":"true","autoReport.directory":"/tmp/x"})", 1);
  auto o = resolveEngineOptions({{"autoReport.all", "false"}});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->autoReportAll);
  EXPECT_EQ(o->autoReportDirectory, "/tmp/x");
  setenv("POPLAR_ENGINE_OPTIONS", "{bad", 1);
  auto bad = resolveEngineOptions({});
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("POPLAR_ENGINE_OPTIONS"));
  unsetenv("POPLAR_ENGINE_OPTIONS");
}

// A framework nests each engine's reports under the directory that
// POPLAR_ENGINE_OPTIONS chose.
TEST(OptionFlagsTest, SubdirectoryNestsUnderTheEnvironmentsDirectory) {
  setenv("POPLAR_ENGINE_OPTIONS",
         R"({"autoReport.all":"true","autoReport.directory":"/tmp/x"})", 1);
  auto o = resolveEngineOptions({{"autoReport.subdirectory", "cluster_0"},
                                 {"autoReport.directory", "/ignored"}});
  unsetenv("POPLAR_ENGINE_OPTIONS");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->reportDirectory(), "/tmp/x/cluster_0");
  auto plain = resolveEngineOptions({{"autoReport.directory", "r"}});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->reportDirectory(), "r");
  for (const char* bad : {"/abs", "../up", "a/../../b"}) {
    auto b = resolveEngineOptions({{"autoReport.subdirectory", bad}});
    EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(b.status().message()),
                HasSubstr("autoReport.subdirectory"));
  }
}

}  // namespace
}  // namespace poplar_sim
