// Localisation and re-test planning on small hand-made pair sets.
#include "health/localise.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <set>

#include "health/confidence.h"

namespace ibgpu {
namespace {

PairObservation obs(std::string_view a, std::string_view b, HealthState state, std::string_view rail = "") {
  PairObservation o;
  o.group = "net.mpi.bw@8388608:bw_avg_GBps";
  o.a = Endpoint{a, rail};
  o.b = Endpoint{b, rail};
  o.state = state;
  if (state != HealthState::healthy) o.reason = Reason{ReasonCode::NET_BW_LOW, "low", "bw_avg_GBps", 5.0, 10.0};
  return o;
}

std::map<std::string, HealthState> blamed_states(const std::vector<Blame>& blames) {
  std::map<std::string, HealthState> out;
  for (const auto& b : blames) out[entity_text(b.entity)] = b.state;
  return out;
}

constexpr auto kBadState = HealthState::failed;
constexpr auto kGoodState = HealthState::healthy;

TEST(Localise, NodeBadWithEveryGoodPeerIsTheCulprit) {
  const auto b = localise({obs("x", "a", kBadState), obs("x", "b", kBadState), obs("x", "c", kBadState),
                           obs("a", "b", kGoodState), obs("b", "c", kGoodState), obs("a", "c", kGoodState)});
  EXPECT_EQ(blamed_states(b), (std::map<std::string, HealthState>{{"node x", kBadState}}));
}

TEST(Localise, PairBadOnlyTogetherIsALink) {
  const auto b = localise(
      {obs("a", "b", kBadState), obs("a", "c", kGoodState), obs("b", "d", kGoodState), obs("c", "d", kGoodState)});
  EXPECT_EQ(blamed_states(b), (std::map<std::string, HealthState>{{"link a<->b", kBadState}}));
}

// A deficit a re-test reproduced is as sure as both measurements together (Fisher's method: two
// findings at 0.02 make 0.0035, likely); one measured once keeps its own.
TEST(Localise, ALinkConfirmedByItsRetestIsAsSureAsBothMeasurements) {
  auto sure = [](PairObservation o, double p, bool retest) {
    o.reason->confidence = Confidence{confidence_level(p), ConfidenceMethod::run_noise, p, 2.9, 0.1, 12};
    o.retest = retest;
    return o;
  };
  const auto b =
      localise({sure(obs("a", "b", kBadState), 0.02, false), obs("a", "c", kGoodState), obs("b", "d", kGoodState),
                obs("c", "d", kGoodState), sure(obs("a", "b", kBadState), 0.02, true)});
  ASSERT_EQ(blamed_states(b), (std::map<std::string, HealthState>{{"link a<->b", kBadState}}));
  const auto& c = b.front().reason.confidence;
  ASSERT_TRUE(c);
  EXPECT_EQ(c->method, ConfidenceMethod::combined);
  EXPECT_EQ(c->count, 2);
  const double half = -2 * std::log(0.02);
  EXPECT_NEAR(c->p, std::exp(-half) * (1 + half), 1e-12);
  EXPECT_EQ(c->level, ConfidenceLevel::likely);
  const auto once = localise({sure(obs("a", "b", kBadState), 0.02, false), obs("a", "c", kGoodState),
                              obs("b", "d", kGoodState), obs("c", "d", kGoodState)});
  ASSERT_EQ(once.size(), 1u);
  EXPECT_EQ(once.front().reason.confidence->method, ConfidenceMethod::run_noise);
  EXPECT_DOUBLE_EQ(once.front().reason.confidence->p, 0.02);
}

TEST(Localise, OneBadPeerOfMinorityDoesNotBlameTheNode) {
  // x is bad with 2 of 5 peers: not a majority, so two link verdicts.
  const auto b = localise({obs("x", "a", kBadState), obs("x", "b", kBadState), obs("x", "c", kGoodState),
                           obs("x", "d", kGoodState), obs("x", "e", kGoodState)});
  EXPECT_EQ(blamed_states(b),
            (std::map<std::string, HealthState>{{"link x<->a", kBadState}, {"link x<->b", kBadState}}));
}

TEST(Localise, RailSharedByTheBadPairsIsTheCulprit) {
  std::vector<PairObservation> o;
  for (const char* peer : {"a", "b", "c"}) {
    o.push_back(obs("x", peer, kBadState, "mlx5_1:1"));
    o.push_back(obs("x", peer, kGoodState, "mlx5_0:1"));
  }
  EXPECT_EQ(blamed_states(localise(o)), (std::map<std::string, HealthState>{{"hca_port x/mlx5_1:1", kBadState}}));
}

TEST(Localise, AHostBadOnMostOfItsRailsIsTheNodeAndOnAFewItsRails) {
  // x is bad on rails 0-2 of 4 (rail 3 read well): the node; y on rails 0-1 of 4: those rails.
  const std::array<const char*, 4> devices{"mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1"};
  const std::array<const char*, 4> peers{"a", "b", "c", "d"};
  std::vector<PairObservation> o;
  for (int rail = 0; rail < 4; ++rail)
    for (std::size_t p = 0; p < peers.size(); ++p) {
      o.push_back(obs("x", peers[p], rail < 3 ? kBadState : kGoodState, devices[rail]));
      o.push_back(obs("y", peers[p], rail < 2 ? kBadState : kGoodState, devices[rail]));
      for (std::size_t q = p + 1; q < peers.size(); ++q)
        o.push_back(obs(peers[p], peers[q], kGoodState, devices[rail]));
    }
  const auto b = localise(o);
  EXPECT_EQ(blamed_states(b),
            (std::map<std::string, HealthState>{
                {"node x", kBadState}, {"hca_port y/mlx5_0:1", kBadState}, {"hca_port y/mlx5_1:1", kBadState}}));
  for (const auto& blame : b) {
    if (blame.entity.id() == "x") {
      EXPECT_NE(blame.reason.message.find("node x (3 of 4 rails)"), std::string::npos) << blame.reason.message;
    }
  }
}

TEST(Localise, RetestThatPassesClearsThePairAndOneThatFailsConfirmsIt) {
  // Re-test results are more observations of the same pair.
  EXPECT_TRUE(localise({obs("a", "b", kBadState), obs("b", "a", kGoodState)}).empty());
  EXPECT_EQ(blamed_states(localise({obs("a", "b", kBadState), obs("b", "a", kBadState)})),
            (std::map<std::string, HealthState>{{"link a<->b", kBadState}}));
  // Re-pairing the suspects with known-good nodes separates the bad node.
  EXPECT_EQ(blamed_states(localise({obs("a", "b", kBadState), obs("a", "g1", kBadState), obs("a", "g2", kBadState),
                                    obs("b", "g3", kGoodState), obs("b", "g4", kGoodState)})),
            (std::map<std::string, HealthState>{{"node a", kBadState}}));
}

TEST(Localise, APairFirstMeasuredByAReTestAndDegradedOnceIsEvidenceOnItsEndsNotALink) {
  // s was suspect and met g1 and g2 in a re-test pass; s-g1 read low there, once. Noise does
  // that to about one pair in a hundred at fleet scale: no link verdict without a second look.
  auto retest = [](PairObservation o) {
    o.retest = true;
    return o;
  };
  const std::vector<PairObservation> seen{obs("s", "a", kGoodState), obs("s", "b", kGoodState),
                                          obs("g1", "a", kGoodState), obs("g2", "b", kGoodState)};
  auto with = [&](std::vector<PairObservation> more) {
    std::vector<PairObservation> o = seen;
    o.insert(o.end(), more.begin(), more.end());
    return blamed_states(localise(o));
  };
  const auto degraded = HealthState::degraded;
  EXPECT_TRUE(with({retest(obs("s", "g1", degraded)), retest(obs("s", "g2", kGoodState))}).empty());
  // Re-measured and low again by as much: confirmed, the link's.
  EXPECT_EQ(
      with({retest(obs("s", "g1", degraded)), retest(obs("g1", "s", degraded)), retest(obs("s", "g2", kGoodState))}),
      (std::map<std::string, HealthState>{{"link s<->g1", degraded}}));
  // Failed (a timeout, under the floor) needs no second look; nor a pair of the run's own plan.
  EXPECT_EQ(with({retest(obs("s", "g1", kBadState)), retest(obs("s", "g2", kGoodState))}),
            (std::map<std::string, HealthState>{{"link s<->g1", kBadState}}));
  EXPECT_EQ(with({obs("s", "g1", degraded), obs("s", "g2", kGoodState)}),
            (std::map<std::string, HealthState>{{"link s<->g1", degraded}}));
  // Unless the run re-tested and left it alone: one look, where the run had a second for its suspects.
  EXPECT_TRUE(with({obs("s", "g1", degraded), obs("s", "g2", kGoodState), retest(obs("a", "b", kGoodState))}).empty());
  // Still evidence on its ends: a suspect low with both its re-test partners and its peers is the node.
  std::vector<PairObservation> slow{obs("s", "a", degraded),          obs("s", "b", degraded),
                                    obs("a", "b", kGoodState),        retest(obs("s", "g1", degraded)),
                                    retest(obs("s", "g2", degraded)), obs("g1", "a", kGoodState),
                                    obs("g2", "b", kGoodState)};
  EXPECT_EQ(blamed_states(localise(slow)), (std::map<std::string, HealthState>{{"node s", degraded}}));
}

TEST(Localise, AReTestReproducesAShortfallFromTheReferenceBeyondTheRunsNoise) {
  // A fleet reference of 48 GB/s, the limit at 30 (widened for noise of sigma 0.15), a and b
  // measured twice (the second time by a re-test), their other peers fine.
  auto measured = [](double value, bool retest) {
    PairObservation o = obs("a", "b", HealthState::degraded);
    o.reason = Reason{ReasonCode::IB_LINK_BW_OUTLIER, "low", "bw_avg_GBps", value, 30.0};
    o.reference = 48.0;
    o.sigma = 0.15;
    o.retest = retest;
    return o;
  };
  auto twice = [&](double first, double again, double sigma) {
    std::vector<PairObservation> o{obs("a", "c", kGoodState), obs("b", "d", kGoodState), obs("c", "d", kGoodState),
                                   measured(first, false), measured(again, true)};
    o[3].sigma = o[4].sigma = sigma;
    return blamed_states(localise(o));
  };
  const std::map<std::string, HealthState> the_link{{"link a<->b", HealthState::degraded}};
  // A pair at half its peers, as noise spreads it: 0.36 and then 0.50 of the reference. Both far
  // under it; they disagree by more than the second is under the limit, which is no matter.
  EXPECT_EQ(twice(17.3, 24.0, 0.15), the_link);
  // Twice just under the limit: within the noise of a mean of two, a lower number. So is a
  // transient (0.42 of the reference) re-tested just under the limit.
  EXPECT_TRUE(twice(29.0, 29.2, 0.15).empty());
  EXPECT_TRUE(twice(20.0, 29.4, 0.15).empty());
  // On a quiet run (or with no noise known) the same two figures are a deficit.
  EXPECT_EQ(twice(29.0, 29.2, 0.01), the_link);
  EXPECT_EQ(twice(29.0, 29.2, 0), the_link);
  // A healthy re-test clears it, however noisy.
  std::vector<PairObservation> cleared{obs("a", "c", kGoodState), measured(17.3, false), obs("b", "a", kGoodState)};
  EXPECT_TRUE(localise(cleared).empty());
}

TEST(Localise, KnownGoodHostsLeaveOutEveryoneBlamed) {
  const std::vector<PairObservation> o{obs("a", "b", kBadState), obs("c", "d", kGoodState), obs("a", "c", kGoodState)};
  const auto good = known_good_hosts(o, localise(o));
  EXPECT_EQ(good, (std::vector<std::string>{"c", "d"}));
}

// Every round disjoint; returns who met whom.
std::map<std::string, std::set<std::string>> meetings(const std::vector<PairRound>& rounds) {
  std::map<std::string, std::set<std::string>> met;
  for (const auto& round : rounds) {
    std::set<std::string> busy;
    for (const auto& [x, y] : round.pairs) {
      EXPECT_TRUE(busy.insert(x).second) << x << " twice in a round";
      EXPECT_TRUE(busy.insert(y).second) << y << " twice in a round";
      met[x].insert(y);
      met[y].insert(x);
    }
  }
  return met;
}

int cleared_met(const std::set<std::string>& peers) {
  return static_cast<int>(std::count_if(peers.begin(), peers.end(), [](const std::string& p) { return p[0] == 'g'; }));
}

TEST(PlanRetests, SuspectsMeetDistinctClearedHostsSideBySide) {
  // a-b and a-c bad, nobody explains them: a, b and c are suspects.
  const std::vector<HostPair> suspects{{"a", "b"}, {"a", "c"}};
  const auto rounds = plan_retests(suspects, {"g1", "g2", "g3"}, 2);
  auto met = meetings(rounds);
  EXPECT_TRUE(met["a"].count("b") && met["a"].count("c"));  // pairs of two suspects: again
  for (const char* s : {"a", "b", "c"}) EXPECT_EQ(cleared_met(met[s]), 2) << s;
  // a is busiest: two pairs again and two partners, so four rounds; the others fit beside it.
  EXPECT_EQ(rounds.size(), 4u);
  // A cleared end explains nothing on its own: a pair with one is not measured again.
  met = meetings(plan_retests({{"a", "g1"}}, {"g1", "g2", "g3"}, 2));
  EXPECT_EQ(met["a"], (std::set<std::string>{"g2", "g3"}));
}

TEST(PlanRetests, KSuspectsTakeCeilKOverThePairsThatFitAndNeverMeetEachOther) {
  // Suspects bad only with cleared hosts (each a culprit with cleared peers), N hosts in all.
  for (const std::size_t n : {4u, 6u, 8u, 12u, 16u})
    for (std::size_t k = 1; k < n; ++k)
      for (const int p : {1, 2}) {
        std::vector<HostPair> pairs;
        std::vector<std::string> cleared;
        for (std::size_t g = 0; g < n - k; ++g) cleared.push_back("g" + std::to_string(g));
        for (std::size_t s = 0; s < k; ++s) pairs.emplace_back("s" + std::to_string(s), cleared[s % cleared.size()]);
        const auto rounds = plan_retests(pairs, cleared, p);
        const std::size_t partners = std::min<std::size_t>(static_cast<std::size_t>(p), cleared.size());
        const std::size_t fit = std::min(k, cleared.size());  // pairs that fit in one round
        const std::size_t expected =
            std::min<std::size_t>((partners * k + fit - 1) / fit, std::max<std::size_t>(partners, 8));
        EXPECT_EQ(rounds.size(), expected) << "n=" << n << " k=" << k << " p=" << p;
        for (const auto& [host, peers] : meetings(rounds)) {
          if (host[0] != 's') continue;
          EXPECT_EQ(cleared_met(peers), static_cast<int>(peers.size())) << host << " met a suspect";
          if (partners * k <= 8 * fit) {
            EXPECT_EQ(peers.size(), partners) << host;
          }
        }
      }
}

TEST(PlanRetests, WithoutClearedHostsOnlyThePairsOfTwoSuspectsAreRepeated) {
  const auto rounds = plan_retests({{"a", "b"}}, {}, 2);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0].pairs, (std::vector<HostPair>{{"a", "b"}}));
  EXPECT_TRUE(plan_retests({}, {"g"}, 2).empty());
}

