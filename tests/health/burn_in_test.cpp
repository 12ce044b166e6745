// Burn-in tallies over judged rounds: synthetic fleets judged round by round
// (health/judge.h), and small hand-made rounds where the numbers must come out
// exactly.
#include "health/burn_in.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "health/judge.h"
#include "health/profile_file.h"
#include "probes/ib/counters.h"
#include "reports/reporter.h"
#include "tests/core/names.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu {
namespace {

using testing::FleetShape;
using testing::host_name;
using testing::PairShape;
using testing::PairTweak;
using testing::synthetic_run;

Profile h100() { return load_profile_file(std::string(IBGPU_SOURCE_DIR) + "/profiles/hgx-h100-ndr.toml"); }

// 16 hosts x 8 GPUs x 8 rails, four circle rounds: every host meets four peers.
FleetShape small_fleet() {
  FleetShape f;
  f.hosts = 16;
  f.rounds = 4;
  return f;
}

Report judged_round(const testing::SyntheticRun& run, const Profile& profile) {
  Report r;
  r.hosts = run.hosts;
  r.probes = run.probes;
  Judgement j = judge(r.hosts, r.probes, profile);
  r.verdicts = std::move(j.verdicts);
  r.summary = j.summary;
  return r;
}

// Runs `rounds` synthetic rounds; `tweak_for(k)` (k from 1) may change round k.
BurnInResult burn_in(int rounds, const std::function<PairTweak(int)>& tweak_for = {},
                     const std::function<void(int, testing::SyntheticRun&)>& edit = {}) {
  const Profile profile = h100();
  BurnInTally tally(profile);
  for (int k = 1; k <= rounds; ++k) {
    auto run = synthetic_run(small_fleet(), tweak_for ? tweak_for(k) : PairTweak{});
    if (edit) edit(k, run);
    tally.add(judged_round(run, profile));
  }
  EXPECT_EQ(tally.rounds(), rounds);
  return tally.finish();
}

std::map<std::string, HealthState> unhealthy(const BurnInResult& r) {
  std::map<std::string, HealthState> out;
  for (const auto& v : r.verdicts)
    if (v.state != HealthState::healthy) out[entity_text(v.entity)] = v.state;
  return out;
}

const Verdict& verdict(const BurnInResult& r, const std::string& kind, const std::string& id) {
  for (const auto& v : r.verdicts)
    if (v.entity.kind() == testing::kind(kind) && v.entity.id() == id) return v;
  throw std::runtime_error("no verdict for " + kind + " " + id);
}

const BurnInEntity& stats(const BurnInResult& r, const std::string& kind, const std::string& id) {
  for (const auto& e : r.stats.entities)
    if (e.entity.kind() == testing::kind(kind) && e.entity.id() == id) return e;
  throw std::runtime_error("no burn-in stats for " + kind + " " + id);
}

const Reason* reason(const Verdict& v, const std::string& code) {
  for (const auto& r : v.reasons)
    if (r.code == testing::code(code)) return &r;
  return nullptr;
}

TEST(BurnIn, CleanRoundsLeaveEverythingHealthy) {
  const BurnInResult r = burn_in(20);
  EXPECT_TRUE(unhealthy(r).empty());
  EXPECT_EQ(r.summary.state, HealthState::healthy);
  EXPECT_EQ(r.summary.exit_code, 0);
  EXPECT_EQ(r.summary.admit.size(), 16u);
  EXPECT_EQ(r.stats.rounds, 20);
  // Nodes, 8 GPUs and 8 ports each, and the 4 x 8 links the circle rounds met.
  EXPECT_EQ(r.verdicts.size(), 16u * 17 + 16 * 4 / 2);
  for (const auto& e : r.stats.entities) {
    EXPECT_EQ(e.rounds_judged, 20) << e.entity.id();
    EXPECT_EQ(e.healthy, 20) << e.entity.id();
    EXPECT_DOUBLE_EQ(e.pass_ratio, 1.0) << e.entity.id();
    EXPECT_FALSE(e.first_not_healthy_round) << e.entity.id();
    EXPECT_TRUE(e.not_passed_rounds.empty()) << e.entity.id();
    EXPECT_TRUE(e.reasons.empty()) << e.entity.id();
  }
  for (const auto& v : r.verdicts) EXPECT_TRUE(v.reasons.empty()) << v.entity.id();
  EXPECT_EQ(verdict(r, "node", "node03").usable.size(), 16u);
}

TEST(BurnIn, LinkFailedInOneRoundOfTwentyIsFlaky) {
  // Circle round 0 over 16 hosts pairs host 0 with host 15.
  const BurnInResult r = burn_in(20, [](int k) -> PairTweak {
    if (k != 7) return {};
    return [](int a, int b, int, PairShape& s) {
      if (a == 0 && b == 15) s.status = ProbeStatus::timeout;
    };
  });
  const std::string link = host_name(0) + "<->" + host_name(15);
  EXPECT_EQ(unhealthy(r), (std::map<std::string, HealthState>{{"link " + link, HealthState::failed}}));
  const Verdict& v = verdict(r, "link", link);
  const Reason* flaky = reason(v, "BURN_IN_FLAKY");
  ASSERT_NE(flaky, nullptr);
  EXPECT_EQ(flaky->message, "failed 1 of 20 rounds (rounds 7)");
  EXPECT_EQ(flaky->metric, "pass_ratio");
  EXPECT_DOUBLE_EQ(flaky->value.value_or(-1), 0.95);
  EXPECT_DOUBLE_EQ(flaky->threshold.value_or(-1), 1.0);
  const Reason* timeout = reason(v, "PROBE_TIMEOUT");
  ASSERT_NE(timeout, nullptr) << "the failed round's own reason is summarised";
  EXPECT_NE(timeout->message.find("(in 1 of 20 rounds: 7)"), std::string::npos) << timeout->message;

  const BurnInEntity& s = stats(r, "link", link);
  EXPECT_EQ(s.rounds_judged, 20);
  EXPECT_EQ(s.healthy, 19);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.first_not_healthy_round, 7);
  EXPECT_EQ(s.last_not_healthy_round, 7);
  EXPECT_EQ(s.not_passed_rounds, std::vector<int>{7});
  EXPECT_EQ(s.reasons.at(ReasonCode::PROBE_TIMEOUT), 1);
  // No bandwidth in the failed round: 19 per rail.
  for (const auto& f : s.figures) EXPECT_EQ(f.count, 19u) << f.figure << " " << f.rails;

