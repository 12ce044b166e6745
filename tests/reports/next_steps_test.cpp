// Every reason code docs/reason-codes.md lists has a next step for the table's
// summary, and no next step is for a code the documentation no longer lists.
#include "reports/next_steps.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "reports/html.h"
#include "reports/json.h"
#include "reports/reporter.h"
#include "tests/reports/report_fixture.h"

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
  EXPECT_EQ(next_step("NO_SUCH_CODE"), "see reason-codes.md in ibgpu's documentation");
}

// Whether anything was drained is said where the nodes not admitted are listed, in every format.
TEST(NextSteps, EachFormatSaysWhetherTheDecisionWasActedOn) {
  Report r = testing::sample_report();  // node2 to drain, node1 admitted degraded
  const std::vector<std::pair<AdmissionActions, bool>> cases = {{AdmissionActions::none, false},
                                                                {AdmissionActions::dry_run, false},
                                                                {AdmissionActions::run, false},
                                                                {AdmissionActions::run, true}};
  std::set<std::string> lines;
  for (const auto& [actions, interrupted] : cases) {
    r.run.actions = actions;
    r.run.interrupted = interrupted;
    const std::string line = actions_taken(r);
    EXPECT_TRUE(lines.insert(line).second) << line;
    for (const char* format : {"table", "markdown", "html"}) {
      std::ostringstream out;
      make_reporter(format)->render(r, out);
      EXPECT_NE(out.str().find(format == std::string("html") ? html_escape(line) : line), std::string::npos)
          << format << " lacks: " << line;
      EXPECT_NE(out.str().find(kReasonCodesDoc), std::string::npos) << format;
      EXPECT_NE(out.str().find(std::string(next_step("PROBE_TIMEOUT"))), std::string::npos) << format;
    }
  }
  EXPECT_NE(actions_taken(r).find("interrupted"), std::string::npos);
  r.run.interrupted = false;
  r.run.actions = AdmissionActions::none;
  EXPECT_NE(actions_taken(r).find("nothing was drained"), std::string::npos);
}

TEST(NextSteps, ARunWithEveryNodeAdmittedHasNoSuchLine) {
  Report r = testing::sample_report();
  for (auto& v : r.verdicts)
    if (v.action) v.action = Action::admit;
  for (const char* format : {"table", "markdown", "html"}) {
    std::ostringstream out;
    make_reporter(format)->render(r, out);
    EXPECT_EQ(out.str().find("nothing was drained"), std::string::npos) << format;
  }
}

// The JSON says it only when actions were asked for: a report without keeps its shape.
TEST(NextSteps, TheReportRecordsRequestedActionsAndReadsThemBack) {
  Report r = testing::sample_report();
  EXPECT_FALSE(nlohmann::json(r)["run"].contains("admission_actions"));
  for (const auto actions : {AdmissionActions::run, AdmissionActions::dry_run}) {
    r.run.actions = actions;
    const nlohmann::json j = r;
    EXPECT_EQ(j["run"]["admission_actions"], to_string(actions));
    EXPECT_EQ(report_from_json(j).run.actions, actions);
  }
  nlohmann::json bad = r;
  bad["run"]["admission_actions"] = "sometimes";
  EXPECT_THROW(report_from_json(bad), std::runtime_error);
}

}  // namespace
}  // namespace ibgpu
