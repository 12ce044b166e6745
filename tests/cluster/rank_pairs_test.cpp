#include "cluster/rank_pairs.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace ibgpu {
namespace {

World world_of(const std::vector<std::string>& hosts) {
  World w;
  w.size = static_cast<int>(hosts.size());
  w.places = places_from_hosts(hosts);
  w.mpi = true;
  return w;
}

TEST(World, RanksByHostFollowHostsOrderAndRankOrder) {
  // A launcher that interleaves hosts: b's ranks come first, a's are not contiguous.
  const World w = world_of({"b", "a", "b", "c", "a"});
  EXPECT_EQ(w.hosts(), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(w.ranks_by_host(), (std::vector<std::vector<int>>{{0, 2}, {1, 4}, {3}}));
  EXPECT_EQ(w.ranks_on("a"), (std::vector<int>{1, 4}));
  // Interleaved, rail i still meets rail i: rank 1 (a's first) with rank 0 (b's first).
  const auto rounds = rank_rounds(world_of({"b", "a", "b", "a"}), PairPlan{});
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (RankRound{{0, 1}, {2, 3}}));
}

TEST(RankRounds, TwoHostsFourRailsMeetRailToRail) {
  // Ranks 0-3 on a, 4-7 on b: one round, rail i of a with rail i of b.
  const World w = world_of({"a", "a", "a", "a", "b", "b", "b", "b"});
  const auto rounds = rank_rounds(w, PairPlan{});
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (RankRound{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(RankRounds, InterleavedPlacementStillPairsByLocalRank) {
  // srun --distribution=cyclic: ranks alternate between hosts.
  const World w = world_of({"a", "b", "a", "b"});
  const auto rounds = rank_rounds(w, PairPlan{});
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (RankRound{{0, 1}, {2, 3}}));
}

TEST(RankRounds, EveryHostPairOnceAndNoRankTwiceInARound) {
  std::vector<std::string> hosts;
  for (int h = 0; h < 9; ++h)
    for (int r = 0; r < 2; ++r) hosts.push_back("h" + std::to_string(h));
  const World w = world_of(hosts);
  const auto rounds = rank_rounds(w, PairPlan{});
  EXPECT_EQ(rounds.size(), 9u);  // 9 hosts: odd, 9 rounds
  std::set<std::pair<int, int>> seen;
  for (const auto& round : rounds) {
    std::set<int> busy;
    for (const auto& p : round) {
      EXPECT_LT(p.a, p.b);
      EXPECT_TRUE(busy.insert(p.a).second);
      EXPECT_TRUE(busy.insert(p.b).second);
      EXPECT_NE(w.places[static_cast<std::size_t>(p.a)].host, w.places[static_cast<std::size_t>(p.b)].host);
      EXPECT_TRUE(seen.insert({p.a, p.b}).second);
    }
  }
  EXPECT_EQ(seen.size(), 9u * 8 / 2 * 2);  // 36 host pairs x 2 rails
}

TEST(RankRounds, OneHostPairsItsOwnRanks) {
  // A node's own check: nothing else to meet, so its rails meet each other, with or without --loopback.
  const World w = world_of({"a", "a", "a"});
  for (const bool loopback : {false, true}) {
    PairPlan plan;
    plan.loopback = loopback;
    const auto rounds = rank_rounds(w, plan);
    ASSERT_EQ(rounds.size(), 1u);
    EXPECT_EQ(rounds[0], (RankRound{{0, 1}})) << loopback;  // rank 2 has no partner on its host
  }
  EXPECT_TRUE(rank_rounds(world_of({"a"}), PairPlan{}).empty());  // one rank: nothing to pair
}

TEST(RankRounds, LoopbackInAFleetAddsARoundOfEachHostsOwnRanks) {
  const World w = world_of({"a", "a", "b", "b"});
  EXPECT_EQ(rank_rounds(w, PairPlan{}).size(), 1u);
  PairPlan loop;
  loop.loopback = true;
  const auto rounds = rank_rounds(w, loop);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[1], (RankRound{{0, 1}, {2, 3}}));
}

TEST(RankRounds, UnevenRankCountsPairWhatExists) {
  const World w = world_of({"a", "a", "b"});
  const auto rounds = rank_rounds(w, PairPlan{});
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (RankRound{{0, 2}}));
}

TEST(RankRounds, ExplicitListAndQuickMode) {
  const World w = world_of({"a", "b", "c", "d"});
  PairPlan list;
  list.mode = PairMode::list;
  list.list = {{0, 3}};
  const auto rounds = rank_rounds(w, list);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (RankRound{{0, 3}}));
  PairPlan quick;
  quick.mode = PairMode::quick;
  EXPECT_EQ(rank_rounds(w, quick).size(), 1u);
  list.list = {{0, 7}};
  EXPECT_THROW(rank_rounds(w, list), std::invalid_argument);
}