  // A link is no part of admission: every node stays in, and the fabric's finding makes the run 1.
  EXPECT_EQ(r.summary.admit.size(), 16u);
  EXPECT_EQ(r.summary.state, HealthState::degraded);
  EXPECT_EQ(r.summary.exit_code, 1);
}

TEST(BurnIn, NodeFailedInEveryRoundIsFailedAndDrained) {
  const BurnInResult r = burn_in(12, [](int) -> PairTweak {
    return [](int a, int b, int, PairShape& s) {
      if (a == 5 || b == 5) s.status = ProbeStatus::timeout;
    };
  });
  EXPECT_EQ(unhealthy(r), (std::map<std::string, HealthState>{{"node " + host_name(5), HealthState::failed}}));
  const Verdict& v = verdict(r, "node", host_name(5));
  EXPECT_EQ(v.action, Action::drain);
  EXPECT_EQ(reason(v, "BURN_IN_FLAKY"), nullptr) << "failed throughout is not flaky";
  ASSERT_FALSE(v.reasons.empty());
  for (const auto& reason : v.reasons)
    EXPECT_NE(reason.message.find("(in 12 of 12 rounds)"), std::string::npos) << reason.code << ": " << reason.message;
  EXPECT_EQ(r.summary.drain, std::vector<std::string>{host_name(5)});
  EXPECT_EQ(r.summary.admit.size(), 15u);
  const BurnInEntity& s = stats(r, "node", host_name(5));
  EXPECT_EQ(s.failed, 12);
  EXPECT_DOUBLE_EQ(s.pass_ratio, 0.0);
  EXPECT_EQ(s.first_not_healthy_round, 1);
  EXPECT_EQ(s.last_not_healthy_round, 12);
}

