#pragma once
// Column layout for terminal tables: widths from content, two spaces between
// columns, numbers right-aligned, no trailing blanks. A last column that wraps
// (long reasons, notes) keeps every line within the line width: its text continues
// on lines below, under the column, or below the row when the column starts too
// far right; a text column too wide for the line folds its cells likewise.
//
// A fleet's tables run to hundreds of thousands of rows, so the cells live in
// one text with an end offset each (not a string per cell), and the column
// widths grow as rows arrive.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

// The widest line the tables write unless told the terminal's width (columns, one byte a column).
inline constexpr std::size_t kLineWidth = 120;

// The line a table is laid out for: its columns, and whether the columns side by side must fit
// them (a terminal's known width: columns fold or are left out) or may run past (a file, a pipe:
// every column is kept, and only wrapped text keeps to the width).
struct LineWidth {
  std::size_t columns = kLineWidth;
  bool fit = false;
};

class TextTable {
 public:
  enum class Align { left, right };
  // How a column gives way on a narrow line (print's line_width): a column that may fold
  // (lists, identifiers made of parts) breaks its long cells onto the lines below; one that is
  // optional is left out, the rightmost first, when folding is not enough, and a line under
  // the table names it.
  enum class Narrow { keep, fold, optional };
  struct Column {
    std::string header;
    Align align = Align::left;
    bool wrap = false;  // the last column only: wrapped at the line width
    Narrow narrow = Narrow::keep;
  };

  explicit TextTable(std::vector<Column> columns);

  // A row of cells; missing cells are empty, extra ones are dropped.
  void add_row(std::initializer_list<std::string_view> cells);
  void add_row(const std::vector<std::string>& cells);

  // A row composed in place: append the current cell's text to cell_text(),
  // then end_cell(); end_row() after the row's cells.
  std::string& cell_text() { return text_; }
  void end_cell();
  void cell(std::string_view text) {
    text_ += text;
    end_cell();
  }
  void end_row();

  // Room for about this many rows (the first row's size sets the text's).
  void reserve(std::size_t rows);

  // Laid out for `line`: with `fit`, within its columns where the columns allow it (see Narrow;
  // a folded column keeps at least 12 columns or its header's width); a wrapped last column
  // wraps at its columns either way.
  void print(std::ostream& out, const std::string& indent = "", LineWidth line = {}) const;
  bool empty() const { return rows_ == 0; }

 private:
  // The width each side-by-side column is shown at within the line (kLeftOut: left out).
  std::vector<std::size_t> fitted_widths(std::size_t indent, std::size_t fixed, LineWidth line) const;

  std::vector<Column> columns_;
  std::vector<std::size_t> width_;
  std::string text_;                 // every cell's text, one after another
  std::vector<std::uint32_t> ends_;  // where each cell ends in text_, columns_.size() per row
  std::size_t row_cells_ = 0;        // cells of the row being added
  std::size_t rows_ = 0;
  std::size_t reserved_rows_ = 0;
};

// Fixed, locale-independent number text: "12.35", "0.001234", "-".
std::string format_number(double value, int significant = 4);

// The same text written into `text` (at least kNumberChars long); returns its end.
constexpr std::size_t kNumberChars = 352;
char* format_number_to(char* text, double value, int significant = 4);

// format_number's text appended to `out`, without a string of its own.
void append_number(std::string& out, double value, int significant = 4);

}  // namespace ibgpu
