#include "reports/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ibgpu {

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].header.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  std::string text;  // one line at a time, its buffer reused: tables run to 100k rows
  auto line = [&](const std::vector<std::string>& cells) {
    text = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::size_t pad = width[c] - cells[c].size();
      const bool last = c + 1 == cells.size();
      if (columns_[c].align == Align::right) text.append(pad, ' ').append(cells[c]);
      else text.append(cells[c]).append(last ? 0 : pad, ' ');
      if (!last) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    text += '\n';
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  };
  std::vector<std::string> headers;
  for (const auto& col : columns_) headers.push_back(col.header);
  line(headers);
  for (const auto& row : rows_) line(row);
}

std::string format_number(double value, int significant) {
  if (!std::isfinite(value)) return "-";
  if (value == 0) return "0";
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const int decimals = std::clamp(significant - 1 - static_cast<int>(magnitude), 0, 9);
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace ibgpu
