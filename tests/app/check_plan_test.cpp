#include "app/check_plan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <unordered_map>

#include "app/retests.h"
#include "app/text.h"
#include "cluster/pairs.h"
#include "cluster/rank_pairs.h"
#include "core/units.h"
#include "health/profile.h"
#include "reports/json.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu {
namespace {

CheckSteps standard_steps() {
  CheckSteps s;
  const PresetDefaults d = preset_defaults(CheckPreset::standard);
  s.net.settings.bw_sizes = d.bw_sizes;
  s.net.settings.lat_iters = d.lat_iters;
  s.allreduce.settings.sizes = d.allreduce_sizes;
  s.allreduce.settings.iters = d.allreduce_iters;
  s.retests = 2;
  return s;
}

LaunchShape sixteen_hosts() {
  LaunchShape shape;
  shape.hosts = 16;
  shape.ranks = 128;
  shape.pair_rounds = 15;
  shape.quick_pair_rounds = 1;
  shape.all_pair_rounds = 15;
  shape.placements = 3;
  return shape;
}

TEST(CheckPlan, WithoutABudgetTheStepsRunAsGiven) {
  const CheckPlan plan = plan_check(standard_steps(), sixteen_hosts(), CostModel{}, std::nullopt);
  EXPECT_TRUE(plan.dropped.empty());
  EXPECT_TRUE(plan.fits);
  EXPECT_EQ(plan.steps.net.settings.bw_sizes, standard_steps().net.settings.bw_sizes);
  EXPECT_GT(plan.estimate_s, 0);
}

TEST(CheckPlan, AGenerousBudgetDropsNothing) {
  const CheckSteps s = standard_steps();
  const double needed = estimate_seconds(s, sixteen_hosts(), CostModel{});
  const CheckPlan plan = plan_check(s, sixteen_hosts(), CostModel{}, Seconds(needed * 2));
  EXPECT_TRUE(plan.dropped.empty());
  EXPECT_TRUE(plan.fits);
  EXPECT_EQ(plan.steps.retests, 2);
}

TEST(CheckPlan, ATightBudgetShedsLeastValuableWorkFirstAndSaysWhat) {
  const CheckSteps s = standard_steps();
  const LaunchShape shape = sixteen_hosts();
  const double needed = estimate_seconds(s, shape, CostModel{});
  // Enough for one quick round at the largest size, not for every pair.
  CheckSteps quick = s;
  quick.net.pairs.mode = PairMode::quick;
  quick.net.settings.bw_sizes = {std::size_t{8} << 20};
  const double quick_cost = estimate_seconds(quick, shape, CostModel{});
  ASSERT_LT(quick_cost, needed);
  const CheckPlan plan = plan_check(s, shape, CostModel{}, Seconds(quick_cost / 0.8 * 1.01));
  ASSERT_GE(plan.dropped.size(), 2u);
  EXPECT_EQ(plan.dropped[0], "bandwidth size 1M");  // the judge reads the largest size: it stays
  EXPECT_EQ(plan.steps.net.settings.bw_sizes, (std::vector<std::size_t>{std::size_t{8} << 20}));
  EXPECT_NE(plan.dropped[1].find("pairs: one quick round (1 instead of 15"), std::string::npos) << plan.dropped[1];
  EXPECT_EQ(plan.steps.net.pairs.mode, PairMode::quick);
  EXPECT_TRUE(plan.steps.collectives);  // it fits without dropping the all-reduce
  EXPECT_TRUE(plan.fits);
  EXPECT_LE(plan.estimate_s, 0.8 * quick_cost / 0.8 * 1.01 + 1e-9);
}

// However slow the links, a measurement ends at its time cap: the plan's worst case is the caps
// added up, and a budget shortens the caps until that worst case fits too.
TEST(CheckPlan, TheWorstCaseIsTheTimeCapsAndABudgetShortensThem) {
  CheckSteps s = standard_steps();
  const CheckPlan free = plan_check(s, sixteen_hosts(), CostModel{}, std::nullopt);
  // 15 rounds of (set-up + 2 bandwidth sizes + 2 latency kinds) + 3 placements of 2 sizes x 2 modes.
  EXPECT_NEAR(free.worst_case_s, 15 * (0.05 + 4 * 3.0) + 3 * (0.2 + 4 * 3.0), 1e-9);
  EXPECT_LE(free.estimate_s, free.worst_case_s);
  EXPECT_FALSE(free.capped_to_s);

  const double budget = 120;
  const CheckPlan plan = plan_check(s, sixteen_hosts(), CostModel{}, Seconds(budget));
  ASSERT_TRUE(plan.capped_to_s);
  EXPECT_LT(*plan.capped_to_s, 3.0);
  EXPECT_EQ(plan.steps.net.settings.time_cap_s, *plan.capped_to_s);
  EXPECT_EQ(plan.steps.allreduce.settings.time_cap_s, *plan.capped_to_s);
  EXPECT_LE(plan.worst_case_s, 0.8 * budget + 1e-6);
  EXPECT_GT(plan.worst_case_s, 0.7 * budget);  // not shorter than it must be
  EXPECT_TRUE(plan.fits);
}

// A re-test pass begins only before nine tenths of the budget are spent (the check and the fleet
// simulator ask this one function); without a budget, always.
TEST(CheckPlan, AnotherStepBeginsOnlyBeforeNineTenthsOfTheBudget) {
  EXPECT_TRUE(time_left_for_another_step(std::nullopt, Seconds(1e6)));
  EXPECT_TRUE(time_left_for_another_step(Seconds(100), Seconds(89.5)));
  EXPECT_FALSE(time_left_for_another_step(Seconds(100), Seconds(90.5)));
  EXPECT_FALSE(time_left_for_another_step(Seconds(100), Seconds(120)));
}

TEST(CheckPlan, ABudgetTooSmallForAnythingSaysSo) {
  const CheckPlan plan = plan_check(standard_steps(), sixteen_hosts(), CostModel{}, Seconds(0.01));
  EXPECT_FALSE(plan.fits);
  EXPECT_FALSE(plan.steps.collectives);
  EXPECT_EQ(plan.steps.retests, 0);
  EXPECT_EQ(plan.dropped.back(), "re-tests");
}

TEST(CheckPlan, FasterLinksMeanLessToDrop) {
  const CheckSteps s = standard_steps();
  CostModel ndr;
  ndr.bw_GBps = ndr.busbw_GBps = 40;
  EXPECT_LT(estimate_seconds(s, sixteen_hosts(), ndr), estimate_seconds(s, sixteen_hosts(), CostModel{}));
}

// A fleet launch: every pair is n-1 rounds, one quick round, one rank per rail.
LaunchShape fleet_of(int hosts) {
  LaunchShape shape;
  shape.hosts = hosts;
  shape.ranks = hosts * 8;
  shape.all_pair_rounds = shape.pair_rounds = all_pairs_round_count(hosts);
  shape.quick_pair_rounds = 1;
  return shape;
}

CheckSteps network_only(PairPlan pairs) {
  CheckSteps s = standard_steps();
  s.net.settings.bw_sizes = {std::size_t{8} << 20};  // nothing to shed before the pairs
  s.collectives = false;
  s.net.pairs = pairs;
  return s;
}

TEST(CheckPlan, APeerPlanWithLeavesKnownCountsItsRoundOfLeafMates) {
  LaunchShape shape = fleet_of(1024);
  const CheckSteps peers = network_only(PairPlan{PairMode::peers, 8, {}, false});
  EXPECT_EQ(pair_rounds_of(peers, shape), 8);
  shape.leaf_rounds = 1;
  EXPECT_EQ(pair_rounds_of(peers, shape), 9);
  EXPECT_EQ(pair_rounds_of(network_only(PairPlan{PairMode::peers, 2000, {}, false}), shape), 1023);  // every pair
}

TEST(CheckPlan, ABudgetPicksTheLargestPeerPlanThatFitsAtFleetSizes) {
  CostModel ndr;
  ndr.bw_GBps = ndr.busbw_GBps = 40;
  for (const int hosts : {1024, 4096}) {
    const LaunchShape shape = fleet_of(hosts);
    const CheckSteps every_pair = network_only(PairPlan{});
    for (const int k : kPeerPlans) {
      const double fits_k = estimate_seconds(network_only(PairPlan{PairMode::peers, k, {}, false}), shape, ndr);
      const double twice_k = estimate_seconds(network_only(PairPlan{PairMode::peers, 2 * k, {}, false}), shape, ndr);
      ASSERT_LT(fits_k, twice_k);
      // Just enough for peers:K: that is the plan, with the rest of the budget left for re-tests.
      const CheckPlan plan = plan_check(every_pair, shape, ndr, Seconds(fits_k / 0.8 * 1.001));
      ASSERT_EQ(plan.steps.net.pairs.mode, PairMode::peers) << hosts << " hosts, K " << k;
      EXPECT_EQ(plan.steps.net.pairs.peers, k) << hosts << " hosts";
      EXPECT_EQ(pair_rounds_of(plan.steps, shape), k);
      ASSERT_EQ(plan.dropped.size(), 1u);
      EXPECT_NE(plan.dropped[0].find("pairs: peers:" + std::to_string(k) + ", every host meets"), std::string::npos)
          << plan.dropped[0];
      EXPECT_NE(plan.dropped[0].find("instead of " + std::to_string(hosts - 1) + " rounds of every pair"),
                std::string::npos)
          << plan.dropped[0];
      EXPECT_LE(plan.estimate_s, 0.8 * fits_k / 0.8 * 1.001);
      // A little less: the next smaller plan.
      const CheckPlan less = plan_check(every_pair, shape, ndr, Seconds(fits_k / 0.8 * 0.999));
      if (k > 2) {
        EXPECT_EQ(less.steps.net.pairs.mode, PairMode::peers);
        EXPECT_EQ(less.steps.net.pairs.peers, k / 2);
      } else {
        EXPECT_EQ(less.steps.net.pairs.mode, PairMode::quick);
      }
    }
    // Every pair fits: nothing changes; a requested peers:K is cut down like every pair.
    const double all_s = estimate_seconds(every_pair, shape, ndr);
    EXPECT_EQ(plan_check(every_pair, shape, ndr, Seconds(all_s / 0.8 * 1.001)).steps.net.pairs.mode, PairMode::all);
    const double eight_s = estimate_seconds(network_only(PairPlan{PairMode::peers, 8, {}, false}), shape, ndr);
    const CheckPlan from_peers =
        plan_check(network_only(PairPlan{PairMode::peers, 64, {}, false}), shape, ndr, Seconds(eight_s / 0.8 * 1.001));
    EXPECT_EQ(from_peers.steps.net.pairs.peers, 8);
    ASSERT_FALSE(from_peers.dropped.empty());
    EXPECT_NE(from_peers.dropped[0].find("instead of 64 rounds of peers:64"), std::string::npos)
        << from_peers.dropped[0];
  }
}

TEST(CheckPlan, ThePowerIsModelledOverTheRoundsThePlannerLaysOut) {
  // peers:16 over 256 hosts in leaves of 32: the spread rounds and the leaf round, pair for pair.
  LaunchShape shape;
  shape.hosts = 256;
  shape.ranks = 256 * 4;
  CheckSteps steps = standard_steps();
  steps.net.pairs = PairPlan{PairMode::peers, 16, {}, false};
  for (int h = 0; h < 256; ++h) steps.net.pairs.leaf_of_host.push_back(h / 32);
  std::vector<std::pair<int, int>> laid_out;
  for (const Round& round : host_rounds(steps.net.pairs, 256))
    for (const NodePair& p : round) laid_out.emplace_back(p.a, p.b);
  const PlanShape modelled = power_shape(steps, shape);
  EXPECT_EQ(modelled.pairs, laid_out);
  EXPECT_EQ(modelled.peers, 17);  // most hosts meet a leaf-mate the spread rounds did not
  // Past the modelled fleet's size, the same plan over its first 1,024 hosts.
  shape.hosts = 4096;
  shape.ranks = 4096 * 4;
  steps.net.pairs.leaf_of_host.clear();
  for (int h = 0; h < 4096; ++h) steps.net.pairs.leaf_of_host.push_back(h / 32);
  const PlanShape large = power_shape(steps, shape);
  ASSERT_FALSE(large.pairs.empty());
  for (const auto& [a, b] : large.pairs) EXPECT_LT(std::max(a, b), kPowerModelHosts);
  // One quick round and every pair are the model's own ring.
  steps.net.pairs.mode = PairMode::quick;
  EXPECT_TRUE(power_shape(steps, shape).pairs.empty());
}

TEST(CheckPlan, DetectPicksTheCheapestPlanThatFindsTheSlowdownOrSaysNoneDoes) {
  // 512 hosts of 8 rails at the generic profile's default noise (5%).
  LaunchShape shape;
  shape.hosts = 512;
  shape.ranks = 512 * 8;
  const Profile profile = generic_profile();
  CheckSteps steps = standard_steps();
  steps.retests = 1;
  const DetectChoice found = plan_to_detect(steps, shape, profile, DetectTarget{0.2, 0.95});
  ASSERT_TRUE(found.reached);
  EXPECT_GE(found.power.faults.front().node_found, 0.95);
  EXPECT_NEAR(found.power.faults.front().carries, 0.8, 1e-12);
  // Every cheaper plan falls short: quick, then peers:2, 4, ... up to the one chosen.
  std::vector<PairPlan> cheaper = {PairPlan{PairMode::quick, 0, {}, false}};
  for (auto k = std::rbegin(kPeerPlans); k != std::rend(kPeerPlans); ++k)
    cheaper.push_back(PairPlan{PairMode::peers, *k, {}, false});
  for (const PairPlan& pairs : cheaper) {
    if (pair_plan_name(pairs) == pair_plan_name(found.pairs)) break;
    CheckSteps trial = steps;
    trial.net.pairs = pairs;
    const PlanPower p = plan_power(power_shape(trial, shape), profile.fleet, NoiseModel{0.05}, {0.8});
    EXPECT_LT(p.faults.front().node_found, 0.95) << pair_plan_name(pairs);
  }
  // 2% is inside the noise: no plan finds it, and the closest is named.
  const DetectChoice none = plan_to_detect(steps, shape, profile, DetectTarget{0.02, 0.95});
  EXPECT_FALSE(none.reached);
  EXPECT_LT(none.power.faults.front().node_found, 0.95);
}

TEST(CheckPlan, PresetsDifferInDepth) {
  const auto quick = preset_defaults(CheckPreset::quick);
  const auto full = preset_defaults(CheckPreset::full);
  EXPECT_EQ(quick.pairs, PairMode::quick);
  EXPECT_EQ(full.pairs, PairMode::all);
  EXPECT_LT(quick.bw_sizes.size(), full.bw_sizes.size());
  EXPECT_LT(quick.lat_iters, full.lat_iters);
  EXPECT_LT(quick.retests, full.retests);
}

// An HGX profile's all-reduce floor: NCCL at 1 GiB and above.
AllReduceLimits nccl_floor_at_1g() {
  AllReduceLimits limits;
  limits.backend = Transport::nccl;
  limits.min_size_B = std::size_t{1} << 30;
  limits.node_busbw_GBps.failed = 400;
  return limits;
}

TEST(CheckPlan, JudgedSizesGoOnToTheFloorsSizeOverItsBackendOnly) {
  CollectiveOptions allreduce = check_allreduce_defaults();  // 1M, 16M
  ASSERT_TRUE(sweep_to_floor(allreduce, nccl_floor_at_1g()));
  EXPECT_EQ(allreduce.settings.sizes, (std::vector<std::size_t>{1 << 20, 16 << 20, std::size_t{1} << 30}));
  EXPECT_EQ(allreduce.floor_sizes, (std::vector<std::size_t>{std::size_t{1} << 30}));
  EXPECT_EQ(allreduce.floor_backend, Transport::nccl);
  // A sweep already at the floor's size, or a profile without an all-reduce floor (cpu, generic): as given.
  CollectiveOptions reaching = check_allreduce_defaults();
  reaching.settings.sizes.push_back(std::size_t{2} << 30);
  EXPECT_FALSE(sweep_to_floor(reaching, nccl_floor_at_1g()));
  EXPECT_TRUE(reaching.floor_sizes.empty());
  CollectiveOptions no_floor = check_allreduce_defaults();
  EXPECT_FALSE(sweep_to_floor(no_floor, AllReduceLimits{}));
  EXPECT_EQ(no_floor.settings.sizes, check_allreduce_defaults().settings.sizes);
}

TEST(CheckPlan, ThePlanSaysWhatTheFloorJudgesAndWhatReachingItCosts) {
  CheckSteps steps;
  LaunchShape shape;
  shape.hosts = 2;
  shape.ranks = 16;
  shape.placements = 3;
  const CostModel ndr{40, 40};
  // Below the floor's size: recorded, not judged by it, and what judged would add.
  const std::string below = floor_plan_text(steps, shape, ndr, nccl_floor_at_1g());
  EXPECT_NE(below.find("stops at 16M, below the 1G the profile's nccl all-reduce floor is written for: recorded, "
                       "not judged by it (--allreduce-sizes judged adds 1G, about "),
            std::string::npos)
      << below;
  CheckSteps judged = steps;
  sweep_to_floor(judged.allreduce, nccl_floor_at_1g());
  const double added_s = estimate_seconds(judged, shape, ndr) - estimate_seconds(steps, shape, ndr);
  EXPECT_GT(added_s, 0);
  EXPECT_NE(below.find("about " + duration_text(added_s) + " more"), std::string::npos) << below << " " << added_s;
  EXPECT_EQ(floor_plan_text(judged, shape, ndr, nccl_floor_at_1g()),
            "all-reduce: 1G added to the sweep for the profile's nccl all-reduce floor (run over nccl only)");
  // Nothing to say without the step or without a floor.
  CheckSteps off = steps;
  off.collectives = false;
  EXPECT_EQ(floor_plan_text(off, shape, ndr, nccl_floor_at_1g()), "");
  EXPECT_EQ(floor_plan_text(steps, shape, ndr, AllReduceLimits{}), "");
}

// $COLUMNS says how wide the table may be; without it and without a terminal (a test's stdout is
// a pipe or a file) there is no width to fit, and every column is kept.
TEST(TerminalWidth, ColumnsWhereSetElseNoneWithoutATerminal) {
  const char* saved = std::getenv("COLUMNS");
  const std::string kept = saved ? saved : "";
  ::setenv("COLUMNS", "90", 1);
  EXPECT_EQ(terminal_width(), 90u);
  for (const char* bad : {"abc", "90x", "10", "100000", ""}) {
    ::setenv("COLUMNS", bad, 1);
    if (::isatty(STDOUT_FILENO) != 1) {
      EXPECT_FALSE(terminal_width()) << bad;
    }
  }
  ::unsetenv("COLUMNS");
  if (::isatty(STDOUT_FILENO) != 1) {
    EXPECT_FALSE(terminal_width());
  }
  if (saved) ::setenv("COLUMNS", kept.c_str(), 1);
}

TEST(Duration, ParsesUnitsAndRefusesNonsense) {
  EXPECT_DOUBLE_EQ(parse_duration("90"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("90s"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("15m"), 900);
  EXPECT_DOUBLE_EQ(parse_duration("2h"), 7200);
  EXPECT_DOUBLE_EQ(parse_duration("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("1.5m"), 90);
  for (const char* bad : {"", "abc", "5x", "-3m", "0", "m"})
    EXPECT_THROW(parse_duration(bad), std::invalid_argument) << bad;
  // What stod would take is not a time, and every part of a compound needs its unit.
  for (const char* bad : {"1h30", "nan", "inf", "1e3s", "+5s", " 5s", "0x10s", ".s", "1e308h", "9999999999h", "400d"})
    EXPECT_THROW(parse_duration(bad), std::invalid_argument) << bad;
  EXPECT_DOUBLE_EQ(parse_duration("1d2h3m4s"), 86400 + 7200 + 180 + 4);
  EXPECT_DOUBLE_EQ(parse_duration("366d"), kMaxDurationS);
  // The one format of a duration printed: seconds under two minutes, then minutes, then hours; a
  // zero part left out.
  EXPECT_EQ(duration_text(0.25), "0.25 s");
  EXPECT_EQ(duration_text(45), "45 s");
  EXPECT_EQ(duration_text(Seconds(60)), "60 s");
  EXPECT_EQ(duration_text(120), "2m");
  EXPECT_EQ(duration_text(245), "4m 5s");
  EXPECT_EQ(duration_text(5400), "1h 30m");
  EXPECT_EQ(duration_text(7200), "2h");
}

// ---- Re-test decisions: rank 0's pure step between the network pass and the all-reduce.

std::vector<std::optional<std::string>> payloads_of(const std::vector<ProbeResult>& probes, int ranks) {
  // Every result to the rank that measured it (its first rank), as the ranks send them.
  std::vector<std::vector<ProbeResult>> by_rank(static_cast<std::size_t>(ranks));
  for (const auto& p : probes)
    if (!p.scope.ranks.empty()) by_rank.at(static_cast<std::size_t>(p.scope.ranks[0])).push_back(p);
  std::vector<std::optional<std::string>> out;
  for (const auto& mine : by_rank) out.push_back(nlohmann::json(mine).dump());
  return out;
}

testing::FleetShape small_fleet() {
  testing::FleetShape f;
  f.hosts = 8;
  f.gpus = f.rails = 1;
  f.rounds = 7;
  return f;
}

std::vector<std::string> rank_hosts(const testing::FleetShape& f) {
  std::vector<std::string> hosts;
  for (int i = 0; i < f.hosts; ++i) hosts.push_back(testing::host_name(i));
  return hosts;
}

TEST(Retests, ACleanFleetNeedsNone) {
  const auto f = small_fleet();
  const auto run = testing::synthetic_run(f);
  const RetestDecision d =
      decide_retests(payloads_of(run.probes, f.hosts), rank_hosts(f), generic_profile(), 1, 2, true);
  EXPECT_EQ(d.suspects, 0u);
  EXPECT_TRUE(d.rounds.empty());
}

TEST(Retests, ABaselineJudgesSuspectsAsTheFinalVerdictDoes) {
  // A uniform fleet at half its saved baseline: nothing stands out against
  // the run's own median, but every pair is under the baseline's.
  const auto f = small_fleet();
  const auto run = testing::synthetic_run(f);
  const std::unordered_map<std::string, double> baseline{{"net.verbs.write_bw@8388608:bw_avg_GBps", 2 * f.bw_GBps}};
  const auto payloads = payloads_of(run.probes, f.hosts);
  EXPECT_EQ(decide_retests(payloads, rank_hosts(f), generic_profile(), 1, 2, true).suspects, 0u);
  const RetestDecision d = decide_retests(payloads, rank_hosts(f), generic_profile(), 1, 2, true, &baseline);
  EXPECT_EQ(d.suspects, 28u);  // 8 hosts, 7 rounds: every pair
  EXPECT_FALSE(d.rounds.empty());
}

TEST(Retests, ASlowPairIsMeasuredAgainAndItsHostsMeetKnownGoodPeers) {
  const auto f = small_fleet();
  const auto run = testing::synthetic_run(f, [](int a, int b, int, testing::PairShape& s) {
    if ((a == 1 && b == 2) || (a == 2 && b == 1)) s.bw_GBps *= 0.5;
  });
  const RetestDecision d =
      decide_retests(payloads_of(run.probes, f.hosts), rank_hosts(f), generic_profile(), 1, 2, true);
  EXPECT_EQ(d.suspects, 1u);
  ASSERT_FALSE(d.rounds.empty());
  // The pair itself first, then each of its hosts with two known-good peers, never with each other.
  EXPECT_EQ(d.rounds[0].size(), 1u);
  EXPECT_EQ(d.rounds[0][0], (std::pair<std::string, std::string>{"node01", "node02"}));
  int repairs = 0;
  for (std::size_t k = 1; k < d.rounds.size(); ++k)
    for (const auto& [a, b] : d.rounds[k]) {
      EXPECT_FALSE((a == "node01" || a == "node02") && (b == "node01" || b == "node02"));
      ++repairs;
    }
  EXPECT_EQ(repairs, 4);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("node01-node02"), std::string::npos) << d.notes[0];
}

TEST(Retests, ANodeBadWithSixGoodPeersIsConfirmedNotReTestedPairByPair) {
  // 16 hosts: node05 slow with every peer. Over 6 rounds it is bad with 6 good peers: confirmed,
  // its pairs are not re-tested (nothing is). Over 4 rounds, 4 peers (every peer it has in a group
  // of five): its pairs are re-tested.
  testing::FleetShape f;
  f.hosts = 16;
  f.gpus = f.rails = 1;
  const auto slow_node = [](int a, int b, int, testing::PairShape& s) {
    if (a == 5 || b == 5) s.bw_GBps *= 0.5;
  };
  f.rounds = 6;
  auto run = testing::synthetic_run(f, slow_node);
  const RetestDecision confirmed =
      decide_retests(payloads_of(run.probes, f.hosts), rank_hosts(f), generic_profile(), 1, 2, true);
  EXPECT_EQ(confirmed.suspects, 0u);
  EXPECT_TRUE(confirmed.rounds.empty());
  f.rounds = 4;
  run = testing::synthetic_run(f, slow_node);
  const RetestDecision retested =
      decide_retests(payloads_of(run.probes, f.hosts), rank_hosts(f), generic_profile(), 1, 2, true);
  EXPECT_EQ(retested.suspects, 4u);
  EXPECT_FALSE(retested.rounds.empty());
}

TEST(Retests, AGoodRetestClearsThePair) {
  const auto f = small_fleet();
  auto run = testing::synthetic_run(f, [](int a, int b, int, testing::PairShape& s) {
    if ((a == 1 && b == 2) || (a == 2 && b == 1)) s.bw_GBps *= 0.5;
  });
  // The re-test of node01-node02 came back at fleet speed.
  for (const auto& p : std::vector<ProbeResult>(run.probes)) {
    if (p.scope.hosts.size() == 2 && p.id == "net.verbs.write_bw" &&
        ((p.scope.hosts[0] == "node01" && p.scope.hosts[1] == "node02") ||
         (p.scope.hosts[0] == "node02" && p.scope.hosts[1] == "node01"))) {
      ProbeResult again = p;
      again.metrics["bw_avg_GBps"] = Metric::of(f.bw_GBps);
      again.params["retest"] = 1;
      run.probes.push_back(again);
    }
  }
  const RetestDecision d =
      decide_retests(payloads_of(run.probes, f.hosts), rank_hosts(f), generic_profile(), 2, 2, true);
  EXPECT_EQ(d.suspects, 0u);
  EXPECT_TRUE(d.rounds.empty());
}

TEST(Retests, HostsOfSilentRanksAreLeftOutAndNoPassBeyondTheLimit) {
  const auto f = small_fleet();
  const auto run = testing::synthetic_run(f, [](int a, int b, int, testing::PairShape& s) {
    if ((a == 1 && b == 2) || (a == 2 && b == 1)) s.bw_GBps *= 0.5;
  });
  auto payloads = payloads_of(run.probes, f.hosts);
  payloads[2].reset();  // node02's rank did not check in
  RetestDecision d = decide_retests(payloads, rank_hosts(f), generic_profile(), 1, 2, true);
  EXPECT_TRUE(d.rounds.empty());
  d = decide_retests(payloads_of(run.probes, f.hosts), rank_hosts(f), generic_profile(), 3, 2, false);
  EXPECT_TRUE(d.rounds.empty());
  EXPECT_EQ(d.suspects, 1u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("still suspect after 2 re-test pass"), std::string::npos) << d.notes[0];
}

}  // namespace
}  // namespace ibgpu
