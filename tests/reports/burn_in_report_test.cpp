// The burn-in section of a report: JSON both ways, the schema, and the table.
// The report comes from a real tally (health/burn_in.h) over twenty rounds
// built from the sample report, with faults that come and go.
//
// After an intended change to the table's burn-in section, regenerate with
//   IBGPU_UPDATE_GOLDEN=1 ctest --test-dir build -R BurnInReport
// and review the difference with git diff.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "health/burn_in.h"
#include "reports/json.h"
#include "reports/reporter.h"
#include "tests/core/names.h"
#include "tests/reports/golden.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using nlohmann::json;
using namespace ibgpu::golden;

const fs::path kGolden = fs::path(IBGPU_TEST_DATA) / "golden" / "burn_in.table.txt";

Verdict* find(Report& r, const std::string& kind, const std::string& id) {
  for (auto& v : r.verdicts)
    if (v.entity.kind() == testing::kind(kind) && v.entity.id() == id) return &v;
  return nullptr;
}

void set_state(Report& r, const std::string& kind, const std::string& id, HealthState state) {
  Verdict* v = find(r, kind, id);
  if (!v) throw std::runtime_error("no verdict " + kind + " " + id + " in the sample report");
  v->state = state;
  if (state == HealthState::healthy) v->reasons.clear();
}

// Twenty rounds, ten minutes apart: the link fails in round 7 only, GPU 0 is
// unchecked in round 20 only, GPU 1 is degraded in rounds 1-12, node2 is lost
// and port mlx5_1:1 down in every round.
Report burn_in_report() {
  BurnInTally tally(generic_profile());
  for (int k = 1; k <= 20; ++k) {
    Report round = testing::sample_report();
    char when[32];
    std::snprintf(when, sizeof when, "2026-01-02T%02d:%02d:05Z", 3 + (k - 1) / 6, (k - 1) % 6 * 10);
    round.run.started = when;
    std::snprintf(when, sizeof when, "2026-01-02T%02d:%02d:35Z", 3 + (k - 1) / 6, (k - 1) % 6 * 10);
    round.run.finished = when;
    if (k != 7) set_state(round, "link", "node1<->node2", HealthState::healthy);
    if (k != 20) set_state(round, "gpu", "node1/gpu0", HealthState::healthy);
    if (k <= 12) {
      Verdict* gpu1 = find(round, "gpu", "node1/gpu1");
      gpu1->state = HealthState::degraded;
      gpu1->reasons = {
          Reason{ReasonCode::GPU_THERMAL_SLOWDOWN, "clocks held back by temperature", "thermal_slowdown", 1.0, 0.0}};
    } else {
      set_state(round, "gpu", "node1/gpu1", HealthState::healthy);
    }
    tally.add(round);
  }
  BurnInResult result = tally.finish();
  Report r = testing::sample_report();
  r.run.command = {"ibgpu", "burn-in", "--duration", "2h", "--interval", "10m", "--jsonl", "rounds.jsonl"};
  r.run.started = result.stats.first_round_started;
  r.run.finished = result.stats.last_round_finished;
  r.hosts = result.hosts;
  r.probes.clear();
  r.verdicts = result.verdicts;
  r.summary = result.summary;
  r.burn_in = result.stats;
  r.burn_in->duration_s = 7200;
  r.burn_in->interval_s = 600;
  return r;
}

// The table's burn-in section: from its heading to the next blank line.
std::string burn_in_section(const std::string& table) {
  const auto start = table.find("\nBurn-in: ");
  if (start == std::string::npos) return "";
  const auto end = table.find("\n\n", start + 1);
  return table.substr(start + 1, end == std::string::npos ? std::string::npos : end - start);
}

TEST(BurnInReport, TallyVerdictsAreAsTheRoundsSay) {
  const Report r = burn_in_report();
  Report copy = r;
  EXPECT_EQ(find(copy, "link", "node1<->node2")->state, HealthState::failed);
  EXPECT_EQ(find(copy, "link", "node1<->node2")->reasons.front().code, ReasonCode::BURN_IN_FLAKY);
  EXPECT_EQ(find(copy, "gpu", "node1/gpu0")->state, HealthState::failed);  // unchecked in 1 of 20
  EXPECT_EQ(find(copy, "gpu", "node1/gpu1")->state, HealthState::failed);  // degraded in 12 of 20: flaky
  EXPECT_EQ(find(copy, "hca_port", "node1/mlx5_1:1")->state, HealthState::failed);
  EXPECT_EQ(find(copy, "node", "node2")->action, Action::drain);
  EXPECT_EQ(r.summary.exit_code, 2);
  const BurnInEntity* port = nullptr;
  for (const auto& e : r.burn_in->entities)
    if (e.entity.id() == "node1/mlx5_0:1") port = &e;
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->counter_deltas.at("symbol_error"), 60);  // 3 in each of 20 rounds
}

