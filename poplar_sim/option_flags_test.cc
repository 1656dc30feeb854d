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
  EXPECT_EQ(absl::OkStatus(), parseOptionsJson("{}").status());
  EXPECT_FALSE(parseOptionsJson("{\"a\":").ok());
  EXPECT_FALSE(parseOptionsJson("[1]").ok());
  EXPECT_FALSE(parseOptionsJson("{\"a\":\"b\"} x").ok());
}

// Asserts that `json` is refused with InvalidArgument whose message holds
// every one of `parts`.
void ExpectRefused(const std::string& json,
                   std::initializer_list<const char*> parts) {
  absl::StatusOr<OptionFlags> o = parseOptionsJson(json);
  ASSERT_FALSE(o.ok()) << "accepted: " << json;
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << o.status();
  for (const char* part : parts) {
    EXPECT_THAT(std::string(o.status().message()), HasSubstr(part)) << json;
  }
}

TEST(OptionFlagsTest, TruncatedJsonSaysWhereItEnds) {
  ExpectRefused(R"({"a":)", {"Invalid options JSON", "line 1, column 6",
                             "unexpected end of input", "the value of option 'a'"});
  ExpectRefused(R"({"a":"b)", {"missing closing quote", "the value of option 'a'"});
  ExpectRefused(R"({"a":"b")", {"unexpected end of input"});
  ExpectRefused("", {"unexpected end of input"});
  ExpectRefused(R"({"a":"b"} x)", {"line 1, column 11", "expected end of input"});
  ExpectRefused(R"({"a":tru})", {"invalid literal"});
}

TEST(OptionFlagsTest, WrongTypesNameTheOption) {
  ExpectRefused("[1]", {"the options are an array, not an object"});
  ExpectRefused(R"("autoReport.all")", {"the options are a string, not an object"});
  ExpectRefused("7", {"the options are a number, not an object"});
  ExpectRefused(R"({"autoReport.all":null})",
                {"option 'autoReport.all' is null; give a string, number or boolean"});
  ExpectRefused(R"({"autoReport.all":["true"]})", {"option 'autoReport.all' is an array"});
  ExpectRefused(R"({"autoReport":{"all":"true"}})", {"option 'autoReport' is an object"});
}

TEST(OptionFlagsTest, DuplicateKeysAreRefused) {
  ExpectRefused(R"({"autoReport.all":"true","autoReport.all":"false"})",
                {"option 'autoReport.all' is given twice"});
}

// The parser does not recurse, and the options stop at the first nested
// value, so a deeply nested document costs nothing.
TEST(OptionFlagsTest, DeepNestingIsRefusedQuickly) {
  const int kDepth = 1000000;
  ExpectRefused(std::string(kDepth, '[') + std::string(kDepth, ']'),
                {"the options are an array"});
  ExpectRefused("{\"a\":" + std::string(kDepth, '{'), {"option 'a' is an object"});
}

TEST(OptionFlagsTest, HugeNumbers) {
  ExpectRefused(R"({"debug.maxTraceEvents":1e999})",
                {"number overflow parsing '1e999'",
                 "the value of option 'debug.maxTraceEvents'"});
  ExpectRefused(R"({"x":-1e400})", {"number overflow parsing '-1e400'", "option 'x'"});
  // An integer beyond 64 bits is kept as written, and the option that reads
  // it says it is not an integer it can use.
  auto big = parseOptionsJson(R"({"debug.maxTraceEvents":123456789012345678901234567890})");
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(*big->get("debug.maxTraceEvents"), "123456789012345678901234567890");
  unsetenv("POPLAR_ENGINE_OPTIONS");
  auto resolved = resolveEngineOptions(*big);
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(resolved.status().message()),
              HasSubstr("Option 'debug.maxTraceEvents' must be a non-negative integer, "
                        "not \"123456789012345678901234567890\""));
}

TEST(OptionFlagsTest, NonUtf8IsRefused) {
  ExpectRefused("{\"autoReport.directory\":\"r\xff\"}", {"ill-formed UTF-8 byte"});
  ExpectRefused("{\"a\xc3\":\"r\"}", {"ill-formed UTF-8 byte"});
  // The echo of the options in the message is escaped, so it is printable.
  absl::StatusOr<OptionFlags> o = parseOptionsJson("{\"a\":\"\xff\"}");
  EXPECT_THAT(std::string(o.status().message()), HasSubstr("\\xff"));
  // Raw control characters must be escaped, as JSON says.
  ExpectRefused("{\"a\":\"x\x01y\"}", {"control character U+0001"});
}

