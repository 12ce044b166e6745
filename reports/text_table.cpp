#include "reports/text_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/text.h"
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
// A column folded to fit the line keeps at least this width (or its header's).
constexpr std::size_t kMinFoldWidth = 12;
// The width of a column left out of a narrow line.
constexpr std::size_t kLeftOut = std::numeric_limits<std::size_t>::max();

namespace {

// A cell's text in pieces of at most `width`, appended to `pieces`: broken at a blank, or after a comma or a link's
// "<->", where one lies within the piece; else at the width.
void fold_cell(std::string_view text, std::size_t width, std::vector<std::string_view>& pieces) {
  width = std::max<std::size_t>(width, 1);
  while (text.size() > width) {
    std::size_t cut = width;
    const std::size_t blank = text.rfind(' ', width);
    const std::size_t after = text.find_last_of(",>", width - 1);  // a comma or the end of "<->"
    if (blank != std::string_view::npos && blank > 0 && (after == std::string_view::npos || blank > after))
      cut = blank;
    else if (after != std::string_view::npos)
      cut = after + 1;
    pieces.push_back(text.substr(0, cut));
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  if (!text.empty() || pieces.empty()) pieces.push_back(text);
}

}  // namespace

std::vector<std::size_t> TextTable::fitted_widths(std::size_t indent, std::size_t fixed, LineWidth line) const {
  std::vector<std::size_t> shown(width_.begin(), width_.begin() + static_cast<std::ptrdiff_t>(fixed));
  if (!line.fit) return shown;
  const std::size_t line_width = line.columns;
  std::size_t used = indent;
  for (std::size_t c = 0; c < fixed; ++c) used += shown[c] + (c ? 2 : 0);
  // The widest column that may fold gives a column of room at a time, down to its floor ...
  while (used > line_width) {
    std::size_t widest = fixed;
    for (std::size_t c = 0; c < fixed; ++c)
      if (columns_[c].narrow == Narrow::fold && shown[c] > std::max(kMinFoldWidth, columns_[c].header.size()) &&
          (widest == fixed || shown[c] > shown[widest]))
        widest = c;
    if (widest == fixed) break;
    --shown[widest];
    --used;
  }
  // ... then the optional columns go, the rightmost first, and the room they leave unfolds.
  std::size_t kept = fixed;
  for (std::size_t c = fixed; c-- > 0 && used > line_width && kept > 1;)
    if (columns_[c].narrow == Narrow::optional) {
      --kept;
      used -= shown[c] + 2;
      shown[c] = kLeftOut;
    }
  for (std::size_t c = 0; c < fixed && used < line_width; ++c)
    if (shown[c] != kLeftOut && shown[c] < width_[c]) {
      const std::size_t back = std::min(width_[c] - shown[c], line_width - used);
      shown[c] += back;
      used += back;
    }
  return shown;
}

void TextTable::print(std::ostream& out, const std::string& indent, LineWidth line) const {
  const std::size_t line_width = line.columns;
  std::string text;  // many lines at a time, written in large pieces
  text.reserve(kWriteBytes + 1024);
  const bool wraps = !columns_.empty() && columns_.back().wrap;
  const std::size_t fixed = wraps ? columns_.size() - 1 : columns_.size();  // columns laid out side by side
  const std::vector<std::size_t> shown = fitted_widths(indent.size(), fixed, line);
  std::vector<std::size_t> visible;  // the side-by-side columns shown, in order
  for (std::size_t c = 0; c < fixed; ++c)
    if (shown[c] != kLeftOut) visible.push_back(c);
  std::size_t wrap_at = indent.size();  // where the wrapped column starts
  for (const std::size_t c : visible) wrap_at += shown[c] + 2;
  const bool below = wraps && wrap_at + kMinWrapWidth > line_width;
  const std::size_t below_at = indent.size() + kBelowIndent;
  const std::size_t wrap_width =
      below ? std::max(line_width, below_at + kMinWrapWidth) - below_at : line_width - wrap_at;
  const std::string continuation(below_at, ' ');
  auto end_line = [&](std::size_t line_begin) {
    while (text.size() > line_begin && text.back() == ' ') text.pop_back();  // a cell's own trailing blanks too
    text += '\n';
  };
  // One line: the cells side by side in their columns, then `last` in the wrapped column.
  auto put_line = [&](auto cell_of, std::string_view last) {
    const std::size_t line_begin = text.size();
    text += indent;
    std::size_t blanks = 0;  // padding not written yet: a line ends without it
    bool first = true;
    for (const std::size_t c : visible) {
      const std::size_t gap = first ? 0 : 2;
      first = false;
      const std::string_view cell = cell_of(c);
      if (cell.empty()) {
        blanks += shown[c] + gap;
        continue;
      }
      const std::size_t pad = shown[c] - std::min(shown[c], cell.size());
      blanks += gap;
      if (columns_[c].align == Align::right) blanks += pad;
      text.append(blanks, ' ').append(cell);
      blanks = columns_[c].align == Align::right ? 0 : pad;
    }
    if (!last.empty()) text.append(blanks + (visible.empty() ? 0 : 2), ' ').append(last);
    end_line(line_begin);
    return line_begin;
  };
  std::vector<std::string_view> cells(columns_.size());
  std::vector<std::vector<std::string_view>> pieces(fixed);  // a folded row's cells, line by line
  std::vector<std::string_view> beside;                      // the wrapped column's lines beside the row
  auto row = [&](bool header) {
    const std::string_view last = wraps ? cells[fixed] : std::string_view();
    bool folds = false;
    for (const std::size_t c : visible) folds = folds || cells[c].size() > shown[c];
    if (!folds && !below && last.size() <= wrap_width) {  // the common case: it fits
      put_line([&](std::size_t c) { return cells[c]; }, last);
    } else {
      std::size_t lines = 1;
      if (folds)
        for (const std::size_t c : visible) {
          pieces[c].clear();
          fold_cell(cells[c], shown[c], pieces[c]);
          lines = std::max(lines, pieces[c].size());
        }
      beside.clear();
      if (!below && last.size() <= wrap_width) beside.push_back(last);
      if (!below && last.size() > wrap_width) beside = wrap_words(last, wrap_width);
      lines = std::max(lines, beside.size());
      std::size_t first_line = 0;
      for (std::size_t k = 0; k < lines; ++k) {
        const std::size_t at = put_line(
            [&](std::size_t c) {
              if (!folds) return k == 0 ? cells[c] : std::string_view();
              return k < pieces[c].size() ? pieces[c][k] : std::string_view();
            },
            k < beside.size() ? beside[k] : std::string_view());
        if (k == 0) first_line = at;
      }
      if (below) {
        // A row that only continues the one above (its other cells empty) is its wrapped text alone.
        if (!last.empty() && lines == 1 && text.size() == first_line + 1) text.pop_back();
        if (!header)
          for (const std::string_view piece : wrap_words(last, wrap_width))
            text.append(continuation).append(piece) += '\n';
      }
    }
    if (text.size() >= kWriteBytes) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      text.clear();
    }
  };
  for (std::size_t c = 0; c < columns_.size(); ++c) cells[c] = columns_[c].header;
  row(true);
  const std::string_view all(text_);
  std::size_t begin = 0;
  for (std::size_t r = 0; r < rows_; ++r) {
    const std::uint32_t* ends = ends_.data() + r * columns_.size();
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      cells[c] = all.substr(begin, ends[c] - begin);
      begin = ends[c];
    }
    row(false);
  }
  if (visible.size() < fixed) {  // what did not fit is named, so nobody takes it for missing
    std::vector<std::string> left_out;
    for (std::size_t c = 0; c < fixed; ++c)
      if (shown[c] == kLeftOut) left_out.push_back(columns_[c].header);
    std::size_t needed = indent.size();  // the columns every cell needs, side by side
    for (std::size_t c = 0; c < fixed; ++c) needed += width_[c] + (c ? 2 : 0);
    const std::string note = "(left out to fit " + std::to_string(line_width) + " columns: " + join(left_out, ", ") +
                             "; a terminal of " + std::to_string(needed) +
                             " columns or COLUMNS=" + std::to_string(needed) + " shows them)";
    for (const std::string_view piece : wrap_words(note, line_width - std::min(line_width - 1, indent.size())))
      text.append(indent).append(piece) += '\n';
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
