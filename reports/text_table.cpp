#include "reports/text_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "reports/render_util.h"

namespace ibgpu {

namespace {

constexpr std::size_t kWriteBytes = std::size_t{1} << 16;

// value with `decimals` digits after the point, rounded to nearest, when that
// is sure to be printf's answer: the scaled value |value| * 10^decimals is
// below 2^32, so one rounding of the product is off by at most 2^-21 (10^d is
// exact), under kTieMargin; and it is not that near a tie, so the exact
// product rounds the same way. Else nullptr: the caller writes it exactly
// (printf rounds the exact binary value, ties to even). The common case of a
// report's numbers, at a fraction of the exact formatter's cost.
char* fixed_by_scaling(char* text, double value, int decimals) {
  static constexpr double kPowers[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  constexpr double kLimit = 4294967296.0;  // 2^32
  constexpr double kTieMargin = 1e-6;
  if (decimals < 0 || decimals > 9) return nullptr;
  const double scaled = std::fabs(value) * kPowers[decimals];
  if (!(scaled < kLimit)) return nullptr;
  const double whole = std::floor(scaled);
  const double fraction = scaled - whole;
  if (std::fabs(fraction - 0.5) < kTieMargin) return nullptr;
  const auto digits = static_cast<std::uint64_t>(whole) + (fraction > 0.5 ? 1 : 0);
  char number[24];
  char* number_end = std::to_chars(number, number + sizeof number, digits).ptr;
  auto count = static_cast<std::size_t>(number_end - number);
  const auto places = static_cast<std::size_t>(decimals);
  char* at = text;
  if (std::signbit(value)) *at++ = '-';
  if (count <= places) {  // "0.000ddd"
    *at++ = '0';
    if (places) *at++ = '.';
    for (std::size_t i = count; i < places; ++i) *at++ = '0';
    std::memcpy(at, number, count);
    return at + count;
  }
  std::memcpy(at, number, count - places);
  at += count - places;
  if (places) {
    *at++ = '.';
    std::memcpy(at, number + count - places, places);
    at += places;
  }
  return at;
}

}  // namespace

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)), width_(columns_.size()) {
  for (std::size_t c = 0; c < columns_.size(); ++c) width_[c] = columns_[c].header.size();
}