TEST(BurnInReport, JsonRoundTripIsLossless) {
  const json first = burn_in_report();
  ASSERT_TRUE(first.contains("burn_in"));
  EXPECT_EQ(first.at("burn_in").at("rounds"), 20);
  EXPECT_EQ(first.at("burn_in").at("interval_s"), 600.0);
  const Report back = report_from_json(first);
  ASSERT_TRUE(back.burn_in.has_value());
  EXPECT_EQ(json(back), first) << first.at("burn_in").dump(2);
}

// Each entity's class is the burn-in's, in the JSON; a report written before the classes (no
// "class") reads back with the same classes, from its verdicts' codes and its counts.
TEST(BurnInReport, ClassesAreWrittenAndAReportWithoutThemReadsTheSame) {
  const Report r = burn_in_report();
  std::map<std::string, std::string> classes;
  for (const auto& e : r.burn_in->entities)
    if (e.burn_in_class) classes[entity_text(e.entity)] = to_string(*e.burn_in_class);
  EXPECT_EQ(classes.at("link node1<->node2"), "flaky");  // failed in round 7 only
  EXPECT_EQ(classes.at("hca_port node1/mlx5_1:1"), "bad_every_round");
  EXPECT_EQ(classes.at("gpu node1/gpu1"), "flaky");  // degraded in 12 of 20
  json doc = r;
  for (json& e : doc.at("burn_in").at("entities")) {
    const std::string text =
        e.at("entity").at("kind").get<std::string>() + " " + e.at("entity").at("id").get<std::string>();
    EXPECT_EQ(e.value("class", ""), classes.count(text) ? classes.at(text) : "") << text;
    e.erase("class");
  }
  const Report old = report_from_json(doc);
  for (std::size_t i = 0; i < r.burn_in->entities.size(); ++i)
    EXPECT_EQ(old.burn_in->entities[i].burn_in_class, r.burn_in->entities[i].burn_in_class)
        << entity_text(r.burn_in->entities[i].entity);
  doc.at("burn_in").at("entities").at(0)["class"] = "wobbly";
  EXPECT_THROW(report_from_json(doc), std::exception);
}

TEST(BurnInReport, CheckReportsHaveNoSection) {
  const json doc = testing::sample_report();
  EXPECT_FALSE(doc.contains("burn_in"));
  EXPECT_FALSE(report_from_json(doc).burn_in.has_value());
  EXPECT_EQ(burn_in_section([] {
              std::ostringstream out;
              TableReporter{}.render(testing::sample_report(), out);
              return out.str();
            }()),
            "");
}

TEST(BurnInReport, BadSectionIsAClearError) {
  json doc = burn_in_report();
  doc["burn_in"]["entities"][0]["figures"] = json::array({json{{"figure", "x"},
                                                               {"metric", "m"},
                                                               {"rails", nullptr},
                                                               {"sense", "sideways"},
                                                               {"worst", 1},
                                                               {"median", 1},
                                                               {"count", 1}}});
  EXPECT_THROW(report_from_json(doc), std::exception);
}

