// Localisation and re-test planning on small hand-made pair sets.
#include "health/localise.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace ibgpu {
namespace {

PairObservation obs(std::string_view a, std::string_view b, HealthState state, std::string_view rail = "") {
  PairObservation o;
  o.group = "net.mpi.bw@8388608:bw_avg_GBps";
  o.a = Endpoint{a, rail};
  o.b = Endpoint{b, rail};
  o.state = state;
  if (state != HealthState::healthy) o.reason = Reason{"NET_BW_LOW", "low", "bw_avg_GBps", 5.0, 10.0};
  return o;
}

std::map<std::string, HealthState> blamed(const std::vector<Blame>& blames) {
  std::map<std::string, HealthState> out;
  for (const auto& b : blames) out[b.entity.kind + " " + b.entity.id] = b.state;
  return out;
}

constexpr auto kBad = HealthState::failed;
constexpr auto kGood = HealthState::healthy;

TEST(Localise, NodeBadWithEveryGoodPeerIsTheCulprit) {
  const auto b = localise({obs("x", "a", kBad), obs("x", "b", kBad), obs("x", "c", kBad), obs("a", "b", kGood),
                           obs("b", "c", kGood), obs("a", "c", kGood)});
  EXPECT_EQ(blamed(b), (std::map<std::string, HealthState>{{"node x", kBad}}));
}

TEST(Localise, PairBadOnlyTogetherIsALink) {
  const auto b = localise({obs("a", "b", kBad), obs("a", "c", kGood), obs("b", "d", kGood), obs("c", "d", kGood)});
  EXPECT_EQ(blamed(b), (std::map<std::string, HealthState>{{"link a<->b", kBad}}));
}

TEST(Localise, OneBadPeerOfMinorityDoesNotBlameTheNode) {
  // x is bad with 2 of 5 peers: not a majority, so two link verdicts.
  const auto b = localise(
      {obs("x", "a", kBad), obs("x", "b", kBad), obs("x", "c", kGood), obs("x", "d", kGood), obs("x", "e", kGood)});
  EXPECT_EQ(blamed(b), (std::map<std::string, HealthState>{{"link x<->a", kBad}, {"link x<->b", kBad}}));
}

TEST(Localise, RailSharedByTheBadPairsIsTheCulprit) {
  std::vector<PairObservation> o;
  for (const char* peer : {"a", "b", "c"}) {
    o.push_back(obs("x", peer, kBad, "mlx5_1:1"));
    o.push_back(obs("x", peer, kGood, "mlx5_0:1"));
  }
  EXPECT_EQ(blamed(localise(o)), (std::map<std::string, HealthState>{{"hca_port x/mlx5_1:1", kBad}}));
}

TEST(Localise, RetestThatPassesClearsThePairAndOneThatFailsConfirmsIt) {
  // Re-test results are more observations of the same pair.
  EXPECT_TRUE(localise({obs("a", "b", kBad), obs("b", "a", kGood)}).empty());
  EXPECT_EQ(blamed(localise({obs("a", "b", kBad), obs("b", "a", kBad)})),
            (std::map<std::string, HealthState>{{"link a<->b", kBad}}));
  // Re-pairing the suspects with known-good nodes separates the bad node.
  EXPECT_EQ(blamed(localise({obs("a", "b", kBad), obs("a", "g1", kBad), obs("a", "g2", kBad), obs("b", "g3", kGood),
                             obs("b", "g4", kGood)})),
            (std::map<std::string, HealthState>{{"node a", kBad}}));
}

TEST(Localise, KnownGoodHostsLeaveOutEveryoneBlamed) {
  const std::vector<PairObservation> o{obs("a", "b", kBad), obs("c", "d", kGood), obs("a", "c", kGood)};
  const auto good = known_good_hosts(o, localise(o));
  EXPECT_EQ(good, (std::vector<std::string>{"c", "d"}));
}

TEST(PlanRetests, SuspectsMeetDistinctKnownGoodHostsInDisjointRounds) {
  const std::vector<HostPair> suspects{{"a", "b"}, {"a", "c"}};
  const std::vector<std::string> good{"g1", "g2", "g3", "a"};  // a suspect is never "good"
  const auto rounds = plan_retests(suspects, good, 2);
  std::map<std::string, std::set<std::string>> met;
  std::set<HostPair> retested;
  for (const auto& round : rounds) {
    std::set<std::string> busy;
    for (const auto& [x, y] : round.pairs) {
      EXPECT_TRUE(busy.insert(x).second) << x << " twice in a round";
      EXPECT_TRUE(busy.insert(y).second) << y << " twice in a round";
      met[x].insert(y);
      met[y].insert(x);
      retested.insert({x, y});
    }
  }
  EXPECT_TRUE(retested.count({"a", "b"}) && retested.count({"a", "c"}));
  for (const char* s : {"a", "b", "c"}) {
    int good_peers = 0;
    for (const auto& peer : met[s]) good_peers += peer[0] == 'g' ? 1 : 0;
    EXPECT_EQ(good_peers, 2) << s;
  }
}

TEST(PlanRetests, WithoutGoodHostsOnlyTheSuspectPairsAreRepeated) {
  const auto rounds = plan_retests({{"a", "b"}}, {}, 2);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0].pairs, (std::vector<HostPair>{{"a", "b"}}));
  EXPECT_TRUE(plan_retests({}, {"g"}, 2).empty());
}

