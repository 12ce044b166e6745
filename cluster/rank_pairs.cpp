#include "cluster/rank_pairs.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace ibgpu {

namespace {

// `ranks`: World::ranks_by_host().
RankRound expand(const std::vector<std::vector<int>>& ranks, const Round& host_round) {
  RankRound round;
  for (const NodePair& hp : host_round) {
    const std::vector<int>& left = ranks.at(static_cast<std::size_t>(hp.a));
    const std::vector<int>& right = ranks.at(static_cast<std::size_t>(hp.b));
    // Each host's ranks in rank order, which is local-rank order.
    for (std::size_t i = 0; i < std::min(left.size(), right.size()); ++i)
      round.push_back(RankPair{std::min(left[i], right[i]), std::max(left[i], right[i])});
  }
  return round;
}

// Local ranks 0-1, 2-3, ... on every host at once: each host's own HCA (or shared memory) path.
RankRound loopback_round(const World& world) {
  RankRound round;
  for (const std::vector<int>& ranks : world.ranks_by_host())
    for (std::size_t i = 0; i + 1 < ranks.size(); i += 2) round.push_back(RankPair{ranks[i], ranks[i + 1]});
  return round;
}

// A sparse plan's rounds and, with leaves known, the round of hosts meeting a leaf-mate (the pairs
// the rounds already hold left out: a small fleet's spread rounds meet some leaf-mates anyway).
std::vector<Round> with_leaf_round(std::vector<Round> rounds, const std::vector<int>& leaf_of_host, int n) {
  if (leaf_of_host.empty()) return rounds;
  if (static_cast<int>(leaf_of_host.size()) != n)
    throw std::invalid_argument("leaves given for " + std::to_string(leaf_of_host.size()) + " hosts, but there are " +
                                std::to_string(n));
  std::set<std::pair<int, int>> met;
  for (const Round& r : rounds)
    for (const NodePair& p : r) met.insert({p.a, p.b});
  Round leaf_mates = leaf_round(leaf_of_host);
  std::erase_if(leaf_mates, [&](const NodePair& p) { return met.count({p.a, p.b}) > 0; });
  if (!leaf_mates.empty()) rounds.push_back(std::move(leaf_mates));
  return rounds;
}

}  // namespace

std::vector<Round> host_rounds(const PairPlan& plan, int n) {
  switch (plan.mode) {
    case PairMode::all:
      return all_pairs_rounds(n);
    case PairMode::quick:
      return quick_rounds(n);
    case PairMode::peers:
      return with_leaf_round(spread_rounds(n, plan.peers), plan.leaf_of_host, n);
    case PairMode::list:
      return rounds_from_pairs(plan.list, n);
  }
  return {};
}

int host_round_count(const PairPlan& plan, int n) {
  switch (plan.mode) {
    case PairMode::all:
      return all_pairs_round_count(n);
    case PairMode::quick:
      return n < 2 ? 0 : (n % 2 == 0 ? 1 : 2);
    case PairMode::peers:
      if (!plan.leaf_of_host.empty()) return static_cast<int>(host_rounds(plan, n).size());
      return std::clamp(plan.peers, 0, all_pairs_round_count(n));
    case PairMode::list:
      return static_cast<int>(rounds_from_pairs(plan.list, n).size());
  }
  return 0;
}

int leaf_round_count(const PairPlan& plan, int n) {
  if (plan.mode != PairMode::peers) return leaf_round(plan.leaf_of_host).empty() ? 0 : 1;
  PairPlan unplaced = plan;
  unplaced.leaf_of_host.clear();
  return host_round_count(plan, n) - host_round_count(unplaced, n);
}

int peers_per_host(const PairPlan& plan, int n) {
  if (n < 2) return 0;
  switch (plan.mode) {
    case PairMode::all:
      return n - 1;
    case PairMode::quick:
      return 1;            // one round pairs every host (of an odd count, one host in a second round)
    case PairMode::peers:  // K distinct peers each, and a leaf-mate where the leaves add a round
      return std::min(plan.peers, n - 1) + leaf_round_count(plan, n);
    case PairMode::list:
      break;
  }
  std::vector<std::set<int>> met(static_cast<std::size_t>(n));
  for (const Round& round : host_rounds(plan, n))
    for (const NodePair& p : round) {
      met[static_cast<std::size_t>(p.a)].insert(p.b);
      met[static_cast<std::size_t>(p.b)].insert(p.a);
    }
  std::vector<int> counts;
  for (const auto& peers : met) counts.push_back(static_cast<int>(peers.size()));
  std::nth_element(counts.begin(), counts.begin() + n / 2, counts.end());
  return counts[static_cast<std::size_t>(n / 2)];
}

std::string pair_plan_name(const PairPlan& plan) {
  switch (plan.mode) {
    case PairMode::all:
      return "all";
    case PairMode::quick:
      return "quick";
    case PairMode::peers:
      return "peers:" + std::to_string(plan.peers);
    case PairMode::list:
      break;
  }
  std::string text;
  for (const auto& p : plan.list) text += (text.empty() ? "" : ",") + std::to_string(p.a) + "-" + std::to_string(p.b);
  return text;
}

std::vector<RankRound> rank_rounds(const World& world, const PairPlan& plan) {
  const int n = static_cast<int>(world.hosts().size());
  const std::vector<Round> planned = host_rounds(plan, n);
  std::vector<RankRound> rounds = rank_rounds_for(world, planned);
  // On one host (a node's own check) there is no other host to meet: its
  // ranks meet each other, rail to rail, as --loopback asks for in a fleet.
  if (plan.loopback || n == 1)
    if (RankRound r = loopback_round(world); !r.empty()) rounds.push_back(std::move(r));
  return rounds;
}

std::vector<RankRound> rank_rounds_for(const World& world, const std::vector<Round>& host_rounds) {
  const std::vector<std::vector<int>> ranks = world.ranks_by_host();
  std::vector<RankRound> rounds;
  for (const Round& hr : host_rounds)
    if (RankRound r = expand(ranks, hr); !r.empty()) rounds.push_back(std::move(r));
  return rounds;
}

const RankPair* find_pair(const RankRound& round, int rank) {
  for (const auto& p : round)
    if (p.a == rank || p.b == rank) return &p;
  return nullptr;
}

}  // namespace ibgpu