TEST(RankRounds, PeersModeAndTheRoundCountOfEveryPlan) {
  const World w = world_of({"a", "b", "c", "d", "e", "f", "g", "h"});
  PairPlan peers;
  peers.mode = PairMode::peers;
  peers.peers = 3;
  EXPECT_EQ(rank_rounds(w, peers).size(), 3u);
  EXPECT_EQ(pair_plan_name(peers), "peers:3");
  PairPlan list;
  list.mode = PairMode::list;
  list.list = {{0, 1}, {1, 2}};
  EXPECT_EQ(pair_plan_name(list), "0-1,1-2");
  for (const PairPlan& plan : {PairPlan{}, peers, list, PairPlan{PairMode::quick, 0, {}, false}})
    for (const int n : {1, 2, 7, 8}) {
      if (plan.mode == PairMode::list && n < 3) continue;  // the list names host 2
      EXPECT_EQ(host_round_count(plan, n), static_cast<int>(host_rounds(plan, n).size()))
          << pair_plan_name(plan) << " over " << n;
    }
}

TEST(RankRounds, PeersWithLeavesKnownAddARoundOfLeafMatesNotMetYet) {
  // 64 hosts on leaves of 8: peers:4 meets few of a host's leaf-mates, so one more round pairs
  // hosts with one they have not met.
  PairPlan peers{PairMode::peers, 4, {}, false};
  for (int h = 0; h < 64; ++h) peers.leaf_of_host.push_back(h / 8);
  const auto rounds = host_rounds(peers, 64);
  ASSERT_EQ(rounds.size(), 5u);
  EXPECT_EQ(host_round_count(peers, 64), 5);
  EXPECT_EQ(leaf_round_count(peers, 64), 1);
  EXPECT_GE(rounds.back().size(), 28u);
  std::set<std::pair<int, int>> planned;
  for (std::size_t r = 0; r + 1 < rounds.size(); ++r)
    for (const NodePair& p : rounds[r]) planned.insert({p.a, p.b});
  for (const NodePair& p : rounds.back()) {
    EXPECT_EQ(p.a / 8, p.b / 8) << p.a << "-" << p.b;
    EXPECT_EQ(planned.count({p.a, p.b}), 0u) << p.a << "-" << p.b;
  }
  // Four hosts on one leaf, peers:2 of the three rounds: the leaf round holds only the pairs not met.
  PairPlan small{PairMode::peers, 2, {}, false, {0, 0, 0, 0}};
  std::set<std::pair<int, int>> met;
  const auto few = host_rounds(small, 4);
  for (const Round& r : few)
    for (const NodePair& p : r) EXPECT_TRUE(met.insert({p.a, p.b}).second) << p.a << "-" << p.b;
  EXPECT_EQ(host_round_count(small, 4), static_cast<int>(few.size()));
  // Every pair planned anyway: no leaf round; leaves for other than the hosts: refused.
  EXPECT_EQ(host_rounds(PairPlan{PairMode::peers, 3, {}, false, {0, 0, 0, 0}}, 4).size(), 3u);
  EXPECT_EQ(leaf_round_count(PairPlan{PairMode::peers, 3, {}, false, {0, 0, 0, 0}}, 4), 0);
  EXPECT_EQ(leaf_round_count(PairPlan{PairMode::all, 0, {}, false, {0, 0, 1, 2}}, 4), 1);  // a budget's peers:K
  EXPECT_EQ(leaf_round_count(PairPlan{PairMode::all, 0, {}, false, {0, 1, 2, -1}}, 4), 0);
  EXPECT_EQ(leaf_round_count(PairPlan{PairMode::peers, 1, {}, false}, 4), 0);
  EXPECT_THROW(host_rounds(PairPlan{PairMode::peers, 1, {}, false, {0, 0}}, 4), std::invalid_argument);
}

TEST(FindPair, FindsEitherSide) {
  const RankRound round{{0, 4}, {1, 5}};
  EXPECT_EQ(find_pair(round, 5)->a, 1);
  EXPECT_EQ(find_pair(round, 0)->b, 4);
  EXPECT_EQ(find_pair(round, 2), nullptr);
}

}  // namespace
}  // namespace ibgpu
