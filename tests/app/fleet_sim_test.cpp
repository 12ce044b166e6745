#include "app/fleet_sim.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cluster/rank_pairs.h"

namespace ibgpu {
namespace {

FleetModel small_fleet(std::uint64_t seed) {
  FleetModel m;
  m.hosts = 64;
  m.rails = 4;
  m.hosts_per_leaf = 8;
  m.uplinks_per_leaf = 4;
  m.noise_sigma = 0.1;
  m.transient_rate = 0.01;
  m.seed = seed;
  return m;
}

FaultCounts some_of_each() {
  FaultCounts c;
  c.slow_nodes = 2;
  c.dead_nodes = 1;
  c.bad_links = 3;
  c.slow_rails = 1;
  c.bad_uplinks = 1;
  return c;
}

SimSettings plan_of(PairPlan pairs) {
  SimSettings s;
  s.steps = default_sim_steps();
  s.steps.net.pairs = pairs;
  return s;
}

TEST(FleetFaults, DrawnAsAskedDistinctAndTheSameForTheSameSeed) {
  const FleetModel m = small_fleet(3);
  FaultCounts c = some_of_each();
  c.bad_batch = 4;
  c.dead_leaves = 1;
  const FleetFaults f = draw_faults(m, c);
  EXPECT_EQ(f.slow_nodes.size(), 2u);
  EXPECT_EQ(f.dead_nodes.size(), 1u);
  EXPECT_EQ(f.batch.size(), 4u);
  EXPECT_EQ(*f.batch.rbegin() - *f.batch.begin(), 3);  // consecutive
  EXPECT_EQ(f.bad_links.size(), 3u);
  EXPECT_EQ(f.bad_uplinks.size(), 1u);
  EXPECT_EQ(f.dead_leaves.size(), 1u);
  for (const int h : f.slow_nodes) EXPECT_FALSE(f.dead_nodes.count(h) || f.batch.count(h));
  for (const auto& [h, r] : f.bad_links) EXPECT_FALSE(f.node_fault(h));
  const FleetFaults again = draw_faults(m, c);
  EXPECT_EQ(again.slow_nodes, f.slow_nodes);
  EXPECT_EQ(again.bad_links, f.bad_links);
  EXPECT_NE(draw_faults(small_fleet(4), c).bad_links, f.bad_links);
  c.slow_nodes = 100;
  EXPECT_THROW(draw_faults(m, c), std::invalid_argument);
}

TEST(FleetModel, NoiseIsLognormalAroundTheRateAndFaultsSlowOrSilenceThePair) {
  FleetModel m = small_fleet(1);
  m.transient_rate = 0;
  FleetFaults f;
  double sum_log = 0, sum_sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double v = *simulated_bandwidth(m, f, 0, 1, 0, static_cast<std::uint64_t>(i));
    sum_log += std::log(v / m.bw_GBps);
    sum_sq += std::pow(std::log(v / m.bw_GBps), 2);
  }
  EXPECT_NEAR(sum_log / n, 0, 0.005);
  EXPECT_NEAR(std::sqrt(sum_sq / n), 0.1, 0.005);
  EXPECT_EQ(simulated_bandwidth(m, f, 0, 1, 0, 7), simulated_bandwidth(m, f, 0, 1, 0, 7));