TEST(PlanRetests, ManySuspectsFewGoodHostsStillDisjointTheMostSuspectFirst) {
  // s0 is in three suspect pairs, s1 and s2 in two; the other 14 hosts in one each.
  std::vector<HostPair> suspects{{"s0", "s1"}, {"s0", "s2"}, {"s0", "s3"}, {"s1", "s4"}, {"s2", "s5"}};
  for (int i = 6; i < 18; i += 2) suspects.emplace_back("s" + std::to_string(i), "s" + std::to_string(i + 1));
  const std::vector<std::string> good{"g1", "g2", "g3"};
  const auto rounds = plan_retests(suspects, good, 2);
  std::map<std::string, std::set<std::string>> good_met;
  std::size_t repairing = 0;
  for (const auto& round : rounds) {
    std::set<std::string> busy;
    bool repairs = false;
    for (const auto& [x, y] : round.pairs) {
      EXPECT_TRUE(busy.insert(x).second && busy.insert(y).second);
      if (y[0] == 'g') {
        good_met[x].insert(y);
        repairs = true;
      }
    }
    repairing += repairs ? 1 : 0;
  }
  // The suspect pairs take 3 rounds (s0 is in three): the re-pairing at most 3, so one chunk of
  // three suspects, each with two good hosts: the three most suspect.
  EXPECT_EQ(rounds.size() - repairing, 3u);
  EXPECT_EQ(repairing, 2u);
  EXPECT_EQ(good_met.size(), 3u);
  for (const char* s : {"s0", "s1", "s2"}) EXPECT_EQ(good_met[s].size(), 2u) << s;

  // Enough rounds of suspect pairs: every suspect is re-paired.
  std::vector<HostPair> chain;
  for (int i = 0; i < 10; ++i) chain.emplace_back("s0", "t" + std::to_string(i));  // 10 rounds of s0's pairs
  good_met.clear();
  for (const auto& round : plan_retests(chain, good, 2))
    for (const auto& [x, y] : round.pairs)
      if (y[0] == 'g') good_met[x].insert(y);
  EXPECT_EQ(good_met.size(), 11u);
  for (const auto& [s, peers] : good_met) EXPECT_EQ(peers.size(), 2u) << s;
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
    o.push_back(ranked("a", r, "b", 4 + r, kBad));
    o.push_back(ranked("c", 8 + r, "d", 12 + r, kGood));
  }
  EXPECT_EQ(blamed(localise(o)), (std::map<std::string, HealthState>{{"link a<->b", kBad}}));
  // One slow rank pair of four is not hidden by the other three.
  o[0] = ranked("a", 0, "b", 4, kBad);
  for (int r = 1; r < 4; ++r) o[2 * static_cast<std::size_t>(r)] = ranked("a", r, "b", 4 + r, kGood);
  EXPECT_EQ(blamed(localise(o)), (std::map<std::string, HealthState>{{"link a<->b", kBad}}));
}

}  // namespace
}  // namespace ibgpu
