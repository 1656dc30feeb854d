#include "tools/bench/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tfipu_bench {

Table::Table(std::vector<std::string> header) : header_(std::move(header)) {}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::ToMarkdown() const {
  std::vector<size_t> width(header_.size(), 3);
  auto widen = [&width](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  };
  widen(header_);
  for (const auto& r : rows_) widen(r);
  auto line = [&width](const std::vector<std::string>& row) {
    std::string s = "|";
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppend(&s, " ", row[c], std::string(width[c] - row[c].size(), ' '), " |");
    }
    return s + "\n";
  };
  std::string out = line(header_);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  out += line(rule);
  for (const auto& r : rows_) out += line(r);
  return out;
}

namespace {

std::string WithThousands(const std::string& digits) {
  // digits: an optional '-', then the integer part, then maybe ".xyz".
  size_t start = digits[0] == '-' ? 1 : 0;
  size_t end = digits.find('.');
  if (end == std::string::npos) end = digits.size();
  std::string out = digits.substr(0, start);
  for (size_t i = start; i < end; ++i) {
    out.push_back(digits[i]);
    const size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0) out.push_back(',');
  }
  return out + digits.substr(end);
}

}  // namespace

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  const double a = std::fabs(v);
  if (a >= 1000) return WithThousands(absl::StrFormat("%.0f", v));
  if (a >= 100) return absl::StrFormat("%.1f", v);
  if (a >= 1) return absl::StrFormat("%.2f", v);
  if (a == 0) return "0";
  return absl::StrFormat("%.3g", v);
}

std::string FormatRatio(double r) {
  if (!std::isfinite(r)) return "n/a";
  return absl::StrCat(r >= 10 ? absl::StrFormat("%.1f", r) : absl::StrFormat("%.2f", r), "x");
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0) return absl::StrFormat("%.0f B", bytes);
  return absl::StrFormat("%.1f %s", bytes, units[u]);
}

}  // namespace tfipu_bench