  m.noise_sigma = 0;
  f.dead_nodes = {5};
  f.bad_links = {{2, 1}};
  f.bad_uplinks = {Uplink{0, 0, 3}};  // rail 0, leaf 0 (hosts 0-7), towards destinations 3, 7, 11, ...
  EXPECT_FALSE(simulated_bandwidth(m, f, 5, 9, 2, 0));
  EXPECT_DOUBLE_EQ(*simulated_bandwidth(m, f, 2, 9, 1, 0), m.bw_GBps * m.slow_factor);
  EXPECT_DOUBLE_EQ(*simulated_bandwidth(m, f, 2, 9, 0, 0), m.bw_GBps);
  EXPECT_DOUBLE_EQ(*simulated_bandwidth(m, f, 1, 11, 0, 0), m.bw_GBps * m.slow_factor);
  EXPECT_DOUBLE_EQ(*simulated_bandwidth(m, f, 1, 12, 0, 0), m.bw_GBps);  // another uplink
  EXPECT_DOUBLE_EQ(*simulated_bandwidth(m, f, 1, 3, 0, 0), m.bw_GBps);   // within the leaf
  EXPECT_DOUBLE_EQ(*simulated_bandwidth(m, f, 1, 11, 1, 0), m.bw_GBps);  // another rail
}

TEST(FleetSimulation, AHealthyFleetIsJudgedHealthyThroughTheNoise) {
  for (const std::uint64_t seed : {1, 2, 3}) {
    const FleetModel m = small_fleet(seed);
    const SimOutcome r = simulate(m, FleetFaults{}, plan_of(PairPlan{PairMode::peers, 8, {}, false}));
    ASSERT_TRUE(r.judged);
    EXPECT_EQ(r.network_rounds, 9);                      // 8 peers, and a leaf-mate (the judge knows the leaves)
    EXPECT_GT(r.measurements, std::size_t{8 * 32 * 4});  // the rounds' pairs on every rail, then re-tests
    // Noise may leave a link (a pair re-tested low by as much again) and rarely a rail blamed: the
    // judge's fleet rule at 0.85 x the median sits 1.6 sigma under it. No node is blamed or drained.
    EXPECT_EQ(r.node.blamed, 0) << "seed " << seed;
    EXPECT_EQ(r.healthy_drained, 0) << "seed " << seed;
    EXPECT_EQ(r.leaf_switch.blamed + r.uplink.blamed + r.paths, 0) << "seed " << seed;
    EXPECT_GT(r.retest_rounds, 0) << "noise at sigma 0.1 makes suspects: re-tests clear them";
  }
}

// The judge sees what rank 0 of a real run would: every rank's results serialised as run_round
// sends them and read back by assemble, a re-test of a pair and a dead end included.
TEST(FleetSimulation, TheResultsReachTheJudgeThroughRankZerosOwnAssembly) {
  const FleetModel m = small_fleet(1);
  const FleetFaults f = draw_faults(m, some_of_each());
  const SimOutcome r = simulate(m, f, plan_of(PairPlan{PairMode::peers, 8, {}, false}));
  ASSERT_TRUE(r.judged);
  ASSERT_GT(r.retest_rounds, 0);
  EXPECT_EQ(r.assembled, r.measurements) << "a result lost or made up between the ranks and the judge";
  EXPECT_GT(r.rank0_cpu_s, 0.0);
  EXPECT_LE(r.rank0_cpu_s, r.cpu_s);
}

// The goal at small size: every node and rail fault found, no fault-free node drained or
// degraded, with 8 peers and the re-tests (and with every pair).
TEST(FleetSimulation, PeerPlansFindEveryNodeAndRailFaultWithoutFalseDrains) {
  for (const std::uint64_t seed : {1, 2, 3}) {
    const FleetModel m = small_fleet(seed);
    const FleetFaults f = draw_faults(m, some_of_each());
    for (const PairPlan& pairs : {PairPlan{PairMode::peers, 8, {}, false}, PairPlan{}}) {
      const SimOutcome r = simulate(m, f, plan_of(pairs));
      const std::string what = r.plan + " seed " + std::to_string(seed);
      ASSERT_TRUE(r.judged) << what;
      EXPECT_EQ(r.node.injected, 3) << what;
      EXPECT_EQ(r.node.found, r.node.injected) << what;
      EXPECT_EQ(r.node.correct, r.node.blamed) << what;
      EXPECT_EQ(r.rail.injected, 4) << what;
      EXPECT_EQ(r.rail.found, r.rail.injected) << what;
      EXPECT_EQ(r.healthy_drained, 0) << what;
      EXPECT_GT(r.simulated_s, 0);
    }
  }
}

// The stated power (health/power.h) against what the verdicts found, over seeded fleets where the
// slowdown sits at the edge of the noise: neither always nor never found. 10% at noise 0.05 (the
// profiles' default), and 20% at 0.1 on a plan of four peers, where the other slowed nodes' pairs
// widen the run's limit (stated as the fleet's alone, it was 0.49 against 0.28 found here). 25% at
// 0.1 on sixteen peers, where a rail that goes unconfirmed sends its node's pairs to re-test on
// every rail, and its confirmed rails lose pairs with it (with the rails taken apart, it was stated
// 0.99), unless its confirmed rails blame the node, which is then not re-tested (0.90 stated, 85 of
// 100 found here). The full table at 256 to 4,096 nodes is ci/bench/plan_power.sh's.
TEST(FleetSimulation, TheStatedPowerIsTheRateTheVerdictsFind) {
  struct Case {
    PairPlan pairs;
    double noise, slow, within;
  };
  const Case cases[] = {{PairPlan{PairMode::quick, 0, {}, false}, 0.05, 0.9, 0.1},
                        {PairPlan{PairMode::peers, 4, {}, false}, 0.05, 0.9, 0.1},
                        {PairPlan{PairMode::peers, 4, {}, false}, 0.1, 0.8, 0.1},
                        {PairPlan{PairMode::peers, 16, {}, false}, 0.1, 0.75, 0.06}};
  for (const Case& k : cases) {
    int found = 0, injected = 0;
    double stated = 0;
    constexpr int kSeeds = 20;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      FleetModel m;
      m.hosts = 256;
      m.rails = 4;
      m.noise_sigma = k.noise;
      m.slow_factor = k.slow;
      m.seed = seed;
      FaultCounts c;
      c.slow_nodes = 5;
      const SimOutcome r = simulate(m, draw_faults(m, c), plan_of(k.pairs));
      ASSERT_TRUE(r.judged);
      found += r.nodes_flagged;
      injected += r.nodes_slowed;
      stated += r.power.faults.front().node_found / kSeeds;
    }
    const double observed = static_cast<double>(found) / injected;
    EXPECT_NEAR(observed, stated, k.within)
        << pair_plan_name(k.pairs) << " at noise " << k.noise << ": " << found << " of " << injected;
  }
}

