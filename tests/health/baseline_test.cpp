// Fleet baselines: built from saved runs (tests/data/runs) out of healthy
// entities' values only, kept in their own versioned JSON, and used by the
// judge in place of the run's own fleet median.
#include "health/baseline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "core/inventory.h"
#include "health/judge.h"
#include "reports/json.h"

namespace ibgpu {
namespace {

using nlohmann::json;

Report run(const char* name) {
  return report_from_json(read_json_file((std::filesystem::path(IBGPU_TEST_DATA) / "runs" / name).string()));
}

constexpr const char* kBw = "net.verbs.write_bw@8388608:bw_avg_GBps";

// The bandwidths of a run's pairs, except those through `skip_host` or between `skip_a` and `skip_b`.
std::vector<double> bandwidths(const Report& r, const std::string& skip_host, const std::string& skip_a,
                               const std::string& skip_b) {
  std::vector<double> out;
  for (const auto& p : r.probes) {
    if (p.id != "net.verbs.write_bw") continue;
    const auto& h = p.scope.hosts;
    if (h[0] == skip_host || h[1] == skip_host || (h[0] == skip_a && h[1] == skip_b)) continue;
    out.push_back(*p.metrics.at("bw_avg_GBps").value);
  }
  return out;
}

TEST(Baseline, KeepsOnlyValuesOfHealthyEntities) {
  const Report before = run("before.json"), after = run("after.json");
  const Baseline b = build_baseline({before, after});
  ASSERT_EQ(b.runs.size(), 2u);
  EXPECT_EQ(b.runs[1].id, "af7e400000000002");
  // After: the degraded link h1<->h2 and the four pairs through the failed node h4 do not count.
  std::vector<double> healthy = bandwidths(before, "", "", "");
  const std::vector<double> later = bandwidths(after, "h4", "h1", "h2");
  ASSERT_EQ(healthy.size(), 10u);
  ASSERT_EQ(later.size(), 5u);
  healthy.insert(healthy.end(), later.begin(), later.end());
  std::sort(healthy.begin(), healthy.end());
  ASSERT_TRUE(b.kinds.count(kBw));
  EXPECT_EQ(b.kinds.at(kBw).n, 15u);
  EXPECT_DOUBLE_EQ(b.kinds.at(kBw).median, healthy[7]);
  // Latency is kept at p50 and p99, keyed as the fleet rule keys them.
  EXPECT_EQ(b.kinds.at("net.verbs.write_lat@8:lat_us.p50").n, 15u);
  EXPECT_EQ(b.kinds.at("net.verbs.write_lat@8:lat_us.p99").n, 15u);
  EXPECT_EQ(b.kinds.size(), 3u);
}

TEST(Baseline, JsonRoundTripAndVersion) {
  const Baseline b = build_baseline({run("before.json")});
  const json j = to_json(b);
  EXPECT_EQ(j.at("baseline_version"), kBaselineVersion);
  EXPECT_EQ(to_json(baseline_from_json(j)), j);

  json newer = j;
  newer["baseline_version"] = kBaselineVersion + 1;
  try {
    baseline_from_json(newer);
    FAIL() << "a newer baseline was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("upgrade"), std::string::npos) << e.what();
  }
  EXPECT_THROW(baseline_from_json(json(run("before.json"))), std::runtime_error) << "a report is not a baseline";
}

// Pair results at 8 MiB between hosts a<->b at the given bandwidths.
std::vector<ProbeResult> pairs(const std::vector<std::tuple<std::string, std::string, double>>& links) {
  std::vector<ProbeResult> out;
  for (const auto& [a, b, bw] : links) {
    ProbeResult p;
    p.id = "net.verbs.write_bw";
    p.scope = Scope{{a, b}, {0, 1}, {"mlx5_0:1", "mlx5_0:1"}};
    p.params = {{"size_B", std::size_t{8388608}}};  // unsigned, as results parsed from JSON are
    p.metrics = {{"bw_avg_GBps", Metric::of(bw)}};
    out.push_back(p);
  }
  return out;
}

HealthState link_state(const Judgement& j, const std::string& id) {
  for (const auto& v : j.verdicts)
    if (v.entity.kind() == EntityKind::link && v.entity.id() == id) return v.state;
  ADD_FAILURE() << "no verdict for link " << id;
  return HealthState::unknown;
}

std::vector<HostInventory> hosts(std::initializer_list<const char*> names) {
  std::vector<HostInventory> out;
  int rank = 0;
  for (const char* n : names) {
    HostInventory h;
    h.name = n;
    h.ranks = {rank++};
    out.push_back(h);
  }
  return out;
}

// Two hosts make one pair: nothing of the run's own to compare it with (NOT_JUDGED:
// recorded, no state); only the baseline can tell that 30 GB/s is an outlier.
TEST(BaselineJudge, GivesSmallRunsAFleetReference) {
  const auto probes = pairs({{"b", "c", 30}});
  const auto h = hosts({"b", "c"});
  EXPECT_EQ(link_state(judge(h, probes, generic_profile()), "b<->c"), HealthState::healthy);
  const auto reference = build_baseline({run("before.json")}).medians();
  const Judgement j = judge(h, probes, generic_profile(), &reference);
  EXPECT_EQ(link_state(j, "b<->c"), HealthState::degraded);
  // Against the baseline a healthy pair is judged healthy, not unknown.
  const auto good = pairs({{"b", "c", 45}});
  EXPECT_EQ(link_state(judge(h, good, generic_profile(), &reference), "b<->c"), HealthState::healthy);
}

// A uniformly slow fleet passes the run's own median, not the baseline's.
TEST(BaselineJudge, ReplacesTheRunsOwnMedian) {
  std::vector<std::tuple<std::string, std::string, double>> links;
  const std::vector<std::string> names{"n1", "n2", "n3", "n4", "n5"};
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t k = i + 1; k < names.size(); ++k) links.emplace_back(names[i], names[k], 30.0);
  const auto probes = pairs(links);
  const auto h = hosts({"n1", "n2", "n3", "n4", "n5"});
  EXPECT_EQ(link_state(judge(h, probes, generic_profile()), "n1<->n2"), HealthState::healthy);
  const std::unordered_map<std::string, double> reference{{kBw, 45.0}};
  const Judgement j = judge(h, probes, generic_profile(), &reference);
  EXPECT_NE(j.summary.state, HealthState::healthy);
  bool outlier = false;
  for (const auto& v : j.verdicts)
    for (const auto& r : v.reasons) outlier = outlier || r.code == ReasonCode::IB_LINK_BW_OUTLIER;
  EXPECT_TRUE(outlier);
  // A kind the baseline lacks keeps the run's own median.
  const std::unordered_map<std::string, double> other{{"net.verbs.write_bw@65536:bw_avg_GBps", 45.0}};
  EXPECT_EQ(judge(h, probes, generic_profile(), &other).summary.state, HealthState::healthy);
}

}  // namespace
}  // namespace ibgpu
