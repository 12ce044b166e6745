// `ibgpu report --compare`: two saved runs of five hosts (tests/data/runs),
// the second with one slow link and one failed node injected and every other
// measurement drifted by under 1%. The comparison shows the injection and
// nothing else.
#include "health/compare.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <tuple>

#include "health/judge.h"
#include "reports/compare.h"
#include "reports/json.h"
#include "reports/text_table.h"
#include "tests/reports/golden.h"

namespace ibgpu {
namespace {

using namespace ibgpu::golden;
using nlohmann::json;

const fs::path kRuns = fs::path(IBGPU_TEST_DATA) / "runs";

Report run(const char* name) { return report_from_json(read_json_file((kRuns / name).string())); }

using Row = std::tuple<std::string, std::string, std::string, std::string>;  // change, entity, old, new

std::set<Row> rows(const Comparison& c) {
  std::set<Row> out;
  for (const auto& ch : c.changes) {
    const bool metric = ch.kind == Change::Kind::metric;  // numbers as the table shows them
    out.insert({to_string(ch.kind), ch.entity, metric ? format_number(*ch.old_value) : ch.old_text,
                metric ? format_number(*ch.new_value) : ch.new_text});
  }
  return out;
}

// The fixtures are what the judge makes of their probes: no hand-written verdict.
// IBGPU_UPDATE_GOLDEN=1 writes the judge's verdicts and summary into them.
TEST(CompareFixtures, VerdictsAreTheJudgesOwn) {
  for (const char* name : {"before.json", "after.json"}) {
    const Report r = run(name);
    const Judgement j = judge(r.hosts, r.probes, generic_profile());
    if (std::getenv("IBGPU_UPDATE_GOLDEN")) {
      json doc = read_json_file((kRuns / name).string());
      doc["verdicts"] = j.verdicts;
      doc["summary"] = j.summary;
      doc["summary"].erase("kubernetes");
      std::ofstream((kRuns / name).string()) << doc.dump(2) << '\n';
      continue;
    }
    EXPECT_EQ(json(j.verdicts), json(r.verdicts)) << name;
    // The fixtures predate the Kubernetes map, which follows from the verdicts compared above.
    json summary = j.summary;
    summary.erase("kubernetes");
    EXPECT_EQ(summary, json(r.summary)) << name;
  }
}

TEST(Compare, ShowsTheInjectedChangesAndNothingElse) {
  const Comparison c = compare_reports(run("before.json"), run("after.json"), 0.1);
  const std::set<Row> expected{
      {"state", "link h1<->h2", "healthy", "degraded"},
      {"state", "node h4", "healthy", "failed"},
      {"metric", "h1<->h2 mlx5_0:1,mlx5_0:1", "44.80", "30.00"},
  };
  EXPECT_EQ(rows(c), expected);
  for (const auto& ch : c.changes)
    if (ch.kind == Change::Kind::metric) {
      EXPECT_EQ(ch.what, "net.verbs.write_bw@8388608:bw_avg_GBps");
      ASSERT_TRUE(ch.relative.has_value());
      EXPECT_NEAR(*ch.relative, (30.0 - 44.8) / 44.8, 1e-12);
    }
  std::ostringstream table;
  print_comparison(c, table);
  expect_golden("compare.table.txt", table.str());
}

TEST(Compare, SameRunHasNoChange) {
  const Report r = run("after.json");
  EXPECT_TRUE(compare_reports(r, r, 0).changes.empty());
  std::ostringstream table;
  print_comparison(compare_reports(r, r, 0.1), table);
  EXPECT_NE(table.str().find("no change"), std::string::npos) << table.str();
}

TEST(Compare, ThresholdDecidesWhichMetricsChanged) {
  const Report before = run("before.json"), after = run("after.json");
  std::size_t metrics_at_half = 0, metrics_at_tiny = 0;
  for (const auto& ch : compare_reports(before, after, 0.5).changes) metrics_at_half += ch.kind == Change::Kind::metric;
  for (const auto& ch : compare_reports(before, after, 0.001).changes)
    metrics_at_tiny += ch.kind == Change::Kind::metric;
  EXPECT_EQ(metrics_at_half, 0u) << "a 33% drop is within 50%";
  // At 0.1% the drift of every measurement (10 pairs, bandwidth and latency p50/p99) shows.
  EXPECT_EQ(metrics_at_tiny, 30u);
}

TEST(Compare, NewAndVanishedEntities) {
  Report before = run("before.json"), after = run("after.json");
  before.verdicts.push_back(Verdict{Entity::node("h9"), HealthState::healthy, {}, Action::admit});
  after.verdicts.push_back(Verdict{Entity::gpu("h1", "gpu0"), HealthState::unknown, {}, std::nullopt});
  const std::set<Row> got = rows(compare_reports(before, after, 0.1));
  EXPECT_TRUE(got.count({"vanished", "node h9", "healthy", "-"}));
  EXPECT_TRUE(got.count({"new", "gpu h1/gpu0", "-", "unknown"}));
  EXPECT_EQ(got.size(), 5u);
}

TEST(Compare, JsonSaysWhatChanged) {
  const json j = to_json(compare_reports(run("before.json"), run("after.json"), 0.1));
  EXPECT_EQ(j.at("changed"), true);
  EXPECT_EQ(j.at("old_run"), "b3f04e0000000001");
  EXPECT_EQ(j.at("new_run"), "af7e400000000002");
  ASSERT_EQ(j.at("changes").size(), 3u);
  std::set<std::string> kinds;
  for (const auto& ch : j.at("changes")) {
    kinds.insert(ch.at("change").get<std::string>());
    if (ch.at("change") == "metric") {
      EXPECT_DOUBLE_EQ(ch.at("old").get<double>(), 44.8);
      EXPECT_DOUBLE_EQ(ch.at("new").get<double>(), 30.0);
    } else {
      EXPECT_TRUE(ch.at("old").is_string());
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"state", "metric"}));
}

}  // namespace
}  // namespace ibgpu
