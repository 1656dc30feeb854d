#include "tools/bench/table.h"

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

TEST(TableTest, AlignsColumnsAsMarkdown) {
  Table t({"contestant", "steps/s"});
  t.AddRow({"libtorch", "1,067"});
  t.AddRow({"a"});
  EXPECT_EQ(t.ToMarkdown(),
            "| contestant | steps/s |\n"
            "| ---------- | ------- |\n"
            "| libtorch   | 1,067   |\n"
            "| a          |         |\n");
}

TEST(TableTest, FormatsNumbersForPeople) {
  EXPECT_EQ(FormatNumber(1067.3), "1,067");
  EXPECT_EQ(FormatNumber(1234567.0), "1,234,567");
  EXPECT_EQ(FormatNumber(-2500.0), "-2,500");
  EXPECT_EQ(FormatNumber(198.54), "198.5");
  EXPECT_EQ(FormatNumber(98.544), "98.54");
  EXPECT_EQ(FormatNumber(12.3456), "12.35");
  EXPECT_EQ(FormatNumber(3.2712), "3.27");
  EXPECT_EQ(FormatNumber(0.041234), "0.0412");
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatRatio(2.314), "2.31x");
  EXPECT_EQ(FormatRatio(12.34), "12.3x");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(3.5 * 1024 * 1024), "3.5 MB");
}

}  // namespace
}  // namespace tfipu_bench