TEST(OptionFlagsTest, EscapesAreDecoded) {
  auto o = parseOptionsJson(
      R"({"autoReport.directory":"a \"q\" \\ \/ \n\t\u0001 \u00e9 \ud83d\ude00"})");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->get("autoReport.directory"),
            "a \"q\" \\ / \n\t\x01 \xc3\xa9 \xf0\x9f\x98\x80");
  ExpectRefused(R"({"a":"\ud83d"})", {"surrogate"});
  ExpectRefused(R"({"a":"\q"})", {"invalid string"});
}

TEST(OptionFlagsTest, ResolvesKnownOptionsAndRejectsUnknown) {
  unsetenv("POPLAR_ENGINE_OPTIONS");
  auto o = resolveEngineOptions({{"debug.allowOutOfMemory", "true"}});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->allowOutOfMemory);
  EXPECT_FALSE(o->autoReportAll);
  auto bad = resolveEngineOptions({{"autoReport.al", "true"}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("autoReport.al"));
  auto badBool = resolveEngineOptions({{"autoReport.all", "yes"}});
  EXPECT_THAT(std::string(badBool.status().message()),
              HasSubstr("\"true\" or \"false\""));
}

// debug.minLaneWork: how much work a lane needs to run beside others on
// the host threads; a whole number, unset by default (the engine then
// picks one for the machine: host_handoff_test).
TEST(OptionFlagsTest, MinLaneWorkIsAWholeNumber) {
  unsetenv("POPLAR_ENGINE_OPTIONS");
  auto d = resolveEngineOptions({});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->minLaneWork.has_value());
  auto zero = resolveEngineOptions({{"debug.minLaneWork", "0"}});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(zero->minLaneWork, std::optional<uint64_t>(0));
  for (const char* bad : {"-1", "lots", "1e6", ""}) {
    auto o = resolveEngineOptions({{"debug.minLaneWork", bad}});
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(o.status().message()),
                HasSubstr("Option 'debug.minLaneWork' must be a non-negative integer"))
        << bad;
  }
}

TEST(OptionFlagsTest, EnvironmentOverridesCode) {
  setenv("POPLAR_ENGINE_OPTIONS",
         R"({"autoReport.all":"true","autoReport.directory":"/tmp/x"})", 1);
  auto o = resolveEngineOptions({{"autoReport.all", "false"}});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->autoReportAll);
  EXPECT_EQ(o->autoReportDirectory, "/tmp/x");
  setenv("POPLAR_ENGINE_OPTIONS", "{bad", 1);
  auto bad = resolveEngineOptions({});
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("POPLAR_ENGINE_OPTIONS"));
  unsetenv("POPLAR_ENGINE_OPTIONS");
}

TEST(OptionFlagsTest, AnEmptyEnvironmentVariableMeansNoOptions) {
  for (const char* empty : {"", "  ", "\n"}) {
    setenv("POPLAR_ENGINE_OPTIONS", empty, 1);
    auto o = resolveEngineOptions({{"autoReport.all", "true"}});
    ASSERT_TRUE(o.ok()) << "'" << empty << "': " << o.status();
    EXPECT_TRUE(o->autoReportAll);
  }
  unsetenv("POPLAR_ENGINE_OPTIONS");
}

// parseEngineOptions checks options given in code alone: a malformed or
// contrary POPLAR_ENGINE_OPTIONS does not change its answer.
TEST(OptionFlagsTest, ParseIgnoresTheEnvironment) {
  setenv("POPLAR_ENGINE_OPTIONS", "{bad", 1);
  auto o = parseEngineOptions({{"debug.allowOutOfMemory", "true"}});
  unsetenv("POPLAR_ENGINE_OPTIONS");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->allowOutOfMemory);
  auto unknown = parseEngineOptions({{"opt.enableMagic", "true"}});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("Unrecognised engine option 'opt.enableMagic'. Known "
                        "options: autoReport.all,"));
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
  ASSERT_TRUE(plain.ok()) << plain.status();
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
