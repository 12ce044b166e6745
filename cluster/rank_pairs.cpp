#include "cluster/rank_pairs.h"

#include <algorithm>

namespace ibgpu {

namespace {

RankRound expand(const World& world, const std::vector<std::string>& hosts, const Round& host_round) {
  RankRound round;
  for (const NodePair& hp : host_round) {
    const std::vector<int> left = world.ranks_on(hosts[static_cast<std::size_t>(hp.a)]);
    const std::vector<int> right = world.ranks_on(hosts[static_cast<std::size_t>(hp.b)]);
    // ranks_on lists ranks in rank order, which is local-rank order.
    for (std::size_t i = 0; i < std::min(left.size(), right.size()); ++i)
      round.push_back(RankPair{std::min(left[i], right[i]), std::max(left[i], right[i])});
  }
  return round;
}

// Local ranks 0-1, 2-3, ... on every host at once: each host's own HCA (or shared memory) path.
RankRound loopback_round(const World& world, const std::vector<std::string>& hosts) {
  RankRound round;
  for (const auto& host : hosts) {
    const std::vector<int> ranks = world.ranks_on(host);
    for (std::size_t i = 0; i + 1 < ranks.size(); i += 2) round.push_back(RankPair{ranks[i], ranks[i + 1]});
  }
  return round;
}

}  // namespace

std::vector<Round> host_rounds(const PairPlan& plan, int n) {
  switch (plan.mode) {
    case PairMode::all:
      return all_pairs_rounds(n);
    case PairMode::quick:
      return quick_rounds(n);
    case PairMode::peers:
      return spread_rounds(n, plan.peers);
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
      return std::clamp(plan.peers, 0, all_pairs_round_count(n));
    case PairMode::list:
      return static_cast<int>(rounds_from_pairs(plan.list, n).size());
  }
  return 0;
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
  const std::vector<std::string> hosts = world.hosts();
  const int n = static_cast<int>(hosts.size());
  const std::vector<Round> planned = host_rounds(plan, n);
  std::vector<RankRound> rounds = rank_rounds_for(world, planned);
  // On one host (a node's own check) there is no other host to meet: its
  // ranks meet each other, rail to rail, as --loopback asks for in a fleet.
  if (plan.loopback || n == 1)
    if (RankRound r = loopback_round(world, hosts); !r.empty()) rounds.push_back(std::move(r));
  return rounds;
}

std::vector<RankRound> rank_rounds_for(const World& world, const std::vector<Round>& host_rounds) {
  const std::vector<std::string> hosts = world.hosts();
  std::vector<RankRound> rounds;
  for (const Round& hr : host_rounds)
    if (RankRound r = expand(world, hosts, hr); !r.empty()) rounds.push_back(std::move(r));
  return rounds;
}

const RankPair* find_pair(const RankRound& round, int rank) {
  for (const auto& p : round)
    if (p.a == rank || p.b == rank) return &p;
  return nullptr;
}

}  // namespace ibgpu
