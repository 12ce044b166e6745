#include "cluster/pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ibgpu {
namespace {

// Checks the schedule invariants with flat vectors of bools (not sets of pairs): the
// 1024-node case has 523776 pairs and must stay fast.
void expect_valid_rounds(const std::vector<Round>& rounds, int n) {
  const auto size = static_cast<std::size_t>(n);
  std::vector<bool> in_round(size);
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    std::fill(in_round.begin(), in_round.end(), false);
    for (const auto& p : rounds[r]) {
      ASSERT_LT(p.a, p.b) << "round " << r;
      ASSERT_GE(p.a, 0) << "round " << r;
      ASSERT_LT(p.b, n) << "round " << r;
      ASSERT_FALSE(in_round[static_cast<std::size_t>(p.a)]) << "node " << p.a << " twice in round " << r;
      ASSERT_FALSE(in_round[static_cast<std::size_t>(p.b)]) << "node " << p.b << " twice in round " << r;
      in_round[static_cast<std::size_t>(p.a)] = in_round[static_cast<std::size_t>(p.b)] = true;
    }
  }
}

void expect_all_pairs_once(const std::vector<Round>& rounds, int n) {
  const auto size = static_cast<std::size_t>(n);
  std::vector<bool> seen(size * size);
  std::size_t count = 0;
  for (const auto& round : rounds)
    for (const auto& p : round) {
      const std::size_t index = static_cast<std::size_t>(p.a) * size + static_cast<std::size_t>(p.b);
      ASSERT_FALSE(seen[index]) << "pair " << p.a << "-" << p.b << " twice";
      seen[index] = true;
      ++count;
    }
  EXPECT_EQ(count, size * (size - (n > 0 ? 1 : 0)) / 2);
}

void check_all_pairs(int n) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const auto rounds = all_pairs_rounds(n);
  if (n < 2) {
    EXPECT_TRUE(rounds.empty());
    return;
  }
  const bool even = n % 2 == 0;
  ASSERT_EQ(rounds.size(), static_cast<std::size_t>(even ? n - 1 : n));
  for (const auto& round : rounds) ASSERT_EQ(round.size(), static_cast<std::size_t>(n / 2));
  expect_valid_rounds(rounds, n);
  expect_all_pairs_once(rounds, n);
  if (!even) {
    // n odd: each node has n-1 partners over n rounds, so it sits out exactly one round.
    std::vector<int> idle(static_cast<std::size_t>(n), static_cast<int>(rounds.size()));
    for (const auto& round : rounds)
      for (const auto& p : round) {
        --idle[static_cast<std::size_t>(p.a)];
        --idle[static_cast<std::size_t>(p.b)];
      }
    for (int node = 0; node < n; ++node) EXPECT_EQ(idle[static_cast<std::size_t>(node)], 1) << "node " << node;
  }
}

void check_quick(int n) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const auto rounds = quick_rounds(n);
  if (n < 2) {
    EXPECT_TRUE(rounds.empty());
    return;
  }
  ASSERT_EQ(rounds.size(), n % 2 == 0 ? 1u : 2u);
  EXPECT_EQ(rounds[0].size(), static_cast<std::size_t>(n / 2));
  expect_valid_rounds(rounds, n);
  std::vector<int> taken(static_cast<std::size_t>(n));
  for (const auto& round : rounds)
    for (const auto& p : round) {
      ++taken[static_cast<std::size_t>(p.a)];
      ++taken[static_cast<std::size_t>(p.b)];
    }
  for (int node = 0; node < n; ++node) {
    // Only node 0 works twice: it partners the leftover node of an odd count.
    const int expected = (node == 0 && n % 2 == 1) ? 2 : 1;
    EXPECT_EQ(taken[static_cast<std::size_t>(node)], expected) << "node " << node;
  }
  if (n % 2 == 1) {
    EXPECT_EQ(rounds[1], (Round{{0, n - 1}}));
  }
}