TEST(PlanRetests, ManySuspectsFewClearedHostsTheMostSuspectFirstWithinTheCap) {
  // s0 is in three suspect pairs, s1 and s2 in two; the other 14 hosts in one each.
  std::vector<HostPair> suspects{{"s0", "s1"}, {"s0", "s2"}, {"s0", "s3"}, {"s1", "s4"}, {"s2", "s5"}};
  for (int i = 6; i < 18; i += 2) suspects.emplace_back("s" + std::to_string(i), "s" + std::to_string(i + 1));
  const std::vector<std::string> good{"g1", "g2", "g3"};
  const auto rounds = plan_retests(suspects, good, 2);
  auto met = meetings(rounds);
  // 18 suspects x 2 partners over 3 cleared hosts would be 12 rounds: the cap is 8, and s0,
  // the busiest, needs 3 + 2.
  EXPECT_EQ(rounds.size(), 8u);
  for (const char* s : {"s0", "s1", "s2"}) EXPECT_EQ(cleared_met(met[s]), 2) << s;
  for (const auto& [a, b] : suspects) EXPECT_TRUE(met[a].count(b)) << a << "-" << b << " not measured again";
  // At most 3 cleared hosts in each of 8 rounds, all used in the rounds the suspects' pairs leave.
  int repaired = 0;
  for (const auto& [h, peers] : met)
    if (h[0] == 's') repaired += cleared_met(peers);
  EXPECT_LE(repaired, 24);
  EXPECT_GE(repaired, 20);

  // Enough rounds of suspect pairs: every suspect is re-paired.
  std::vector<HostPair> chain;
  for (int i = 0; i < 10; ++i) chain.emplace_back("s0", "t" + std::to_string(i));  // 10 rounds of s0's pairs
  met = meetings(plan_retests(chain, good, 2));
  for (const auto& [s, peers] : met) {
    if (s[0] == 'g') continue;
    EXPECT_EQ(cleared_met(peers), 2) << s;
  }
}

}  // namespace
}  // namespace ibgpu

