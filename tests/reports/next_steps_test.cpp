// Each format says what became of the decision beside the nodes not admitted, with the next steps.
#include "reports/next_steps.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "reports/html.h"
#include "reports/json.h"
#include "reports/reporter.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

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
      EXPECT_NE(out.str().find(kFullAdvice), std::string::npos) << format;
      EXPECT_NE(out.str().find(std::string(info(ReasonCode::PROBE_TIMEOUT).next_step)), std::string::npos) << format;
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
