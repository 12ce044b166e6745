// Every reason code docs/reason-codes.md lists has a next step for the table's
// summary, and no next step is for a code the documentation no longer lists.
#include "reports/next_steps.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace ibgpu {
namespace {

// The codes of the documentation's table: rows whose first cell is `CODE`.
std::set<std::string> documented_codes() {
  std::ifstream doc(std::string(IBGPU_SOURCE_DIR) + "/docs/reason-codes.md");
  const std::regex row(R"(^\|\s*`([A-Z][A-Z0-9]*(_[A-Z0-9]+)+)`\s*\|)");
  std::set<std::string> codes;
  std::smatch m;
  for (std::string line; std::getline(doc, line);)
    if (std::regex_search(line, m, row)) codes.insert(m[1]);
  return codes;
}

TEST(NextSteps, EveryDocumentedCodeHasOneAndNoOther) {
  const std::set<std::string> documented = documented_codes();
  ASSERT_GT(documented.size(), 10u) << "docs/reason-codes.md: is the table still where this test looks?";
  std::set<std::string> ours;
  for (const auto code : codes_with_next_step()) EXPECT_TRUE(ours.insert(std::string(code)).second) << code;
  for (const auto& code : documented) EXPECT_TRUE(ours.count(code)) << code << ": documented, no next step";
  for (const auto& code : ours) EXPECT_TRUE(documented.count(code)) << code << ": a next step, not documented";
}

TEST(NextSteps, AreShortEnoughForOneLine) {
  for (const auto code : codes_with_next_step()) {
    EXPECT_LE(next_step(code).size(), 64u) << code;
    EXPECT_FALSE(next_step(code).empty()) << code;
  }
  EXPECT_EQ(next_step("NO_SUCH_CODE"), "see docs/reason-codes.md");
}

}  // namespace
}  // namespace ibgpu
