#pragma once
// Column layout for terminal tables: widths from content, two spaces between
// columns, numbers right-aligned, no trailing blanks.
#include <ostream>
#include <string>
#include <vector>

namespace ibgpu {

class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& out, const std::string& indent = "") const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Fixed, locale-independent number text: "12.35", "0.001234", "-".
std::string format_number(double value, int significant = 4);

}  // namespace ibgpu
