// The reason-code table: each code once, named as reports write it, with the texts an operator
// reads; docs/reason-codes.md ends with the table rendered from it.
#include "core/reason_codes.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "reports/reason_code_doc.h"
#include "tests/reports/golden.h"

namespace ibgpu {
namespace {

TEST(ReasonCodes, EachNameOnceInReportsSpellingAndReadBack) {
  const std::regex upper_snake("[A-Z][A-Z0-9]*(_[A-Z0-9]+)+");
  std::set<std::string_view> names;
  for (const ReasonCodeInfo& row : every_reason_code()) {
    EXPECT_TRUE(std::regex_match(std::string(row.name), upper_snake)) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_EQ(reason_code_from_string(row.name), row.code) << row.name;
    EXPECT_EQ(to_string(row.code), row.name);
  }
  EXPECT_EQ(reason_code_from_string("gpu_xid"), std::nullopt) << "reports write codes upper case";
  EXPECT_EQ(reason_code_from_string(""), std::nullopt);
}

TEST(ReasonCodes, EveryRowTellsWhereWhenAndWhatToDoWithANextStepForOneLine) {
  for (const ReasonCodeInfo& row : every_reason_code()) {
    EXPECT_FALSE(row.lands_on.empty()) << row.name;
    EXPECT_FALSE(row.states.empty()) << row.name;
    EXPECT_FALSE(row.fires_when.empty()) << row.name;
    EXPECT_FALSE(row.what_to_do.empty()) << row.name;
    EXPECT_FALSE(row.next_step.empty()) << row.name;
    // A summary line holds a node name, the code and this within 120 columns.
    EXPECT_LE(row.next_step.size(), 64u) << row.name;
  }
}

TEST(ReasonCodes, GroupsComeInOneRunEach) {
  std::set<ReasonGroup> done;
  const ReasonGroupInfo* current = nullptr;
  for (const ReasonCodeInfo& row : every_reason_code()) {
    if (current && current->group == row.group) continue;
    EXPECT_TRUE(done.insert(row.group).second) << row.name << ": its group came before, apart";
    current = &info(row.group);
  }
  EXPECT_EQ(done.size(), every_reason_group().size()) << "a group without codes";
}

TEST(ReasonCodes, ByNameOrdersAsTheNamesDo) {
  const ReasonCodeByName less;
  EXPECT_TRUE(less(ReasonCode::BURN_IN_FLAKY, ReasonCode::GPU_MISSING));
  EXPECT_FALSE(less(ReasonCode::GPU_MISSING, ReasonCode::BURN_IN_FLAKY));
  EXPECT_FALSE(less(ReasonCode::GPU_XID, ReasonCode::GPU_XID));
}

// The page's table is the binary's: `ibgpu explain --markdown` prints it. After a change to the
// table: IBGPU_UPDATE_GOLDEN=1 rewrites the page's table (the text above it is kept).
TEST(ReasonCodes, TheDocumentationsTableIsTheTable) {
  const auto path = std::filesystem::path(IBGPU_SOURCE_DIR) / "docs" / "reason-codes.md";
  const std::string page = golden::read_text(path);
  const std::string heading = "\n## Every code\n\n";
  const auto at = page.find(heading);
  ASSERT_NE(at, std::string::npos) << path << ": no '## Every code' section";
  std::ostringstream table;
  write_reason_code_markdown(table);
  const std::string kept = page.substr(0, at + heading.size());
  if (golden::updating_golden()) {
    golden::write_text(path, kept + table.str());
    GTEST_SKIP() << "IBGPU_UPDATE_GOLDEN=1: rewrote the table of " << path;
  }
  EXPECT_TRUE(page.substr(kept.size()) == table.str())
      << path << " (its table) differs from core/reason_codes.cpp: "
      << golden::first_difference(page.substr(kept.size()), table.str())
      << "\nThe table in core/reason_codes.cpp is the source: change it there and rerun with IBGPU_UPDATE_GOLDEN=1.";
}

TEST(ReasonCodes, ExplainShowsEveryFieldWithinTheWidth) {
  std::ostringstream out;
  write_reason_code_text(out, info(ReasonCode::GPU_XID), 60);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("GPU_XID (GPU)\n", 0), 0u) << text;
  for (const char* label :
       {"\n  lands on    ", "\n  state       ", "\n  fires when  ", "\n  what to do  ", "\n  in short    "})
    EXPECT_NE(text.find(label), std::string::npos) << label << " in\n" << text;
  const std::string unwrapped = std::regex_replace(text, std::regex("\n {14}"), " ");
  EXPECT_NE(unwrapped.find("  in short    " + std::string(info(ReasonCode::GPU_XID).next_step) + "\n"),
            std::string::npos)
      << unwrapped;
  EXPECT_EQ(text.find('`'), std::string::npos) << "code spans are plain on a terminal";
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 60u) << line;
}

TEST(ReasonCodes, TheListHasEveryCodeOnceUnderItsGroup) {
  std::ostringstream out;
  write_reason_code_list(out);
  const std::string text = "\n" + out.str();
  for (const ReasonCodeInfo& row : every_reason_code()) {
    const std::string line = "  " + std::string(row.name) + " ";
    const auto at = text.find(line);
    ASSERT_NE(at, std::string::npos) << row.name;
    EXPECT_EQ(text.find(line, at + 1), std::string::npos) << row.name << " twice";
    EXPECT_NE(text.find(std::string(row.next_step), at), std::string::npos) << row.name;
  }
  for (const ReasonGroupInfo& g : every_reason_group())
    EXPECT_NE(text.find("\n" + std::string(g.title) + "\n"), std::string::npos) << g.title;
}

}  // namespace
}  // namespace ibgpu
