// Table: rows of text cells printed as a Markdown table with aligned
// columns, so that benchmark output can be pasted into docs/PERFORMANCE.md.
//
//   Table t({"contestant", "steps/s"});
//   t.AddRow({"libtorch", FormatNumber(1067.3)});
//   std::cout << t.ToMarkdown();
//   // | contestant | steps/s |
//   // | ---------- | ------- |
//   // | libtorch   | 1,067   |
#ifndef TOOLS_BENCH_TABLE_H_
#define TOOLS_BENCH_TABLE_H_

#include <string>
#include <vector>

namespace tfipu_bench {

class Table {
 public:
  explicit Table(std::vector<std::string> header);
  // A row shorter than the header is padded with empty cells; a longer one
  // is cut.
  void AddRow(std::vector<std::string> cells);
  std::string ToMarkdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A number for people: thousands separators, and decimals that depend on
// the magnitude (1,067 / 198.5 / 3.27 / 0.0412).
std::string FormatNumber(double v);
// A ratio as "2.31x".
std::string FormatRatio(double r);
// Bytes as "12.3 MB" (powers of 1024).
std::string FormatBytes(double bytes);

}  // namespace tfipu_bench

#endif  // TOOLS_BENCH_TABLE_H_