// The message must name what was wrong, so a user can fix the flag.
void expect_invalid(const std::function<void()>& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(AllPairsRounds, EveryCountUpTo64) {
  for (int n = 0; n <= 64; ++n) check_all_pairs(n);
}

TEST(AllPairsRounds, LargeCounts) {
  for (const int n : {127, 128, 513, 1024}) check_all_pairs(n);
}

TEST(AllPairsRounds, NegativeCountHasNoRounds) { EXPECT_TRUE(all_pairs_rounds(-3).empty()); }

TEST(AllPairsRounds, TwoAndThreeNodes) {
  EXPECT_EQ(all_pairs_rounds(2), (std::vector<Round>{{{0, 1}}}));
  const auto three = all_pairs_rounds(3);
  ASSERT_EQ(three.size(), 3u);
  for (const auto& round : three) EXPECT_EQ(round.size(), 1u);
}

TEST(AllPairsRounds, Deterministic) { EXPECT_EQ(all_pairs_rounds(37), all_pairs_rounds(37)); }

TEST(LeafRound, LeafMatesInOrderTheLastOfAnOddLeafAndUnplacedNodesSitOut) {
  // Leaves 0 and 1 interleaved, node 5 unplaced, leaf 1 odd (1, 3, 6).
  EXPECT_EQ(leaf_round({0, 1, 0, 1, 0, -1, 1, 0}), (Round{{0, 2}, {1, 3}, {4, 7}}));
  EXPECT_TRUE(leaf_round({0, 1, 2, -1}).empty());
  EXPECT_TRUE(leaf_round({}).empty());
}

TEST(QuickRounds, EveryCountUpTo64) {
  for (int n = -1; n <= 64; ++n) check_quick(n);
}

TEST(QuickRounds, LargeCounts) {
  for (const int n : {127, 128, 513, 1024}) check_quick(n);
}

TEST(QuickRounds, SmallShapes) {
  EXPECT_EQ(quick_rounds(4), (std::vector<Round>{{{0, 1}, {2, 3}}}));
  EXPECT_EQ(quick_rounds(3), (std::vector<Round>{{{0, 1}}, {{0, 2}}}));
}

TEST(RoundsFromPairs, PacksFirstFitInOrder) {
  const std::vector<NodePair> pairs{{0, 1}, {2, 3}, {1, 2}, {0, 3}};
  EXPECT_EQ(rounds_from_pairs(pairs, 4), (std::vector<Round>{{{0, 1}, {2, 3}}, {{1, 2}, {0, 3}}}));
}

TEST(RoundsFromPairs, LaterPairFillsEarlierRound) {
  // 2-3 does not fit beside 1-2 but fits beside 0-1 in the second round.
  const std::vector<NodePair> pairs{{1, 2}, {0, 1}, {2, 3}};
  EXPECT_EQ(rounds_from_pairs(pairs, 4), (std::vector<Round>{{{1, 2}}, {{0, 1}, {2, 3}}}));
}

TEST(RoundsFromPairs, NormalisesAndDropsDuplicates) {
  const std::vector<NodePair> pairs{{3, 1}, {1, 3}, {0, 2}, {3, 1}, {2, 0}};
  EXPECT_EQ(rounds_from_pairs(pairs, 4), (std::vector<Round>{{{1, 3}, {0, 2}}}));
}

TEST(RoundsFromPairs, EmptyListHasNoRounds) { EXPECT_TRUE(rounds_from_pairs({}, 8).empty()); }

TEST(RoundsFromPairs, AllPairsListIsScheduledValidly) {
  for (const int n : {2, 3, 8, 17, 64}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<NodePair> pairs;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) pairs.push_back({b, a});  // reversed on purpose
    const auto rounds = rounds_from_pairs(pairs, n);
    expect_valid_rounds(rounds, n);
    expect_all_pairs_once(rounds, n);
  }
}

TEST(RoundsFromPairs, ChainNeedsTwoRounds) {
  std::vector<NodePair> chain;
  for (int i = 0; i + 1 < 10; ++i) chain.push_back({i, i + 1});
  const auto rounds = rounds_from_pairs(chain, 10);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0].size(), 5u);
  EXPECT_EQ(rounds[1].size(), 4u);
}

TEST(RoundsFromPairs, RejectsBadPairs) {
  expect_invalid([] { rounds_from_pairs({{0, 8}}, 8); }, "node 8");
  expect_invalid([] { rounds_from_pairs({{0, 8}}, 8); }, "0..7");
  expect_invalid([] { rounds_from_pairs({{-1, 2}}, 8); }, "node -1");
  expect_invalid([] { rounds_from_pairs({{0, 1}, {5, 5}}, 8); }, "pair 5-5");
  expect_invalid([] { rounds_from_pairs({{5, 5}}, 8); }, "itself");
  expect_invalid([] { rounds_from_pairs({{0, 1}}, 0); }, "node 0");
}

TEST(ParsePairList, ParsesInOrderAsWritten) {
  EXPECT_EQ(parse_pair_list("0-1,2-3"), (std::vector<NodePair>{{0, 1}, {2, 3}}));
  EXPECT_EQ(parse_pair_list("7-2"), (std::vector<NodePair>{{7, 2}}));
  EXPECT_EQ(parse_pair_list(" 10 - 11 , 1023-0 "), (std::vector<NodePair>{{10, 11}, {1023, 0}}));
}

