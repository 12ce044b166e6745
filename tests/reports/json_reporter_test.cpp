// The JSON reporter writes the model through its one serializer
// (reports/json.cpp), the long arrays an element at a time, into the very text
// of the whole document's dump(2); a saved report reads back into the same
// text, so `ibgpu report` re-renders what a run wrote, whatever its fields hold.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "reports/json.h"
#include "reports/reporter.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using nlohmann::json;

std::string rendered(const Report& report) {
  std::ostringstream out;
  JsonReporter{}.render(report, out);
  return out.str();
}

std::string read_back(const std::string& text) { return rendered(report_from_json(json::parse(text))); }

TEST(JsonReporter, ASavedReportReadsBackIntoTheSameText) {
  const std::string text = rendered(testing::sample_report());
  EXPECT_EQ(text, json(testing::sample_report()).dump(2) + "\n");
  EXPECT_EQ(read_back(text), text);
}

TEST(JsonReporter, CompactIsTheOneLineDumpAndReadsBack) {
  for (const Report& report : {testing::sample_report(), Report{}}) {
    std::ostringstream out;
    JsonReporter(JsonReporter::Layout::compact).render(report, out);
    EXPECT_EQ(out.str(), json(report).dump() + "\n");
    EXPECT_EQ(read_back(out.str()), rendered(report));
  }
}

TEST(JsonReporter, EmptyArraysAndAnEmptyReportAreTheDumpsText) {
  EXPECT_EQ(rendered(Report{}), json(Report{}).dump(2) + "\n");
  Report report = testing::sample_report();
  report.verdicts.clear();
  report.hosts.resize(1);
  EXPECT_EQ(rendered(report), json(report).dump(2) + "\n");
}

TEST(JsonReporter, EveryFieldFormReadsBackIntoTheSameText) {
  Report report = testing::sample_report();
  // The forms the sample may lack: errors and reasons with escapes, missing
  // and non-finite metrics, empty scopes and params, verdicts of every kind.
  ProbeResult odd;
  odd.id = "net.verbs.write_bw";
  odd.status = ProbeStatus::error;
  odd.error = "peer said \"no\"\n\tand hung up";
  odd.reason = "caf\xc3\xa9";
  odd.metrics["missing"] = Metric::missing();
  odd.metrics["whole"] = Metric::of(400.0);
  odd.metrics["stats"] = Metric::of(Stats{3, 1, 2, 3, 4, 5, 6, 2.5, 0.1});
  odd.params = {{"size_B", std::size_t{8} << 20}, {"direction", "bidir"}, {"list", {1, -2, 3.5}}};
  report.probes.push_back(odd);
  report.probes.push_back(ProbeResult{});
  Verdict link{Entity::link("a", "b"), HealthState::degraded, {}, std::nullopt};
  link.reasons.push_back(Reason{ReasonCode::LAT_HIGH, "", "", std::nullopt, std::nullopt});
  link.reasons.push_back(Reason{ReasonCode::LAT_OUTLIER, "m \"q\"", "lat_us.p50", 1e-7, 2.5});
  report.verdicts.push_back(link);
  report.verdicts.push_back(Verdict{Entity::node("n9"), HealthState::failed, {}, Action::drain, {}, {"gpu0"}});
  RunSummary& s = report.summary;
  s.drain = {"n3 \"quoted\""};
  s.kubernetes["n1"] = KubernetesNode{};  // empty maps and taints
  s.kubernetes["n0"].labels = {{"b", "2"}, {"a", "1"}};
  s.kubernetes["n0"].annotations = {{"why", "line\nbreak"}};
  s.kubernetes["n0"].taints = {{"k1", "v1", "NoSchedule"}, {"k2", "", "PreferNoSchedule"}};
  const std::string text = rendered(report);
  EXPECT_EQ(text, json(report).dump(2) + "\n");
  EXPECT_EQ(read_back(text), text);
  // Numbers stay numbers and missing is null, never a string.
  const json doc = json::parse(text);
  const json& written = doc.at("probes").at(doc.at("probes").size() - 2);
  EXPECT_TRUE(written.at("metrics").at("missing").is_null());
  EXPECT_EQ(written.at("metrics").at("whole"), 400.0);
  EXPECT_EQ(written.at("params").at("size_B"), std::size_t{8} << 20);
}

TEST(JsonReporter, ANumberThatIsNotFiniteIsWrittenAsNull) {
  Report report = testing::sample_report();
  ProbeResult p;
  p.id = "net.mpi.bw";
  p.metrics["nan"] = Metric::of(std::nan(""));
  p.metrics["inf"] = Metric::of(std::numeric_limits<double>::infinity());
  report.probes = {p};
  const json doc = json::parse(rendered(report));
  EXPECT_TRUE(doc.at("probes").at(0).at("metrics").at("nan").is_null());
  EXPECT_TRUE(doc.at("probes").at(0).at("metrics").at("inf").is_null());
}

TEST(JsonReporter, InvalidUtf8IsRefused) {
  Report report = testing::sample_report();
  report.hosts.at(0).name = std::string("\xff\xfe");
  EXPECT_THROW(rendered(report), json::type_error);
}

}  // namespace
}  // namespace ibgpu