void TextTable::end_cell() {
  const std::size_t begin = ends_.empty() ? 0 : ends_.back();
  if (row_cells_ == columns_.size()) {  // a cell past the last column: dropped
    text_.resize(begin);
    return;
  }
  // A host name or an error text with a newline or an escape sequence would break the
  // table, or drive the terminal: every cell is shown escaped.
  make_printable(text_, begin);
  if (text_.size() > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("table text over 4 GiB");
  width_[row_cells_] = std::max(width_[row_cells_], text_.size() - begin);
  ends_.push_back(static_cast<std::uint32_t>(text_.size()));
  ++row_cells_;
}

void TextTable::end_row() {
  while (row_cells_ < columns_.size()) end_cell();
  row_cells_ = 0;
  ++rows_;
  // The first row tells about how much text the reserved rows will hold.
  if (rows_ == 1 && reserved_rows_ > 1) text_.reserve(text_.size() * reserved_rows_ * 3 / 2);
}

void TextTable::reserve(std::size_t rows) {
  reserved_rows_ = rows;
  ends_.reserve(rows * columns_.size());
}

void TextTable::add_row(std::initializer_list<std::string_view> cells) {
  for (const std::string_view cell_text : cells) cell(cell_text);
  end_row();
}

void TextTable::add_row(const std::vector<std::string>& cells) {
  for (const std::string& cell_text : cells) cell(cell_text);
  end_row();
}

// A wrapped column narrower than this goes below its row, indented by kBelowIndent.
constexpr std::size_t kMinWrapWidth = 40;
constexpr std::size_t kBelowIndent = 4;

void TextTable::print(std::ostream& out, const std::string& indent) const {
  std::string text;  // many lines at a time, written in large pieces
  text.reserve(kWriteBytes + 1024);
  const bool wraps = !columns_.empty() && columns_.back().wrap;
  const std::size_t fixed = wraps ? columns_.size() - 1 : columns_.size();  // columns laid out side by side
  std::size_t wrap_at = indent.size();                                      // where the wrapped column starts
  for (std::size_t c = 0; c < fixed; ++c) wrap_at += width_[c] + 2;
  const bool below = wraps && wrap_at + kMinWrapWidth > kLineWidth;
  const std::size_t wrap_width = below ? kLineWidth - indent.size() - kBelowIndent : kLineWidth - wrap_at;
  const std::string continuation(below ? indent.size() + kBelowIndent : wrap_at, ' ');
  auto end_line = [&](std::size_t line_begin) {
    while (text.size() > line_begin && text.back() == ' ') text.pop_back();  // a cell's own trailing blanks too
    text += '\n';
  };
  auto line = [&](auto cell_at, bool header) {
    const std::size_t line_begin = text.size();
    text += indent;
    std::size_t blanks = 0;  // padding not written yet: a line ends without it
    for (std::size_t c = 0; c < fixed; ++c) {
      const std::string_view cell = cell_at(c);
      if (cell.empty()) {
        blanks += width_[c] + (c ? 2 : 0);
        continue;
      }
      const std::size_t pad = width_[c] - cell.size();
      blanks += c ? 2 : 0;
      if (columns_[c].align == Align::right) blanks += pad;
      text.append(blanks, ' ').append(cell);
      blanks = columns_[c].align == Align::right ? 0 : pad;
    }
    if (wraps) {
      const std::string_view cell = cell_at(fixed);
      if (!below && cell.size() <= wrap_width) {  // the common case: it fits
        if (!cell.empty()) text.append(blanks + (fixed ? 2 : 0), ' ').append(cell);
        end_line(line_begin);
      } else if (!below) {
        const auto pieces = wrap_words(cell, wrap_width);
        text.append(blanks + (fixed ? 2 : 0), ' ');
        for (std::size_t i = 0; i < pieces.size(); ++i) text.append(i ? continuation : "").append(pieces[i]) += '\n';
        if (pieces.empty()) text += '\n';
        text.pop_back();
        end_line(line_begin);
      } else {
        end_line(line_begin);
        // A row that only continues the one above (its other cells empty) is its wrapped text alone.
        if (!cell.empty() && text.size() == line_begin + 1) text.pop_back();
        if (!header)
          for (const std::string_view piece : wrap_words(cell, wrap_width))
            text.append(continuation).append(piece) += '\n';
      }
    } else {
      end_line(line_begin);
    }
    if (text.size() >= kWriteBytes) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      text.clear();
    }
  };
  line([&](std::size_t c) { return std::string_view(columns_[c].header); }, true);
  const std::string_view all(text_);
  std::size_t begin = 0;
  for (std::size_t row = 0; row < rows_; ++row) {
    const std::uint32_t* ends = ends_.data() + row * columns_.size();
    line(
        [&](std::size_t c) {
          const std::size_t cell_begin = begin;
          begin = ends[c];
          return all.substr(cell_begin, ends[c] - cell_begin);
        },
        false);
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

char* format_number_to(char* text, double value, int significant) {
  if (!std::isfinite(value)) {
    *text = '-';
    return text + 1;
  }
  if (value == 0) {
    *text = '0';
    return text + 1;
  }
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const int decimals = std::clamp(significant - 1 - static_cast<int>(magnitude), 0, 9);
  if (char* end = fixed_by_scaling(text, value, decimals)) return end;
  // As printf("%.*f") writes it (the standard defines it so), without the
  // format parsing and locale of printf.
  return std::to_chars(text, text + kNumberChars, value, std::chars_format::fixed, decimals).ptr;
}

std::string format_number(double value, int significant) {
  char text[kNumberChars];
  return std::string(text, format_number_to(text, value, significant));
}

void append_number(std::string& out, double value, int significant) {
  char text[kNumberChars];
  out.append(text, format_number_to(text, value, significant));
}

}  // namespace ibgpu