TEST(FleetSimulation, EveryKindOfFaultAtOnceIsFoundByEightPeers) {
  // Slow, dead and a batch of nodes; slow ports and cables; a bad uplink; a leaf down (one rail of
  // its 16 nodes dead, blamed as that rail).
  for (const std::uint64_t seed : {1, 2, 3}) {
    FleetModel m = small_fleet(seed);
    m.hosts = 128;
    m.hosts_per_leaf = 16;
    m.uplinks_per_leaf = 8;
    FaultCounts c = some_of_each();
    c.bad_batch = 4;
    c.dead_leaves = 1;
    const FleetFaults f = draw_faults(m, c);
    const SimOutcome r = simulate(m, f, plan_of(PairPlan{PairMode::peers, 8, {}, false}));
    const std::string what = "seed " + std::to_string(seed);
    ASSERT_TRUE(r.judged) << what;
    EXPECT_EQ(r.node.found, r.node.injected) << what;
    EXPECT_EQ(r.node.correct, r.node.blamed) << what;
    EXPECT_GE(r.rail.injected, 4) << what;  // the leaf's rails are the switch's (the topology is known)
    EXPECT_EQ(r.rail.found, r.rail.injected) << what;
    EXPECT_EQ(r.leaf_switch.injected, 1) << what;
    EXPECT_EQ(r.leaf_switch.found, 1) << what;
    EXPECT_EQ(r.leaf_switch.correct, r.leaf_switch.blamed) << what;
    EXPECT_EQ(r.uplink.found, r.uplink.injected) << what;
    EXPECT_EQ(r.uplink.correct, r.uplink.blamed) << what;
    EXPECT_EQ(r.rail.correct, r.rail.blamed) << what;
    EXPECT_EQ(r.healthy_drained, 0) << what;
    EXPECT_EQ(r.healthy_degraded, 0) << what;
  }
}