TEST(BurnIn, LostRankInOneRoundFlagsItsNodeAndNotItsAbsentGpus) {
  const int lost = 9;
  const BurnInResult r = burn_in(
      20,
      [](int k) -> PairTweak {
        if (k != 3) return {};
        return [](int a, int b, int, PairShape& s) {
          if (a == lost || b == lost) s.status = ProbeStatus::timeout;
        };
      },
      [](int k, testing::SyntheticRun& run) {
        if (k != 3) return;
        // As the gather assembles it: the host by name and ranks only, none
        // of its own results, and a timeout for its rank.
        HostInventory bare;
        bare.name = run.hosts[lost].name;
        bare.ranks = run.hosts[lost].ranks;
        run.hosts[lost] = bare;
        std::erase_if(run.probes,
                      [](const ProbeResult& p) { return p.scope.hosts == std::vector<std::string>{host_name(lost)}; });
        ProbeResult gather;
        gather.id = "cluster.gather";
        gather.status = ProbeStatus::timeout;
        gather.scope = Scope{{host_name(lost)}, {lost * 8}, {}};
        gather.error = "rank 72 on host node09 sent no results (dead, hung or stopped)";
        run.probes.push_back(gather);
      });
  EXPECT_EQ(unhealthy(r), (std::map<std::string, HealthState>{{"node " + host_name(lost), HealthState::failed}}));
  const Verdict& node = verdict(r, "node", host_name(lost));
  ASSERT_NE(reason(node, "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(reason(node, "BURN_IN_FLAKY")->message, "failed 1 of 20 rounds (rounds 3)");
  EXPECT_EQ(node.action, Action::drain);

  // Its GPUs had no verdict in round 3: 19 judged, all healthy, not flagged.
  const BurnInEntity& gpu = stats(r, "gpu", host_name(lost) + "/gpu0");
  EXPECT_EQ(gpu.rounds_judged, 19);
  EXPECT_EQ(gpu.healthy, 19);
  EXPECT_DOUBLE_EQ(gpu.pass_ratio, 1.0);
  EXPECT_EQ(verdict(r, "gpu", host_name(lost) + "/gpu0").state, HealthState::healthy);
  // Admission used the host's full inventory, not round 3's name-only entry.
  ASSERT_EQ(r.hosts.size(), 16u);
  EXPECT_EQ(r.hosts[lost].gpus.size(), 8u);
  EXPECT_EQ(r.hosts[lost].hcas.size(), 8u);
}

// ---- hand-made rounds ---------------------------------------------------------

Report round_of(std::vector<Verdict> verdicts, std::vector<ProbeResult> probes = {}) {
  Report r;
  r.hosts = {HostInventory{}, HostInventory{}};
  r.hosts[0].name = "a";
  r.hosts[1].name = "b";
  r.verdicts = std::move(verdicts);
  r.probes = std::move(probes);
  return r;
}

Verdict v(const std::string& kind, const std::string& id, HealthState state, const std::string& code = "") {
  Verdict out{Entity::from_text(testing::kind(kind), id).value(), state, {}, std::nullopt};
  if (!code.empty()) out.reasons.push_back(Reason{testing::code(code), code + " seen", "m", 1.0, 2.0});
  return out;
}

ProbeResult bw(double GBps, std::string rails = "mlx5_0:1") {
  ProbeResult p;
  p.id = "net.verbs.write_bw";
  p.scope = Scope{{"a", "b"}, {0, 1}, {rails, rails}};
  p.params = {{"size_B", std::size_t{8} << 20}};
  p.metrics["bw_avg_GBps"] = Metric::of(GBps);
  return p;
}

ProbeResult lat(double p50, double p99) {
  ProbeResult p;
  p.id = "net.verbs.write_lat";
  p.scope = Scope{{"a", "b"}, {0, 1}, {"mlx5_0:1", "mlx5_0:1"}};
  p.params = {{"size_B", 8}};
  p.metrics["lat_us"] = Metric::of(testing::latency_stats(p50, p99));
  return p;
}

ProbeResult counters(const std::string& port, std::map<std::string, std::optional<double>> deltas) {
  ProbeResult p;
  p.id = kPortCountersProbe;
  p.scope = Scope{{"a"}, {0}, {port}};
  p.params = {{"interval_s", 600.0}};
  for (const auto& [name, value] : deltas) p.metrics[name + "_delta"] = value ? Metric::of(*value) : Metric::missing();
  return p;
}

const BurnInFigure& figure(const BurnInEntity& e, const std::string& metric,
                           const std::string& rails = "mlx5_0:1<->mlx5_0:1") {
  for (const auto& f : e.figures)
    if (f.metric == metric && f.rails == rails) return f;
  throw std::runtime_error("no figure " + metric + " " + rails + " for " + e.entity.id());
}

TEST(BurnIn, WorstAndMedianFiguresOverAKnownSequence) {
  BurnInTally tally(generic_profile());
  const double bws[] = {40, 48, 45, 30, 47};
  const double p99s[] = {2, 5, 3, 4, 2.5};
  for (int k = 0; k < 5; ++k)
    tally.add(round_of({v("link", "a<->b", HealthState::healthy)},
                       {bw(bws[k]), bw(50 + k, "mlx5_1:1"), lat(1.0 + k * 0.1, p99s[k])}));
  const BurnInResult r = tally.finish();
  const BurnInEntity& link = stats(r, "link", "a<->b");

  const BurnInFigure& rail0 = figure(link, "bw_avg_GBps");
  EXPECT_EQ(rail0.figure, "net.verbs.write_bw@8388608:bw_avg_GBps");
  EXPECT_TRUE(rail0.higher_is_better);
  EXPECT_DOUBLE_EQ(rail0.worst, 30);   // a floor: the minimum
  EXPECT_DOUBLE_EQ(rail0.median, 45);  // 30 40 [45] 47 48
  EXPECT_EQ(rail0.count, 5u);
  const BurnInFigure& rail1 = figure(link, "bw_avg_GBps", "mlx5_1:1<->mlx5_1:1");
  EXPECT_DOUBLE_EQ(rail1.worst, 50);
  EXPECT_DOUBLE_EQ(rail1.median, 52);

  const BurnInFigure& p99 = figure(link, "lat_us.p99");
  EXPECT_FALSE(p99.higher_is_better);
  EXPECT_DOUBLE_EQ(p99.worst, 5);   // a ceiling: the maximum
  EXPECT_DOUBLE_EQ(p99.median, 3);  // 2 2.5 [3] 4 5
  const BurnInFigure& p50 = figure(link, "lat_us.p50");
  EXPECT_DOUBLE_EQ(p50.worst, 1.4);
  EXPECT_DOUBLE_EQ(p50.median, 1.2);
  EXPECT_EQ(link.figures.size(), 4u);
}

TEST(BurnIn, MedianOfAnEvenCountIsTheLowerMiddleByNearestRank) {
  BurnInTally tally(generic_profile());
  for (double x : {10.0, 40.0, 20.0, 30.0}) tally.add(round_of({v("link", "a<->b", HealthState::healthy)}, {bw(x)}));
  const BurnInResult r = tally.finish();
  const BurnInFigure& f = figure(stats(r, "link", "a<->b"), "bw_avg_GBps");
  EXPECT_DOUBLE_EQ(f.median, 20);
  EXPECT_DOUBLE_EQ(f.worst, 10);
}

TEST(BurnIn, CounterDeltasAreSummedPerPortAndResetsCounted) {
  BurnInTally tally(generic_profile());
  tally.add(round_of({}, {counters("mlx5_0:1", {{"symbol_error", 3}, {"link_downed", 0}}),
                          counters("mlx5_1:1", {{"symbol_error", 100}})}));
  tally.add(round_of({}, {counters("mlx5_0:1", {{"symbol_error", 4}, {"link_downed", 1}})}));
  tally.add(round_of({}, {counters("mlx5_0:1", {{"symbol_error", std::nullopt}, {"link_downed", 0}})}));
  ProbeResult failed_read = counters("mlx5_0:1", {{"symbol_error", 1000}});
  failed_read.status = ProbeStatus::error;  // not a measurement: not summed
  tally.add(round_of({}, {failed_read}));
  const BurnInResult r = tally.finish();
  const BurnInEntity& port0 = stats(r, "hca_port", "a/mlx5_0:1");
  EXPECT_EQ(port0.counter_deltas, (std::map<std::string, double>{{"symbol_error", 7}, {"link_downed", 1}}));
  EXPECT_EQ(port0.counter_resets, (std::map<std::string, int>{{"symbol_error", 1}}));
  EXPECT_EQ(stats(r, "hca_port", "a/mlx5_1:1").counter_deltas.at("symbol_error"), 100);
}

TEST(BurnIn, EntityAbsentInSomeRoundsIsCountedOverTheRoundsItWasJudged) {
  BurnInTally tally(generic_profile());
  for (int k = 1; k <= 6; ++k) {
    std::vector<Verdict> round{v("node", "a", HealthState::healthy), v("node", "b", HealthState::healthy)};
    if (k % 3 != 0) round.push_back(v("link", "a<->b", k == 4 ? HealthState::degraded : HealthState::healthy));
    tally.add(round_of(round));
  }
  const BurnInResult r = tally.finish();
  const BurnInEntity& link = stats(r, "link", "a<->b");
  EXPECT_EQ(r.stats.rounds, 6);
  EXPECT_EQ(link.rounds_judged, 4);
  EXPECT_EQ(link.healthy, 3);
  EXPECT_EQ(link.degraded, 1);
  EXPECT_DOUBLE_EQ(link.pass_ratio, 1.0);
  EXPECT_EQ(link.first_not_healthy_round, 4);
  EXPECT_TRUE(link.not_passed_rounds.empty());
  EXPECT_EQ(verdict(r, "link", "a<->b").state, HealthState::healthy) << "degraded in a minority";
}

TEST(BurnIn, DegradedThroughoutIsDegradedAndDegradedInSomeRoundsIsFlaky) {
  auto tally_of = [](const Profile& profile) {
    BurnInTally tally(profile);
    auto gpu = [](const char* id, bool degraded) {
      return degraded ? v("gpu", id, HealthState::degraded, "GPU_THERMAL_SLOWDOWN")
                      : v("gpu", id, HealthState::healthy);
    };
    for (int k = 1; k <= 5; ++k)
      tally.add(round_of({gpu("a/gpu0", true), gpu("a/gpu1", k == 2 || k == 3), gpu("a/gpu2", k == 4)}));
    return tally.finish();
  };
  const BurnInResult r = tally_of(generic_profile());
  const Verdict& gpu0 = verdict(r, "gpu", "a/gpu0");
  EXPECT_EQ(gpu0.state, HealthState::degraded);
  ASSERT_EQ(gpu0.reasons.size(), 1u);
  EXPECT_EQ(gpu0.reasons[0].message, "GPU_THERMAL_SLOWDOWN seen (in 5 of 5 rounds)");
  // Degraded in 2 of 5 and fine in the others: flaky, failed by default (not fit for a pool).
  const Verdict& gpu1 = verdict(r, "gpu", "a/gpu1");
  EXPECT_EQ(gpu1.state, HealthState::failed);
  ASSERT_EQ(gpu1.reasons.size(), 2u);
  EXPECT_EQ(gpu1.reasons[0].code, ReasonCode::BURN_IN_FLAKY);
  EXPECT_EQ(gpu1.reasons[0].message, "degraded in 2 of 5 rounds (rounds 2, 3)");
  EXPECT_EQ(gpu1.reasons[1].message, "GPU_THERMAL_SLOWDOWN seen (in 2 of 5 rounds: 2, 3)");
  // One degraded round is under flaky_min_rounds: healthy, the round in the statistics.
  EXPECT_EQ(verdict(r, "gpu", "a/gpu2").state, HealthState::healthy);
  EXPECT_EQ(stats(r, "gpu", "a/gpu2").reason_rounds.at(ReasonCode::GPU_THERMAL_SLOWDOWN), std::vector<int>{4});
  // The profile sets the state a flaky entity gets.
  Profile lenient = generic_profile();
  lenient.burn_in.flaky_state = HealthState::degraded;
  const BurnInResult l = tally_of(lenient);
  EXPECT_EQ(verdict(l, "gpu", "a/gpu1").state, HealthState::degraded);
}

// One figure over `values.size()` rounds: a link's bandwidth, judged healthy every round.
BurnInResult figure_over_rounds(const std::vector<double>& values) {
  BurnInTally tally(generic_profile());
  for (double value : values) {
    tally.add(round_of({v("link", "a<->b", HealthState::healthy)}, {bw(value)}));
  }
  return tally.finish();
}

// A link judged degraded in rounds 6 and 9 of 12: flaky when those rounds read far beyond the run's
// own round-to-round noise (a seventh of its median), healthy when they read within it (0.6 of
// it, where other rounds read 0.7 to 1.2): a small group's fleet rule cannot learn its noise in
// one round of six pairs, the burn-in's rounds show it.
TEST(BurnIn, DegradedRoundsWithinTheRunsOwnNoiseAreNotFlaky) {
  auto fold = [](double low) {
    const std::vector<double> values{10, 7.5, 11, 8, 12, low, 9.5, 7, low, 11.5, 8.5, 10};
    BurnInTally tally(generic_profile());
    for (std::size_t k = 0; k < values.size(); ++k) {
      const bool degraded = values[k] == low;
      tally.add(round_of({v("link", "a<->b", degraded ? HealthState::degraded : HealthState::healthy,
                            degraded ? "NET_BW_OUTLIER" : "")},
                         {bw(values[k])}));
    }
    return tally.finish();
  };
  const BurnInResult noise = fold(6.0), limited = fold(1.4);
  EXPECT_EQ(verdict(noise, "link", "a<->b").state, HealthState::healthy);
  const Verdict& fault = verdict(limited, "link", "a<->b");
  EXPECT_EQ(fault.state, HealthState::failed);
  ASSERT_NE(reason(fault, "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(reason(fault, "BURN_IN_FLAKY")->message.rfind("degraded in 2 of 12 rounds (rounds 6, 9)", 0), 0u)
      << reason(fault, "BURN_IN_FLAKY")->message;
}

// One degraded round of twelve: a deep drop (a seventh of the median, beyond the run's noise) is
// seen once, degraded, and said with its round and figure; a drop within the noise stays healthy,
// as does a single degraded round of an entity without figures (no noise to judge it against).
TEST(BurnIn, ADeepDropInOneRoundIsSeenOnceAndNoiseIsNot) {
  auto fold = [](double low, const Profile& profile = generic_profile()) {
    const std::vector<double> values{10, 7.5, 11, 8, 12, low, 9.5, 7, 10.5, 11.5, 8.5, 10};
    BurnInTally tally(profile);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const bool degraded = values[k] == low;
      tally.add(round_of({v("link", "a<->b", degraded ? HealthState::degraded : HealthState::healthy,
                            degraded ? "NET_BW_OUTLIER" : ""),
                          v("gpu", "a/gpu0", k == 5 ? HealthState::degraded : HealthState::healthy,
                            k == 5 ? "GPU_THERMAL_SLOWDOWN" : "")},
                         {bw(values[k])}));
    }
    return tally.finish();
  };
  const BurnInResult deep = fold(1.4), shallow = fold(6.0);
  const Verdict& once = verdict(deep, "link", "a<->b");
  EXPECT_EQ(once.state, HealthState::degraded);
  ASSERT_NE(reason(once, "BURN_IN_SEEN_ONCE"), nullptr);
  EXPECT_EQ(reason(once, "BURN_IN_FLAKY"), nullptr);
  // The round, and the figure against its other rounds (their lower median, 10): 1.4 is 0.14 of it.
  const Reason& why = *reason(once, "BURN_IN_SEEN_ONCE");
  EXPECT_EQ(why.message,
            "bandwidth under 0.2 x its other rounds' ([burn_in].drop_fraction) in 1 of 12 rounds (round 6), not "
            "in the others; net.verbs.write_bw@8388608:bw_avg_GBps (mlx5_0:1<->mlx5_0:1) 1.4 in round 6, 0.14 x "
            "its other rounds' 10");
  EXPECT_EQ(why.value, 1.4);
  EXPECT_DOUBLE_EQ(*why.threshold, 2.0);
  ASSERT_NE(reason(once, "NET_BW_OUTLIER"), nullptr);  // and what the round said, with its round
  EXPECT_NE(reason(once, "NET_BW_OUTLIER")->message.find("(in 1 of 12 rounds: 6)"), std::string::npos)
      << reason(once, "NET_BW_OUTLIER")->message;
  EXPECT_EQ(verdict(shallow, "link", "a<->b").state, HealthState::healthy);  // 0.6 of its other rounds
  EXPECT_EQ(verdict(deep, "gpu", "a/gpu0").state, HealthState::healthy);     // no figure: nothing to read a drop in
  // The profile sets the state; where one degraded round is enough to be flaky, it is flaky.
  Profile strict = generic_profile();
  strict.burn_in.seen_once_state = HealthState::failed;
  EXPECT_EQ(verdict(fold(1.4, strict), "link", "a<->b").state, HealthState::failed);
  Profile one_round = generic_profile();
  one_round.burn_in.flaky_min_rounds = 1;
  const BurnInResult twice = fold(1.4, one_round);
  const Verdict& flaky = verdict(twice, "link", "a<->b");
  EXPECT_NE(reason(flaky, "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(reason(flaky, "BURN_IN_SEEN_ONCE"), nullptr);
}

// A host whose links all read deep in one round is seen once, read from its links' figures,
// whatever that round's verdicts said (a fault that began between a pair's first measurement and
// its re-test went unflagged in the round itself); its links' drop is the host's, not theirs, as
// localisation lays it. A drop in latency alone is not read (it spikes on busy hosts).
TEST(BurnIn, AHostWhoseLinksDropInOneRoundIsSeenOnce) {
  auto fold = [](double ab, double ac, double p99, int rounds = 3) {
    BurnInTally tally(generic_profile());
    for (int k = 1; k <= rounds; ++k) {
      const bool slow = k == 2;
      ProbeResult to_b = bw(slow ? ab : 0.8), to_c = bw(slow ? ac : 0.8), b_c = bw(0.8);
      to_c.scope.hosts = {"a", "c"};
      b_c.scope.hosts = {"b", "c"};
      ProbeResult spike = lat(2000, slow ? p99 : 3000);
      tally.add(round_of({v("node", "a", HealthState::healthy), v("node", "b", HealthState::healthy),
                          v("node", "c", HealthState::healthy), v("link", "a<->b", HealthState::healthy),
                          v("link", "a<->c", HealthState::healthy), v("link", "b<->c", HealthState::healthy)},
                         {to_b, to_c, b_c, spike}));
    }
    return tally.finish();
  };
  const BurnInResult deep = fold(0.036, 0.04, 3000);
  const Verdict& a = verdict(deep, "node", "a");
  EXPECT_EQ(a.state, HealthState::degraded);
  EXPECT_EQ(a.action, Action::admit_degraded);
  ASSERT_NE(reason(a, "BURN_IN_SEEN_ONCE"), nullptr);
  EXPECT_NE(reason(a, "BURN_IN_SEEN_ONCE")
                ->message.find(" in 1 of 3 rounds (round 2), not in the others; the "
                               "middle of its 2 links' drops, link a<->c "),
            std::string::npos)
      << reason(a, "BURN_IN_SEEN_ONCE")->message;
  EXPECT_EQ(deep.summary.exit_code, 1);
  EXPECT_EQ(unhealthy(deep), (std::map<std::string, HealthState>{{"node a", HealthState::degraded}}));
  // One link deep and the other not: the middle drop (of two, the shallower) decides; the deep
  // link is then the link's own, seen once.
  EXPECT_EQ(unhealthy(fold(0.036, 0.6, 3000)),
            (std::map<std::string, HealthState>{{"link a<->b", HealthState::degraded}}));
  // Deep in two rounds of five (rounds 2 and 4 here): flaky, failed.
  auto twice = [&] {
    BurnInTally tally(generic_profile());
    for (int k = 1; k <= 5; ++k) {
      ProbeResult ab = bw(k == 2 || k == 4 ? 0.05 : 0.8);
      tally.add(round_of({v("link", "a<->b", HealthState::healthy)}, {ab}));
    }
    return tally.finish();
  }();
  EXPECT_EQ(verdict(twice, "link", "a<->b").state, HealthState::failed);
  ASSERT_NE(reason(verdict(twice, "link", "a<->b"), "BURN_IN_FLAKY"), nullptr);
  EXPECT_NE(reason(verdict(twice, "link", "a<->b"), "BURN_IN_FLAKY")->message.find("in 2 of 5 rounds (rounds 2, 4)"),
            std::string::npos);
  // In three rounds, two drops are each set beside the good round (the upper median of the
  // others), not beside each other: flaky.
  BurnInTally three(generic_profile());
  for (int k = 1; k <= 3; ++k)
    three.add(round_of({v("link", "a<->b", HealthState::healthy)}, {bw(k == 1 ? 0.8 : 0.05)}));
  EXPECT_NE(reason(verdict(three.finish(), "link", "a<->b"), "BURN_IN_FLAKY"), nullptr);
  // A host's loopback pair (one host's burn-in) is the link's own: a drop there stays on it.
  BurnInTally alone(generic_profile());
  for (int k = 1; k <= 3; ++k) {
    ProbeResult self = bw(k == 2 ? 0.05 : 0.8);
    self.scope.hosts = {"a", "a"};
    alone.add(round_of({v("node", "a", HealthState::healthy), v("link", "a<->a", HealthState::healthy)}, {self}));
  }
  const BurnInResult one_host = alone.finish();
  EXPECT_EQ(unhealthy(one_host), (std::map<std::string, HealthState>{{"link a<->a", HealthState::degraded}}));
  // The table lists what the drops flagged, though every round's verdict was healthy.
  Report shown;
  shown.hosts = deep.hosts;
  shown.verdicts = deep.verdicts;
  shown.summary = deep.summary;
  shown.burn_in = deep.stats;
  std::ostringstream table;
  TableReporter{}.render(shown, table);
  EXPECT_NE(table.str().find("0 flaky, 1 seen once"), std::string::npos) << table.str();
  // Latency six times its other rounds, bandwidth as ever: not a drop.
  const BurnInResult spike = fold(0.8, 0.8, 18000);
  EXPECT_TRUE(unhealthy(spike).empty());
  EXPECT_EQ(spike.summary.exit_code, 0);
  // Two rounds: nothing to set a drop beside but one other round, which is enough; one round: none.
  EXPECT_TRUE(unhealthy(fold(0.036, 0.04, 3000, 1)).empty());
}

// A drop's reason cites the results of the figure it names (their probe, size and ports), a
// node's with its own end's port first; the class is what the burn-in decided.
TEST(BurnIn, ADropCitesItsFigureWithTheNodesOwnPortFirst) {
  // Round 2: every link of `slow` reads a twentieth of its other rounds.
  auto fold = [](const std::string& slow) {
    BurnInTally tally(generic_profile());
    for (int k = 1; k <= 3; ++k) {
      std::vector<ProbeResult> pairs;
      for (const auto& [x, y] : {std::pair{"a", "b"}, std::pair{"a", "c"}, std::pair{"b", "c"}}) {
        ProbeResult p = bw(k == 2 && (x == slow || y == slow) ? 0.04 : 0.8);
        p.scope.hosts = {x, y};
        p.scope.devices = {"mlx5_0:1", "mlx5_3:1"};  // each pair's first host on mlx5_0, its second on mlx5_3
        pairs.push_back(p);
      }
      tally.add(round_of({v("node", "a", HealthState::healthy), v("node", "b", HealthState::healthy),
                          v("node", "c", HealthState::healthy), v("link", "a<->b", HealthState::healthy),
                          v("link", "a<->c", HealthState::healthy), v("link", "b<->c", HealthState::healthy)},
                         pairs));
    }
    return tally.finish();
  };
  // c is the second host of both its links; a the first of both.
  for (const auto& [slow, own, peer] :
       {std::tuple{"c", "mlx5_3:1", "mlx5_0:1"}, std::tuple{"a", "mlx5_0:1", "mlx5_3:1"}}) {
    const BurnInResult r = fold(slow);
    EXPECT_EQ(unhealthy(r), (std::map<std::string, HealthState>{{std::string("node ") + slow, HealthState::degraded}}));
    const Reason* once = reason(verdict(r, "node", slow), "BURN_IN_SEEN_ONCE");
    ASSERT_NE(once, nullptr) << slow;
    EXPECT_EQ(once->probe, "net.verbs.write_bw");
    EXPECT_EQ(once->size_B, std::uint64_t{8} << 20);
    EXPECT_EQ(once->port, own) << slow;  // the node's end of the link, first or second host alike
    EXPECT_EQ(once->peer_port, peer) << slow;
    EXPECT_EQ(stats(r, "node", slow).burn_in_class, BurnInClass::seen_once);
    EXPECT_EQ(stats(r, "node", "b").burn_in_class, BurnInClass::healthy);
    EXPECT_EQ(stats(r, "link", std::string("a<->") + (std::string(slow) == "c" ? "c" : "b")).burn_in_class,
              BurnInClass::healthy);  // the host's drop, not the link's
    EXPECT_EQ(r.summary.exit_code, 1);
  }
}

TEST(BurnIn, ASteadyDeclineDriftsAndNoiseAloneDoesNot) {
  // 16 rounds falling 2% a round with noise of +-3%: about 26% over the run.
  std::vector<double> falling, noise;
  for (int k = 0; k < 16; ++k) {
    const double jitter = 1 + 0.03 * ((k * 7) % 5 - 2) / 2.0;
    falling.push_back(10.0 * std::pow(0.98, k) * jitter);
    noise.push_back(10.0 * (1 + 0.15 * (((k * 11) % 7) - 3) / 3.0));  // +-15%, no trend
  }
  const BurnInResult r = figure_over_rounds(falling);
  const Verdict& link = verdict(r, "link", "a<->b");
  EXPECT_EQ(link.state, HealthState::degraded);
  ASSERT_NE(reason(link, "BURN_IN_DRIFT"), nullptr);
  EXPECT_NE(reason(link, "BURN_IN_DRIFT")->message.find("fell"), std::string::npos);
  EXPECT_EQ(reason(link, "BURN_IN_DRIFT")->probe, "net.verbs.write_bw");  // the figure's results
  EXPECT_EQ(reason(link, "BURN_IN_DRIFT")->port, "mlx5_0:1");
  EXPECT_EQ(stats(r, "link", "a<->b").burn_in_class, BurnInClass::drifting);  // healthy in every round
  EXPECT_EQ(stats(r, "link", "a<->b").figures.at(0).series.size(), 16u);
  const BurnInResult quiet = figure_over_rounds(noise);
  EXPECT_EQ(verdict(quiet, "link", "a<->b").state, HealthState::healthy);
  EXPECT_EQ(reason(verdict(quiet, "link", "a<->b"), "BURN_IN_DRIFT"), nullptr);
  // A step down and back (a collapse for a third of the run) is no trend.
  std::vector<double> step(16, 10.0);
  for (int k = 5; k < 10; ++k) step[static_cast<std::size_t>(k)] = 2.0;
  EXPECT_EQ(reason(verdict(figure_over_rounds(step), "link", "a<->b"), "BURN_IN_DRIFT"), nullptr);
}

TEST(BurnIn, UnknownInSomeRoundsIsFlakyAndUnknownThroughoutStaysUnknown) {
  BurnInTally tally(generic_profile());
  for (int k = 1; k <= 4; ++k)
    tally.add(round_of({v("node", "a", k == 2 || k == 4 ? HealthState::unknown : HealthState::healthy, "CHECK_SKIPPED"),
                        v("node", "b", HealthState::unknown, "CHECK_SKIPPED")}));
  const BurnInResult r = tally.finish();
  const Verdict& a = verdict(r, "node", "a");
  EXPECT_EQ(a.state, HealthState::failed);
  ASSERT_NE(reason(a, "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(reason(a, "BURN_IN_FLAKY")->message, "unchecked in 2 of 4 rounds (rounds 2, 4)");
  EXPECT_DOUBLE_EQ(reason(a, "BURN_IN_FLAKY")->value.value_or(-1), 0.5);
  EXPECT_EQ(verdict(r, "node", "b").state, HealthState::unknown);
  EXPECT_EQ(verdict(r, "node", "b").action, Action::drain);
  EXPECT_EQ(r.summary.exit_code, 2);
}

// A host with no GPU is unknown in every round for its skipped checks; its link slowed down in
// rounds 3 and 4 only. The network finding came and went: flaky. One round of a finding, or a
// finding in every round, is not.
TEST(BurnIn, AFindingThatComesAndGoesOnANodeNeverHealthyIsFlaky) {
  BurnInTally tally(generic_profile());
  for (int k = 1; k <= 6; ++k) {
    Verdict a = v("node", "a", HealthState::unknown, "CHECK_SKIPPED");
    if (k == 3 || k == 4) a.reasons.push_back(Reason{ReasonCode::NET_BW_OUTLIER, "slow", "bw_avg_GBps", 0.1, 0.5});
    Verdict b = v("node", "b", HealthState::unknown, "CHECK_SKIPPED");
    if (k == 5) b.reasons.push_back(Reason{ReasonCode::NET_BW_OUTLIER, "slow", "bw_avg_GBps", 0.1, 0.5});
    tally.add(round_of({a, b, v("gpu", "a/gpu0", HealthState::degraded, "GPU_THERMAL_SLOWDOWN")}));
  }
  const BurnInResult r = tally.finish();
  const Verdict& a = verdict(r, "node", "a");
  EXPECT_EQ(a.state, HealthState::failed);
  ASSERT_NE(reason(a, "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(reason(a, "BURN_IN_FLAKY")->message, "NET_BW_OUTLIER in 2 of 6 rounds (rounds 3, 4), not in the others");
  ASSERT_NE(reason(a, "NET_BW_OUTLIER"), nullptr);
  EXPECT_EQ(reason(a, "NET_BW_OUTLIER")->message, "slow (in 2 of 6 rounds: 3, 4)");
  EXPECT_EQ(verdict(r, "node", "b").state, HealthState::unknown);
  EXPECT_EQ(reason(verdict(r, "node", "b"), "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(verdict(r, "gpu", "a/gpu0").state, HealthState::degraded);
  EXPECT_EQ(reason(verdict(r, "gpu", "a/gpu0"), "BURN_IN_FLAKY"), nullptr);
  // Unknown in every round, but flaky is what the burn-in found: its class, as Prometheus's
  // ibgpu_burn_in_flaky; b, unknown throughout with one finding, is bad in every round.
  EXPECT_EQ(stats(r, "node", "a").burn_in_class, BurnInClass::flaky);
  EXPECT_EQ(stats(r, "node", "b").burn_in_class, BurnInClass::bad_every_round);
  EXPECT_EQ(stats(r, "gpu", "a/gpu0").burn_in_class, BurnInClass::degraded_every_round);
  // A lenient profile's flaky state never makes it better than it was: unknown stays unknown.
  Profile lenient = generic_profile();
  lenient.burn_in.flaky_state = HealthState::degraded;
  BurnInTally again(lenient);
  for (int k = 1; k <= 4; ++k) {
    Verdict a2 = v("node", "a", HealthState::unknown, "CHECK_SKIPPED");
    if (k > 2) a2.reasons.push_back(Reason{ReasonCode::NET_BW_OUTLIER, "slow", "bw_avg_GBps", 0.1, 0.5});
    again.add(round_of({a2}));
  }
  EXPECT_EQ(verdict(again.finish(), "node", "a").state, HealthState::unknown);
}

// A path between two groups of hosts (or a switch, an uplink) has a verdict only in a round that
// blames it; the other rounds that judged links passed it. Once in four rounds: healthy; in two of
// five: flaky.
TEST(BurnIn, AFabricEntityIsHealthyInTheRoundsThatDidNotBlameIt) {
  auto fold = [](int rounds, const std::set<int>& blamed) {
    BurnInTally tally(generic_profile());
    for (int k = 1; k <= rounds; ++k) {
      std::vector<Verdict> verdicts{v("link", "a<->b", HealthState::healthy)};
      if (blamed.count(k)) verdicts.push_back(v("path", "h[1,3]<->h[2,4]", HealthState::degraded, "FABRIC_PATH_BAD"));
      tally.add(round_of(verdicts));
    }
    return tally.finish();
  };
  const BurnInResult once = fold(4, {2});
  EXPECT_EQ(verdict(once, "path", "h[1,3]<->h[2,4]").state, HealthState::healthy);
  EXPECT_EQ(stats(once, "path", "h[1,3]<->h[2,4]").rounds_judged, 4);
  EXPECT_EQ(stats(once, "path", "h[1,3]<->h[2,4]").healthy, 3);
  const BurnInResult twice = fold(5, {2, 3});
  const Verdict& path = verdict(twice, "path", "h[1,3]<->h[2,4]");
  EXPECT_EQ(path.state, HealthState::failed);
  ASSERT_NE(reason(path, "BURN_IN_FLAKY"), nullptr);
  EXPECT_EQ(reason(path, "BURN_IN_FLAKY")->message, "degraded in 2 of 5 rounds (rounds 2, 3)");
}

TEST(BurnIn, FlakyMessageNamesFailedAndUncheckedAndShortensLongRoundLists) {
  BurnInTally tally(generic_profile());
  for (int k = 1; k <= 30; ++k) {
    HealthState s = HealthState::healthy;
    if (k % 2 == 0) s = HealthState::failed;
    if (k == 3) s = HealthState::unknown;
    tally.add(round_of({v("link", "a<->b", s)}));
  }
  const BurnInResult r = tally.finish();
  const Reason* flaky = reason(verdict(r, "link", "a<->b"), "BURN_IN_FLAKY");
  ASSERT_NE(flaky, nullptr);
  EXPECT_EQ(flaky->message,
            "failed or unchecked in 16 of 30 rounds (rounds 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, ... (6 more))");
}

TEST(BurnIn, RoundsTextLists) {
  EXPECT_EQ(rounds_text({}), "");
  EXPECT_EQ(rounds_text({7}), "7");
  EXPECT_EQ(rounds_text({1, 2, 3}, 2), "1, 2, ... (1 more)");
}

TEST(BurnIn, FirstStartAndLastFinishAreKept) {
  BurnInTally tally(generic_profile());
  for (int k = 1; k <= 3; ++k) {
    Report round = round_of({v("node", "a", HealthState::healthy)});
    round.run.started = "2026-01-01T00:0" + std::to_string(k) + ":00Z";
    round.run.finished = "2026-01-01T00:0" + std::to_string(k) + ":30Z";
    tally.add(round);
  }
  const BurnInResult r = tally.finish();
  EXPECT_EQ(r.stats.first_round_started, "2026-01-01T00:01:00Z");
  EXPECT_EQ(r.stats.last_round_finished, "2026-01-01T00:03:30Z");
}

}  // namespace
}  // namespace ibgpu
