#include "tools/ipu_saved_model_cli/convert/python_literal.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::ElementsAre;

absl::Status Error(absl::string_view text) {
  return ParseListOfStringLists(text, "manual_sharding").status();
}

TEST(PythonLiteralTest, ReadsListsOfStringsInEitherQuotes) {
  auto v = ParseListOfStringLists(R"( [ ["^add$"], ['^mul', "x\\d+"] ,[] , ] )",
                                  "manual_sharding");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_THAT((*v)[0], ElementsAre("^add$"));
  EXPECT_THAT((*v)[1], ElementsAre("^mul", "x\\d+"));
  EXPECT_TRUE((*v)[2].empty());
}

TEST(PythonLiteralTest, EscapesAndUnknownEscapesAsPythonReadsThem) {
  auto v = ParseListOfStringLists(R"([["a\'b", 'c\"d', "\\", "\d"]])", "manual_sharding");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT((*v)[0], ElementsAre("a'b", "c\"d", "\\", "\\d"));
}

TEST(PythonLiteralTest, AnEmptyListIsNoSharding) {
  auto v = ParseListOfStringLists("[]", "manual_sharding");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->empty());
}

TEST(PythonLiteralTest, ElementsOfTheWrongKindAreNamedAsTheOriginalDoes) {
  EXPECT_EQ(Error("\"^add$\"").message(), "manual_sharding must be a list of lists of strings, not str.");
  EXPECT_EQ(Error("[\"^add$\"]").message(),
            "manual_sharding must only contain lists of strings, not str.");
  EXPECT_EQ(Error("[[1]]").message(),
            "manual_sharding must only contain lists of strings, not lists of int.");
  EXPECT_EQ(Error("[[2.5]]").message(),
            "manual_sharding must only contain lists of strings, not lists of float.");
  EXPECT_EQ(Error("[[None, True]]").message(),
            "manual_sharding must only contain lists of strings, not lists of NoneType.");
  EXPECT_EQ(Error("[[[\"a\"]]]").message(),
            "manual_sharding must only contain lists of strings, not lists of list.");
  EXPECT_EQ(Error("[[\"a\"]]").code(), absl::StatusCode::kOk);
}

TEST(PythonLiteralTest, SyntaxErrorsSayWhereAndNothingIsEvaluated) {
  absl::Status s = Error("[[\"a\"], __import__('os')]");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "manual_sharding is not a Python list of lists of strings (like "
            "'[[\"^add$\"], [\"^mul$\"]]'): expected a list or a string at position 8 of "
            "'[[\"a\"], __import__('os')]'");
  EXPECT_EQ(Error("[[\"a\"]").message(),
            "manual_sharding is not a Python list of lists of strings (like "
            "'[[\"^add$\"], [\"^mul$\"]]'): expected ',' or ']', found the end at position 6 "
            "of '[[\"a\"]'");
  EXPECT_EQ(Error("[[\"a]]").message(),
            "manual_sharding is not a Python list of lists of strings (like "
            "'[[\"^add$\"], [\"^mul$\"]]'): a string is not closed at position 6 of '[[\"a]]'");
  EXPECT_EQ(Error("[] x").message(),
            "manual_sharding is not a Python list of lists of strings (like "
            "'[[\"^add$\"], [\"^mul$\"]]'): unexpected text after the closing ']' at position 3 "
            "of '[] x'");
  EXPECT_EQ(Error("").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Error("{'a': 1}").code(), absl::StatusCode::kInvalidArgument);
}

TEST(PythonLiteralTest, DeepNestingIsRefusedWithoutRecursingFurther) {
  const std::string deep(100000, '[');
  absl::Status s = Error(deep);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("lists nested too deeply at position 64"),
            std::string::npos)
      << s.message().substr(0, 200);
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