TEST(FleetSimulation, ABadBatchOfAThirdOfTheFleetIsNodesNotSwitchesUplinksOrRails) {
  // 64 consecutive slow nodes of 256 (8 rails, 32 per leaf) fill two leaves: each slow host is bad
  // on every rail, though a few of its rails read well by chance at this noise. They are nodes (but
  // for one in 20 at most, whose rails read well half the time: then its bad rails), and no leaf,
  // uplink or path.
  for (const std::uint64_t seed : {1, 2, 3}) {
    FleetModel m = small_fleet(seed);
    m.hosts = 256;
    m.rails = 8;
    m.hosts_per_leaf = 32;
    m.uplinks_per_leaf = 16;
    m.noise_sigma = 0.15;
    m.transient_rate = 0.001;
    FaultCounts c;
    c.bad_batch = 64;
    const FleetFaults f = draw_faults(m, c);
    for (const int peers : {8, 16}) {
      const SimOutcome r = simulate(m, f, plan_of(PairPlan{PairMode::peers, peers, {}, false}));
      const std::string what = r.plan + " seed " + std::to_string(seed);
      ASSERT_TRUE(r.judged) << what;
      EXPECT_EQ(r.node.injected, 64) << what;
      EXPECT_GE(r.node.found * 20, r.node.injected * 19) << what;
      EXPECT_EQ(r.node.correct, r.node.blamed) << what;
      EXPECT_EQ(r.leaf_switch.blamed + r.uplink.blamed + r.paths, 0) << what;
      EXPECT_EQ(r.rail.correct, r.rail.blamed) << what;
      EXPECT_EQ(r.healthy_drained, 0) << what;
    }
  }
}

TEST(FleetSimulation, ABadUplinkIsTheLeafsUplinkAndDrainsNoNode) {
  // 64 nodes, 8 per leaf: one uplink of one leaf (a rail's) slow. With the topology the judge names
  // that leaf's uplink; without, links (or a path) and no node drained either way.
  for (const std::uint64_t seed : {1, 2, 3}) {
    const FleetModel m = small_fleet(seed);
    FaultCounts c;
    c.bad_uplinks = 1;
    const FleetFaults f = draw_faults(m, c);
    for (const PairPlan& pairs : {PairPlan{PairMode::peers, 8, {}, false}, PairPlan{}}) {
      SimSettings settings = plan_of(pairs);
      const SimOutcome r = simulate(m, f, settings);
      const std::string what = r.plan + " seed " + std::to_string(seed);
      ASSERT_TRUE(r.judged) << what;
      EXPECT_GT(r.uplink_pairs, 0) << what;
      EXPECT_EQ(r.uplink.injected, 1) << what;
      EXPECT_EQ(r.uplink.found, 1) << what;
      EXPECT_EQ(r.uplink.correct, r.uplink.blamed) << what;
      EXPECT_EQ(r.node.blamed, 0) << what;
      EXPECT_EQ(r.healthy_drained, 0) << what;
      EXPECT_EQ(r.healthy_degraded, 0) << what;
      settings.topology = false;
      const SimOutcome blind = simulate(m, f, settings);
      EXPECT_EQ(blind.uplink.blamed, 0) << what;
      EXPECT_EQ(blind.node.blamed, 0) << what;
      EXPECT_EQ(blind.healthy_drained, 0) << what;
    }
  }
}

TEST(FleetSimulation, ALeafDownIsTheSwitchWithTheTopologyAndItsRailsWithout) {
  for (const std::uint64_t seed : {1, 2}) {
    const FleetModel m = small_fleet(seed);
    FaultCounts c;
    c.dead_leaves = 1;
    const FleetFaults f = draw_faults(m, c);
    SimSettings settings = plan_of(PairPlan{PairMode::peers, 8, {}, false});
    const SimOutcome r = simulate(m, f, settings);
    const std::string what = "seed " + std::to_string(seed);
    EXPECT_EQ(r.leaf_switch.found, 1) << what;
    EXPECT_EQ(r.leaf_switch.blamed, 1) << what;
    EXPECT_EQ(r.rail.blamed, 0) << what;
    EXPECT_EQ(r.healthy_drained, 0) << what;
    settings.topology = false;
    const SimOutcome blind = simulate(m, f, settings);
    EXPECT_EQ(blind.rail.found, 8) << what;
    EXPECT_EQ(blind.leaf_switch.blamed, 0) << what;
  }
}

