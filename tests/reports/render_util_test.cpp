// The reporters' small text helpers: word wrapping and Slurm hostlists.
#include "reports/render_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ibgpu {
namespace {

std::vector<std::string> wrapped(std::string_view text, std::size_t width) {
  std::vector<std::string> out;
  for (const auto line : wrap_words(text, width)) out.emplace_back(line);
  return out;
}

TEST(WrapWords, BreaksAtBlanksWithinTheWidth) {
  EXPECT_EQ(wrapped("one two three four", 9), (std::vector<std::string>{"one two", "three", "four"}));
  EXPECT_EQ(wrapped("one two", 7), (std::vector<std::string>{"one two"}));
  // Blanks at a break go; blanks within a line stay.
  EXPECT_EQ(wrapped("  lead  and   trail  ", 9), (std::vector<std::string>{"lead  and", "trail"}));
  EXPECT_EQ(wrapped("  lead  and   trail  ", 8), (std::vector<std::string>{"lead", "and", "trail"}));
  EXPECT_TRUE(wrapped("", 10).empty());
  EXPECT_TRUE(wrapped("   ", 10).empty());
  EXPECT_TRUE(wrapped("text", 0).empty());
}

TEST(WrapWords, CutsAWordLongerThanTheWidth) {
  EXPECT_EQ(wrapped("abcdefghij xy", 4), (std::vector<std::string>{"abcd", "efgh", "ij", "xy"}));
  for (const auto& line : wrapped("a very-long-path/with/no/blanks/in/it and more words after it", 10))
    EXPECT_LE(line.size(), 10u) << line;
}

TEST(Hostlist, FoldsNumberedNamesAsSlurmWritesThem) {
  EXPECT_EQ(hostlist({"gpu001", "gpu002", "gpu003", "gpu007"}), "gpu[001-003,007]");
  EXPECT_EQ(hostlist({"gpu3"}), "gpu3");
  EXPECT_EQ(hostlist({"n9", "n10", "n11", "n1"}), "n[1,9-11]");
  EXPECT_EQ(hostlist({"login", "gpu01", "cpu2", "gpu02"}), "login,gpu[01-02],cpu2");
  EXPECT_EQ(hostlist({"gpu01", "gpu01"}), "gpu01");
  EXPECT_EQ(hostlist({"node07", "node100"}), "node07,node100");
  EXPECT_EQ(hostlist({}), "");
}

}  // namespace
}  // namespace ibgpu
