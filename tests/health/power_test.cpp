// The power of a plan: the fleet limit the rule would set at a noise, the chance to find a node or
// a rail slowed by a fraction, and the healthy nodes flagged by noise alone. The simulator checks
// the figures against seeded fleets (tests/app/fleet_sim_test.cpp, ci/bench/plan_power.sh).
#include "health/power.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ibgpu {
namespace {

PlanShape fleet(int hosts, int rails, int peers, int retests = 1) {
  PlanShape p;
  p.hosts = hosts;
  p.rails = rails;
  p.peers = peers;
  p.retest_passes = retests;
  return p;
}

TEST(PlanPower, TheLimitIsTheProfilesFractionOnAQuietFleetAndTheNoisesFenceOnANoisyOne) {
  // Quiet: 0.85 of the good quartile, which lies 0.674 sigmas over a healthy pair's median.
  const PlanPower quiet = plan_power(fleet(1024, 8, 64), FleetRules{}, NoiseModel{0.01}, {});
  EXPECT_NEAR(quiet.limit, 0.85 * std::exp(0.674 * 0.01), 0.005);
  // Noisy: Tukey's fence on the lower half, about 2.7 sigmas under the median.
  const PlanPower noisy = plan_power(fleet(1024, 8, 64), FleetRules{}, NoiseModel{0.1}, {});
  EXPECT_NEAR(noisy.limit, std::exp(-2.7 * 0.1), 0.02);
  // However noisy, never under bw_fraction_widest of the reference.
  const PlanPower widest = plan_power(fleet(1024, 8, 64), FleetRules{}, NoiseModel{0.5}, {});
  EXPECT_GT(widest.limit, 0.5);
}

TEST(PlanPower, ALargerSlowdownIsFoundMoreOftenAndHalfSpeedAlways) {
  const PlanPower p = plan_power(fleet(1024, 8, 16), FleetRules{}, NoiseModel{0.05}, {0.9, 0.85, 0.8, 0.5});
  ASSERT_EQ(p.faults.size(), 4u);
  for (std::size_t i = 1; i < p.faults.size(); ++i) {
    EXPECT_GE(p.faults[i].pair_bad, p.faults[i - 1].pair_bad);
    EXPECT_GE(p.faults[i].node_found, p.faults[i - 1].node_found);
  }
  EXPECT_LT(p.faults[0].node_found, 0.2);  // 10% is inside the noise at 5%
  EXPECT_GT(p.faults[3].node_found, 0.999);
  EXPECT_GT(p.faults[3].node_blamed, 0.999);  // every rail a culprit: the node itself
  EXPECT_GT(p.faults[3].rail_found, 0.999);
  // A node slowed on every rail is found where one rail alone may not be.
  EXPECT_GE(p.faults[1].node_found, p.faults[1].rail_found);
}

TEST(PlanPower, OneQuickRoundOnManyRailsFlagsHealthyNodesWherePeerPlansFlagNone) {
  // One peer per host: the first pass cannot widen its limit (no noise to read), so a fifth of the
  // healthy pairs are suspects; the re-tests clear most, not all.
  const PlanPower quick = plan_power(fleet(1024, 8, 1), FleetRules{}, NoiseModel{0.1}, {});
  const PlanPower peers = plan_power(fleet(1024, 8, 16), FleetRules{}, NoiseModel{0.1}, {});
  EXPECT_GT(quick.expected_flagged, 1.0);
  EXPECT_LT(peers.expected_flagged, 0.1);
  EXPECT_NEAR(quick.expected_flagged, quick.healthy_node_flagged * 1024, 1e-9);
}

TEST(PlanPower, WithoutReTestsOneQuickRoundBlamesNoOne) {
  // One peer each and no re-test: no unit is bad with two peers.
  const PlanPower p = plan_power(fleet(256, 4, 1, 0), FleetRules{}, NoiseModel{0.05}, {0.5});
  EXPECT_EQ(p.faults.front().node_found, 0.0);
  EXPECT_EQ(p.expected_flagged, 0.0);
}

TEST(PlanPower, OtherSlowedNodesWidenTheLimitTheFaultIsJudgedBy) {
  // Four peers at noise 0.1: a node slowed 20% sits at the limit. Among 10% of the fleet slowed
  // alike, their pairs widen the shortfalls, the limit falls and the node is found less often; the
  // fleet's own figures (the limit by noise alone, its healthy flags) stay as they were.
  PlanShape alone = fleet(256, 4, 5);
  PlanShape among = alone;
  among.slowed_share = 0.1;
  const PlanPower a = plan_power(alone, FleetRules{}, NoiseModel{0.1}, {0.8});
  const PlanPower b = plan_power(among, FleetRules{}, NoiseModel{0.1}, {0.8});
  EXPECT_NEAR(a.faults.front().limit, a.limit, 1e-12);                        // alone: the fleet's limit
  EXPECT_LT(b.faults.front().limit, a.faults.front().limit - 0.01);           // 0.783 against 0.803
  EXPECT_LT(b.faults.front().node_found, a.faults.front().node_found - 0.1);  // 0.17 against 0.36
  EXPECT_EQ(b.limit, a.limit);
  EXPECT_EQ(b.expected_flagged, a.expected_flagged);
  // The healthy nodes among them: 90% of the fleet, at the lower limit.
  EXPECT_LE(b.faults.front().expected_flagged, a.expected_flagged * 0.9 + 1e-12);
}

TEST(PlanPower, AFewHostsAreStatedWhatTheirFewReTestsCanFind) {
  // Four hosts of four rails, every pair, at the profiles' noise: most modelled fleets have no
  // suspect, so the re-tests' partners are the lone slowed host's (every cleared host). Averaging
  // each fleet's share of suspects instead lost the chances of the fleets without one, and stated
  // 0.87 for a node slowed 10% (the simulator finds 0.08) and 0.2 healthy nodes flagged a run.
  const PlanPower p = plan_power(fleet(4, 4, 3), FleetRules{}, NoiseModel{0.05}, {0.9, 0.5});
  EXPECT_LT(p.faults[0].node_found, 0.3);
  EXPECT_GT(p.faults[1].node_found, 0.999);
  EXPECT_LT(p.expected_flagged, 0.01);
}

TEST(PlanPower, ThePlanLineSaysEachSlowdownAndTheExpectedFlags) {
  const PlanPower p = plan_power(fleet(64, 8, 16), FleetRules{}, NoiseModel{0.05}, {0.9, 0.8, 0.5});
  const std::string text = power_text(p);
  EXPECT_EQ(text.rfind("at noise 0.050, finds a node slowed 10%/20%/50% with chance ", 0), 0u) << text;
  EXPECT_NE(text.find(", one rail "), std::string::npos) << text;
  EXPECT_NE(text.find(" healthy nodes flagged by noise alone"), std::string::npos) << text;
}

TEST(PlanPower, EverySlowedHostOfTheShareTakesPartInTheLimit) {
  // One quick round on 256 hosts of 4 rails at noise 0.1, one to eight of them slowed 20%: each
  // one more lowers the good quartile and widens the shortfalls, so the limit the fault is judged
  // by falls with each (0.8618 with one, 0.8567 with eight). A host was once slowed where its place
  // in the fleet fell under the share: 2 and 3 of 256 were both 2 (the same limit), and 5 were 4.
  double last = 1;
  for (int slowed = 1; slowed <= 8; ++slowed) {
    PlanShape plan = fleet(256, 4, 1);
    plan.slowed_share = slowed / 256.0;
    const double limit = plan_power(plan, FleetRules{}, NoiseModel{0.1}, {0.8}).faults.front().limit;
    EXPECT_LT(limit, last) << slowed << " slowed";
    last = limit;
  }
  EXPECT_NEAR(last, 0.857, 0.003);
}

TEST(PlanPower, TheModelledFleetsAreThePlansOwnPairs) {
  // Given as the ring of offsets the model lays out by itself, the pairs state the same figures;
  // half of them (each host meeting 8 peers) are another fleet, and another limit.
  PlanShape ring = fleet(256, 4, 16), half = ring;
  for (int d = 1; d <= 8; ++d)
    for (int h = 0; h < 256; ++h) (d <= 4 ? half : ring).pairs.emplace_back(h, (h + d) % 256);
  ring.pairs.insert(ring.pairs.begin(), half.pairs.begin(), half.pairs.end());
  const PlanPower by_itself = plan_power(fleet(256, 4, 16), FleetRules{}, NoiseModel{0.1}, {0.75});
  const PlanPower given = plan_power(ring, FleetRules{}, NoiseModel{0.1}, {0.75});
  EXPECT_EQ(given.limit, by_itself.limit);
  EXPECT_EQ(given.faults.front().node_found, by_itself.faults.front().node_found);
  EXPECT_NE(plan_power(half, FleetRules{}, NoiseModel{0.1}, {0.75}).limit, by_itself.limit);
  // A pair past the modelled hosts is the caller's mistake, not a fleet.
  PlanShape beyond = fleet(256, 4, 16);
  beyond.pairs = {{0, 256}};
  EXPECT_THROW(plan_power(beyond, FleetRules{}, NoiseModel{0.1}, {0.75}), std::invalid_argument);
}

TEST(PlanPower, ANodeItsConfirmedRailsBlameIsNotReTested) {
  // Seventeen peers, 4 rails, noise 0.1, 5 of 256 hosts slowed 25%: a rail is bad with most of its
  // peers (confirmed by six or more) 0.87 of the time, so most slowed nodes have three rails or four
  // confirmed, are blamed as nodes, and are not re-tested (health/judge.h retest_candidates); then
  // nothing measures their pairs again. Re-tested whenever a rail of it was a suspect, as the model
  // once had it, the node lost pairs of its confirmed rails and was stated 0.86; 40 seeded runs of
  // the simulator find 177 of 200.
  PlanShape plan = fleet(256, 4, 17);
  plan.slowed_share = 5 / 256.0;
  const PlanPower p = plan_power(plan, FleetRules{}, NoiseModel{0.1, 0.001, 0.5}, {0.75});
  EXPECT_GT(p.faults.front().node_found, 0.88);
  EXPECT_GT(p.faults.front().node_blamed, 0.85);
}

}  // namespace
}  // namespace ibgpu