TEST(FleetSimulation, AfterOneQuickRoundReTestsWithKnownGoodNodesTellANodeFromItsPeer) {
  // One peer per node: a slow node's only pair is bad together, and without re-tests no node
  // is blamed; re-paired with known-good nodes, the slow one is.
  const FleetModel m = small_fleet(1);
  FaultCounts c;
  c.slow_nodes = 2;
  const FleetFaults f = draw_faults(m, c);
  SimSettings settings = plan_of(PairPlan{PairMode::quick, 0, {}, false});
  settings.steps.retests = 0;
  const SimOutcome alone = simulate(m, f, settings);
  ASSERT_TRUE(alone.judged);
  EXPECT_EQ(alone.network_rounds, 1);
  EXPECT_EQ(alone.retest_rounds, 0);
  EXPECT_EQ(alone.node.found, 0);
  EXPECT_GE(alone.link.blamed, 2);
  settings.steps.retests = 2;
  const SimOutcome retested = simulate(m, f, settings);
  EXPECT_GT(retested.retest_rounds, 0);
  EXPECT_EQ(retested.node.found, 2);
  EXPECT_EQ(retested.node.blamed, 2);
  EXPECT_EQ(retested.healthy_drained, 0);
}

TEST(FleetSimulation, NoiseAtScaleMakesNoLinkVerdictsAndHidesNoFault) {
  // 512 nodes x 4 rails with noise of sigma 0.15 and transients: the first pass suspects about a
  // hundred pairs, the re-tests meet a thousand new ones once. A link verdict needs a re-test that
  // reproduces a deficit beyond the noise; a pair measured once in a re-test, a transient, or
  // figures just under the limit make none. (Thirty to forty link verdicts before they did not.)
  for (const std::uint64_t seed : {1, 2, 3}) {
    FleetModel m;
    m.hosts = 512;
    m.rails = 4;
    m.noise_sigma = 0.15;
    m.seed = seed;
    FaultCounts c;
    c.slow_nodes = 5;
    c.bad_links = 10;
    c.bad_uplinks = 1;
    const FleetFaults f = draw_faults(m, c);
    const SimOutcome r = simulate(m, f, plan_of(PairPlan{PairMode::peers, 8, {}, false}));
    const std::string what = "seed " + std::to_string(seed);
    ASSERT_TRUE(r.judged) << what;
    EXPECT_LE(r.network_rounds + r.retest_rounds, 64) << what;
    EXPECT_EQ(r.node.found, 5) << what;
    EXPECT_EQ(r.node.correct, r.node.blamed) << what;
    EXPECT_EQ(r.rail.found, 10) << what;
    EXPECT_EQ(r.rail.correct, r.rail.blamed) << what;
    EXPECT_EQ(r.uplink.found, 1) << what;
    EXPECT_LE(r.link.blamed - r.link.correct, 2) << what;
    EXPECT_EQ(r.healthy_drained, 0) << what;
  }
}

TEST(FleetSimulation, TooManyMeasurementsAreCountedNotJudged) {
  const FleetModel m = small_fleet(1);
  SimSettings s = plan_of(PairPlan{});
  s.max_measurements = 100;
  const SimOutcome r = simulate(m, FleetFaults{}, s);
  EXPECT_FALSE(r.judged);
  EXPECT_EQ(r.network_rounds, 63);
  EXPECT_EQ(r.measurements, std::size_t{63 * 32 * 4});
  EXPECT_GT(r.simulated_s, 0);
}

}  // namespace
}  // namespace ibgpu