// What a dashboard of burn-ins reads: the rounds, and per entity its pass ratio, the rounds it did
// not pass, and whether it was flaky or drifted (the burn-in's own verdict).
TEST(BurnInReport, PrometheusCarriesRoundsPassRatiosAndFlakyEntities) {
  std::ostringstream out;
  PrometheusReporter{}.render(burn_in_report(), out);
  const std::string text = out.str();
  for (const char* line :
       {"ibgpu_burn_in_rounds 20\n", "ibgpu_burn_in_rounds_judged{kind=\"link\",id=\"node1<->node2\"} 20\n",
        "ibgpu_burn_in_pass_ratio{kind=\"link\",id=\"node1<->node2\"} 0.95\n",
        "ibgpu_burn_in_rounds_not_passed{kind=\"link\",id=\"node1<->node2\"} 1\n",
        "ibgpu_burn_in_flaky{kind=\"link\",id=\"node1<->node2\"} 1\n",
        "ibgpu_burn_in_flaky{kind=\"gpu\",id=\"node1/gpu1\"} 1\n",
        "ibgpu_burn_in_pass_ratio{kind=\"hca_port\",id=\"node1/mlx5_1:1\"} 0\n",
        "ibgpu_burn_in_flaky{kind=\"hca_port\",id=\"node1/mlx5_1:1\"} 0\n",
        "ibgpu_burn_in_drift{kind=\"link\",id=\"node1<->node2\"} 0\n",
        "ibgpu_entity_reason{kind=\"link\",id=\"node1<->node2\",code=\"BURN_IN_FLAKY\"} 1\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "not in\n" << text;
}

TEST(BurnInReport, TableSectionMatchesCheckedInText) {
  std::ostringstream out;
  TableReporter{}.render(burn_in_report(), out);
  const std::string section = burn_in_section(out.str());
  // What an operator must read there, whatever the layout.
  EXPECT_NE(section.find("Burn-in: 20 rounds (for 2h, every 10m), 2026-01-02T03:00:05Z to 2026-01-02T06:10:35Z"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("link node1<->node2"), std::string::npos) << section;
  EXPECT_NE(section.find("PROBE_TIMEOUT 1"), std::string::npos) << section;
  EXPECT_NE(section.find("GPU_THERMAL_SLOWDOWN 12"), std::string::npos) << section;
  EXPECT_EQ(section.find("node1/mlx5_0:1"), std::string::npos) << "a port healthy throughout is not listed\n"
                                                               << section;
  EXPECT_NE(section.find("total: "), std::string::npos) << section;
  EXPECT_NE(section.find("3 flaky, 0 seen once, 2 bad in every round, 1 degraded throughout"), std::string::npos)
      << section;

  const char* update = std::getenv("IBGPU_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(kGolden, std::ios::binary) << section;
    GTEST_SKIP() << "IBGPU_UPDATE_GOLDEN=1: rewrote " << kGolden << "; review it with git diff";
  }
  ASSERT_TRUE(fs::exists(kGolden)) << kGolden << " is missing; create it with IBGPU_UPDATE_GOLDEN=1";
  EXPECT_EQ(read_text(kGolden), section);
}

TEST(BurnInReport, SchemaAcceptsTheSectionAndRejectsBreaks) {
  if (const std::string why = why_validator_cannot_run(); !why.empty()) GTEST_SKIP() << why;
  const fs::path good = temp_path("burn_in_good.json");
  std::ofstream(good) << json(burn_in_report()).dump(2);
  const std::vector<std::pair<std::string, std::function<void(json&)>>> breaks{
      {"pass ratio as text", [](json& d) { d["burn_in"]["entities"][0]["pass_ratio"] = "95%"; }},
      {"pass ratio above 1", [](json& d) { d["burn_in"]["entities"][0]["pass_ratio"] = 1.5; }},
      {"round 0", [](json& d) { d["burn_in"]["entities"][0]["not_passed_rounds"] = json::array({0}); }},
      {"lower-case reason code", [](json& d) { d["burn_in"]["entities"][0]["reasons"]["probe_timeout"] = 1; }},
      {"missing states", [](json& d) { d["burn_in"]["entities"][0].erase("states"); }},
      {"extra key", [](json& d) { d["burn_in"]["extra"] = true; }},
  };
  std::vector<fs::path> files{good};
  for (std::size_t i = 0; i < breaks.size(); ++i) {
    json doc = burn_in_report();
    breaks[i].second(doc);
    files.push_back(temp_path("burn_in_break_" + std::to_string(i) + ".json"));
    std::ofstream(files.back()) << doc.dump(2);
  }
  const Validation out = validate_reports(files);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find(good.string() + ": valid"), std::string::npos) << out.output;
  for (std::size_t i = 0; i < breaks.size(); ++i)
    EXPECT_NE(out.output.find(files[i + 1].string() + ": $"), std::string::npos)
        << breaks[i].first << " not rejected:\n"
        << out.output;
}

}  // namespace
}  // namespace ibgpu
