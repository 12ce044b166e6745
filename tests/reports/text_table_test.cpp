// The terminal table's layout and its number text. The table keeps its cells
// in one text; these hold it to the layout of one string per cell, padded
// and trimmed line by line, and format_number to printf's "%.*f".
#include "reports/text_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace ibgpu {
namespace {

using Align = TextTable::Align;

// The layout spelled out the plain way: pad every cell to its column's
// width, two spaces between columns, then drop the line's trailing blanks.
std::string reference_layout(const std::vector<TextTable::Column>& columns,
                             const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    width[c] = columns[c].header.size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      text += columns[c].align == Align::right ? pad + cells[c] : cells[c] + pad;
      if (c + 1 < cells.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + '\n';
  };
  std::vector<std::string> headers;
  for (const auto& col : columns) headers.push_back(col.header);
  line(headers);
  for (const auto& row : rows) line(row);
  return out;
}

std::string printed(const TextTable& table, const std::string& indent) {
  std::ostringstream out;
  table.print(out, indent);
  return out.str();
}

TEST(TextTable, LaysOutAsPaddedCellsWithoutTrailingBlanks) {
  const std::vector<TextTable::Column> columns{{"name"}, {"n", Align::right}, {"note"}, {"x", Align::right}};
  const std::vector<std::vector<std::string>> rows{{"a", "1", "", ""},
                                                   {"longer name", "12345", "with trailing  ", ""},
                                                   {"", "", "", ""},
                                                   {"b", "", "note", ""},
                                                   {"  lead", "-1.5", "x", "1234567"}};
  TextTable table(columns);
  for (const auto& row : rows) table.add_row(row);
  EXPECT_EQ(printed(table, "  "), reference_layout(columns, rows, "  "));
  EXPECT_EQ(printed(table, ""), reference_layout(columns, rows, ""));
  // The blank row keeps no indent, and the blanks inside a cell that ends a line go too.
  EXPECT_NE(printed(table, "  ").find("\n\n"), std::string::npos);
  EXPECT_NE(printed(table, "  ").find("with trailing\n"), std::string::npos);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(TextTable, AWrappedLastColumnContinuesUnderItself) {
  TextTable table({{"entity"}, {"state"}, {"reasons", Align::left, true}});
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "word" + std::to_string(i) + " ";
  table.add_row({"node1", "failed", long_text});
  table.add_row({"node2", "healthy", "-"});
  const auto lines = split_lines(printed(table, "  "));
  ASSERT_GT(lines.size(), 4u);
  const std::size_t column = std::string("  entity  state    ").size();
  EXPECT_EQ(lines[0], "  entity  state    reasons");
  EXPECT_TRUE(lines[1].starts_with("  node1   failed   word0 word1 ")) << lines[1];
  std::string words;
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    EXPECT_LE(lines[i].size(), kLineWidth) << lines[i];
    if (i > 1) {
      EXPECT_EQ(lines[i].find_first_not_of(' '), column) << lines[i];
    }
    words += lines[i].substr(column) + " ";
  }
  EXPECT_EQ(words, long_text);
  EXPECT_EQ(lines.back(), "  node2   healthy  -");
}

TEST(TextTable, AWrappedColumnThatStartsTooFarRightGoesBelowItsRow) {
  TextTable table({{"pair"}, {"n", Align::right}, {"note", Align::left, true}});
  const std::string wide(100, 'x');
  table.add_row({wide, "1", "peer rank 2 did not answer"});
  table.add_row({"short", "22", ""});
  EXPECT_EQ(printed(table, "  "), "  pair" + std::string(96, ' ') + "   n\n  " + wide +
                                      "   1\n      peer rank 2 did not answer\n" + "  short" + std::string(95, ' ') +
                                      "  22\n");
}

// Columns that may be left out go, the rightmost first, until the line fits, and a line says
// which; a wrapped last column then starts further left.
TEST(TextTable, OptionalColumnsGiveWayAndAreNamed) {
  TextTable table({{"host"},
                   {"pci", Align::left, false, TextTable::Narrow::optional},
                   {"rate"},
                   {"firmware", Align::left, false, TextTable::Narrow::optional},
                   {"note", Align::left, true}});
  table.add_row({"node1", "0000:18:00.0", "400 Gb/sec", "28.39.1002", "ok"});
  std::ostringstream out;
  table.print(out, "", LineWidth{30, true});
  EXPECT_EQ(out.str(),
            "host   rate\n"
            "node1  400 Gb/sec\n"
            "    ok\n"
            "(left out to fit 30 columns:\n"
            "pci, firmware; a terminal of\n"
            "43 columns or COLUMNS=43 shows\n"
            "them)\n");
  // A file or a pipe (no width to fit) keeps every column.
  std::ostringstream whole;
  table.print(whole, "", LineWidth{30, false});
  EXPECT_EQ(whole.str().find("left out"), std::string::npos);
  EXPECT_NE(whole.str().find("28.39.1002"), std::string::npos);
  EXPECT_EQ(printed(table, "").find("left out"), std::string::npos);
}

// A narrow terminal: the widest text column gives up room and its long cells go on below,
// broken after a comma where one lies within the column.
TEST(TextTable, ATextColumnTooWideForTheLineFoldsItsCells) {
  TextTable table({{"name"}, {"hosts", Align::left, false, TextTable::Narrow::fold}, {"n", Align::right}});
  table.add_row({"a", "h01,h02,h03,h04,h05,h06,h07,h08", "8"});
  table.add_row({"b", "h09", "1"});
  std::ostringstream out;
  table.print(out, "", LineWidth{30, true});
  EXPECT_EQ(out.str(), "name  hosts" + std::string(18, ' ') + "n\n" +  //
                           "a     h01,h02,h03,h04,h05,   8\n" +        //
                           "      h06,h07,h08\n" +                     //
                           "b     h09" + std::string(20, ' ') + "1\n");
  // At the standard width nothing folds.
  EXPECT_EQ(printed(table, ""),
            reference_layout({{"name"}, {"hosts"}, {"n", Align::right}},
                             {{"a", "h01,h02,h03,h04,h05,h06,h07,h08", "8"}, {"b", "h09", "1"}}, ""));
}

TEST(TextTable, AnUnwrappedTableIsAsBefore) {
  // Nothing to wrap: a wrapped last column lays out as a plain one.
  const std::vector<TextTable::Column> plain{{"a"}, {"b"}};
  TextTable wrapped({{"a"}, {"b", Align::left, true}});
  wrapped.add_row({"x", "short  "});
  wrapped.add_row({"", ""});
  EXPECT_EQ(printed(wrapped, "  "), reference_layout(plain, {{"x", "short  "}, {"", ""}}, "  "));
}

TEST(TextTable, ControlCharactersInCellsAreShownEscaped) {
  // A host name with a newline or an escape sequence would break the table or drive the terminal.
  TextTable table({{"host"}, {"error"}});
  table.add_row({"h1\n\x1b[31mred",
                 "bell\x07 tab\t cr\r del\x7f csi\xc2\x9b"
                 "2J \xe2\x9c\x93 ok"});
  table.cell_text() += "composed\x1b]0;title\x07";
  table.end_cell();
  table.end_row();
  const std::string text = printed(table, "");
  EXPECT_NE(text.find("h1\\n\\x1b[31mred"), std::string::npos) << text;
  EXPECT_NE(text.find("bell\\x07 tab\\t cr\\r del\\x7f csi\\u009b2J \xe2\x9c\x93"
                      " ok"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("composed\\x1b]0;title\\x07"), std::string::npos) << text;
  for (char c : text) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << "raw control character";
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);  // header and two rows, nothing more
}

TEST(TextTable, RowsOfEveryFormAreTheSameRows) {
  const std::vector<TextTable::Column> columns{{"a"}, {"b", Align::right}, {"c"}};
  TextTable by_list(columns), by_vector(columns), by_cell(columns);
  by_list.add_row({"x", "10"});                     // short: the rest is empty
  by_list.add_row({"y", "2", "three", "dropped"});  // long: the extra cell is dropped
  by_vector.add_row(std::vector<std::string>{"x", "10"});
  by_vector.add_row(std::vector<std::string>{"y", "2", "three", "dropped"});
  by_cell.cell("x");
  by_cell.cell_text() += "1";
  by_cell.cell_text() += "0";
  by_cell.end_cell();
  by_cell.end_row();
  by_cell.reserve(10);
  for (const char* text : {"y", "2", "three", "dropped"}) by_cell.cell(text);
  by_cell.end_row();
  const std::string expected = reference_layout(columns, {{"x", "10", ""}, {"y", "2", "three"}}, "  ");
  EXPECT_EQ(printed(by_list, "  "), expected);
  EXPECT_EQ(printed(by_vector, "  "), expected);
  EXPECT_EQ(printed(by_cell, "  "), expected);
  // The next row starts clean after a dropped cell.
  by_cell.add_row({"z"});
  EXPECT_EQ(printed(by_cell, "  "),
            reference_layout(columns, {{"x", "10", ""}, {"y", "2", "three"}, {"z", "", ""}}, "  "));
}

TEST(TextTable, ManyRowsKeepTheirCells) {
  const std::vector<TextTable::Column> columns{{"i", Align::right}, {"text"}};
  std::vector<std::vector<std::string>> rows;
  TextTable table(columns);
  table.reserve(1000);
  for (int i = 0; i < 20000; ++i) {  // past the reserved rows and past one write of the printer
    rows.push_back({std::to_string(i * 7919 % 100003),
                    std::string(static_cast<std::size_t>(i % 37), static_cast<char>('a' + i % 26))});
    table.add_row(rows.back());
  }
  EXPECT_FALSE(table.empty());
  EXPECT_EQ(printed(table, " "), reference_layout(columns, rows, " "));
}

TEST(TextTable, AnEmptyTablePrintsItsHeader) {
  TextTable table({{"a"}, {"bb", Align::right}});
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(printed(table, "  "), "  a  bb\n");
}

// What format_number wrote with snprintf; the to_chars form must not differ.
std::string printf_number(double value, int significant) {
  if (!std::isfinite(value)) return "-";
  if (value == 0) return "0";
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const int decimals = std::clamp(significant - 1 - static_cast<int>(magnitude), 0, 9);
  char text[kNumberChars];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

TEST(FormatNumber, WritesWhatPrintfWrites) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(format_number(12.3456), "12.35");
  EXPECT_EQ(format_number(0.001234), "0.001234");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(inf), "-");
  EXPECT_EQ(format_number(std::nan("")), "-");
  EXPECT_EQ(format_number(99999.5), "100000");  // four digits; no decimals past the point
  // Ties (exact and nearly), values that round up to a new digit, and the
  // edges of the scaled fast path (2^32) as well as the exact one.
  EXPECT_EQ(format_number(0.125, 2), "0.12");  // a tie: to even, as printf
  EXPECT_EQ(format_number(0.375, 2), "0.38");
  EXPECT_EQ(format_number(-0.00001, 1), "-0.00001");
  EXPECT_EQ(format_number(-1e-12), "-0.000000000");
  const std::vector<double> edges{0.5,
                                  1.5,
                                  2.5,
                                  0.125,
                                  0.375,
                                  9.9995,
                                  9.99949,
                                  1e-9,
                                  -1e-9,
                                  1e-12,
                                  4294967295.5,
                                  4294967296.5,
                                  4294967297.0,
                                  429496.72955,
                                  2.675,
                                  1.005,
                                  1.0049999999,
                                  0.0001,
                                  0.00015,
                                  99.995,
                                  999.95,
                                  -999.95,
                                  1234.5,
                                  12345.5,
                                  5e-10,
                                  -5e-10,
                                  1e15,
                                  1e300,
                                  -1e300,
                                  123456789.987654321,
                                  std::numeric_limits<double>::max(),
                                  -std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::min(),
                                  std::numeric_limits<double>::denorm_min(),
                                  -std::numeric_limits<double>::denorm_min()};
  for (const double v : edges)
    for (const int significant : {1, 3, 4, 6})
      EXPECT_EQ(format_number(v, significant), printf_number(v, significant)) << v;