namespace ibgpu {
namespace {

PairObservation ranked(std::string_view a, int ra, std::string_view b, int rb, HealthState state) {
  PairObservation o = obs(a, b, state);
  o.a.rank = ra;
  o.b.rank = rb;
  return o;
}

TEST(Localise, SeveralRankPairsBetweenTwoHostsAreOnePeer) {
  // MPI, 4 ranks per host, one round: a and b meet through 4 rank pairs, all
  // bad. They are one peer to each other, so the link is blamed, not both nodes.
  std::vector<PairObservation> o;
  for (int r = 0; r < 4; ++r) {
    o.push_back(ranked("a", r, "b", 4 + r, kBadState));
    o.push_back(ranked("c", 8 + r, "d", 12 + r, kGoodState));
  }
  EXPECT_EQ(blamed_states(localise(o)), (std::map<std::string, HealthState>{{"link a<->b", kBadState}}));
  // One slow rank pair of four is not hidden by the other three.
  o[0] = ranked("a", 0, "b", 4, kBadState);
  for (int r = 1; r < 4; ++r) o[2 * static_cast<std::size_t>(r)] = ranked("a", r, "b", 4 + r, kGoodState);
  EXPECT_EQ(blamed_states(localise(o)), (std::map<std::string, HealthState>{{"link a<->b", kBadState}}));
}

}  // namespace
}  // namespace ibgpu