TEST(ParsePairList, RejectsBadTokensByName) {
  expect_invalid([] { parse_pair_list(""); }, "empty");
  expect_invalid([] { parse_pair_list("  "); }, "empty");
  expect_invalid([] { parse_pair_list("0-1,2"); }, "'2'");
  expect_invalid([] { parse_pair_list("0-1,a-b"); }, "'a-b'");
  expect_invalid([] { parse_pair_list("0-1,,2-3"); }, "''");
  expect_invalid([] { parse_pair_list("0-1,"); }, "''");
  expect_invalid([] { parse_pair_list("-1-2"); }, "'-1-2'");
  expect_invalid([] { parse_pair_list("1--2"); }, "'1--2'");
  expect_invalid([] { parse_pair_list("0-1-2"); }, "'0-1-2'");
  expect_invalid([] { parse_pair_list("0-1x"); }, "'0-1x'");
  expect_invalid([] { parse_pair_list("+0-1"); }, "'+0-1'");
  expect_invalid([] { parse_pair_list("0-99999999999"); }, "'0-99999999999'");
}

}  // namespace
}  // namespace ibgpu

namespace ibgpu {
namespace {

// Every node's peers over the rounds: K distinct peers for K rounds (n even).
std::vector<std::vector<int>> peers_of(const std::vector<Round>& rounds, int n) {
  std::vector<std::vector<int>> peers(static_cast<std::size_t>(n));
  for (const auto& round : rounds)
    for (const auto& p : round) {
      peers[static_cast<std::size_t>(p.a)].push_back(p.b);
      peers[static_cast<std::size_t>(p.b)].push_back(p.a);
    }
  return peers;
}

TEST(SpreadRounds, EveryNodeMeetsKDistinctPeersInKValidRounds) {
  for (const int n : {16, 256, 1024, 1000}) {  // n even: nobody sits out
    for (const int k : {2, 4, 8, 32}) {
      const auto rounds = spread_rounds(n, k);
      const int expected = std::min(k, n - 1);
      ASSERT_EQ(static_cast<int>(rounds.size()), expected);
      expect_valid_rounds(rounds, n);
      for (auto peers : peers_of(rounds, n)) {
        EXPECT_EQ(static_cast<int>(peers.size()), expected) << "n " << n << " k " << k;
        std::sort(peers.begin(), peers.end());
        EXPECT_EQ(std::adjacent_find(peers.begin(), peers.end()), peers.end()) << "a peer met twice";
      }
    }
  }
}

TEST(SpreadRounds, PeersSpreadOverTheHostList) {
  // 1024 hosts in leaves of 32 consecutive hosts: every node's 8 peers sit on 8 different leaves
  // (the circle method's first 8 rounds would keep them within 16 places).
  const int n = 1024, leaf = 32;
  for (const auto& peers : peers_of(spread_rounds(n, 8), n)) {
    std::vector<int> leaves;
    for (const int p : peers) leaves.push_back(p / leaf);
    std::sort(leaves.begin(), leaves.end());
    leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
    EXPECT_EQ(leaves.size(), 8u);
  }
  // ... and over 16 uplinks (routed by destination modulo 16): no node meets more than 2 of its
  // 8 peers through one uplink (an even spacing would send all 8 through one, and a bad uplink
  // would make the node look bad with every peer). Where the peers wrap round the ring of 1023
  // (odd), the residues shift by one: hence 2, not 1.
  for (const auto& peers : peers_of(spread_rounds(n, 8), n)) {
    std::vector<int> per_uplink(16);
    for (const int p : peers) per_uplink[static_cast<std::size_t>(p % 16)]++;
    EXPECT_LE(*std::max_element(per_uplink.begin(), per_uplink.end()), 2);
  }
}

TEST(SpreadRounds, AsManyAsEveryPairIsEveryPair) {
  EXPECT_EQ(spread_rounds(16, 15), all_pairs_rounds(16));
  EXPECT_EQ(spread_rounds(16, 100), all_pairs_rounds(16));
  EXPECT_TRUE(spread_rounds(1, 4).empty());
  EXPECT_EQ(all_pairs_round_count(17), static_cast<int>(all_pairs_rounds(17).size()));
  EXPECT_EQ(all_pairs_round_count(16), static_cast<int>(all_pairs_rounds(16).size()));
}

}  // namespace
}  // namespace ibgpu