  std::mt19937_64 rng(20260101);
  std::uniform_real_distribution<double> exponent(-14, 20);
  std::uniform_int_distribution<std::uint64_t> bits;
  std::size_t differ = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    double v = 0;
    switch (i % 4) {
      case 0:
        v = std::pow(10.0, exponent(rng));
        break;  // every magnitude a report shows
      case 1:
        v = -std::pow(10.0, exponent(rng));
        break;
      case 2:
        v = std::round(std::pow(10.0, exponent(rng)) * 1e4) / 1e4;
        break;   // ties and short decimals
      case 3: {  // any bit pattern
        const std::uint64_t b = bits(rng);
        std::memcpy(&v, &b, sizeof v);
        break;
      }
    }
    const int significant = 1 + i % 6;
    char text[kNumberChars];
    const std::string ours(text, format_number_to(text, v, significant));
    if (ours != printf_number(v, significant) && ++differ <= 5)
      ADD_FAILURE() << "format_number(" << v << ", " << significant << ") = " << ours << ", printf "
                    << printf_number(v, significant);
  }
  EXPECT_EQ(differ, 0u);
}

TEST(FormatNumber, AppendsTheSameText) {
  std::string text = "x=";
  append_number(text, 3.14159);
  EXPECT_EQ(text, "x=3.142");
}

}  // namespace
}  // namespace ibgpu
