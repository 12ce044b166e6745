#pragma once
// From a schedule of host pairs to the rank pairs that run concurrently:
// within a host pair, ranks with the same local rank meet (one rank per GPU
// and rail is the usual launch, so each rail is tested against its twin).
#include <string>
#include <vector>

#include "cluster/pairs.h"
#include "cluster/world.h"

namespace ibgpu {

struct RankPair {
  int a = 0;  // a < b
  int b = 0;
  bool operator==(const RankPair&) const = default;
};
using RankRound = std::vector<RankPair>;

enum class PairMode { all, quick, peers, list };

struct PairPlan {
  PairMode mode = PairMode::all;
  int peers = 0;               // distinct peers per host, for PairMode::peers (spread_rounds)
  std::vector<NodePair> list;  // host indices, for PairMode::list
  bool loopback = false;       // also pair ranks on the same host (always, when there is one host)
  // Per host index, its leaf switch (core/fabric_topology.h leaf_numbers), when a topology is known:
  // peers:K then adds one round of hosts meeting a leaf-mate (leaf_round), the pairs already met
  // left out. Empty: no topology.
  std::vector<int> leaf_of_host = {};
};

// The rounds of host pairs of a plan over n hosts (loopback aside), and how many there are
// (without building them, but for a list or a leaf round). Throws std::invalid_argument for a
// list naming a host beyond n, or leaves given for other than n hosts.
std::vector<Round> host_rounds(const PairPlan& plan, int n);
int host_round_count(const PairPlan& plan, int n);

// The round the plan's leaves add (0 or 1): for peers:K, the leaf-mate round when it pairs hosts
// the spread rounds have not met; for another plan (which a budget may turn into peers:K), when a
// leaf holds two hosts. 0 without leaves.
int leaf_round_count(const PairPlan& plan, int n);

// The distinct peers a host typically meets in the plan's rounds (the median over hosts, the leaf
// round included): n - 1 for every pair, 1 for one quick round of an even count.
int peers_per_host(const PairPlan& plan, int n);
// The plan's name as --pairs takes it: all, quick, peers:K, or the list.
std::string pair_plan_name(const PairPlan& plan);

// Host indices follow World::hosts() order. Throws std::invalid_argument for
// a pair list that names hosts that do not exist.
std::vector<RankRound> rank_rounds(const World& world, const PairPlan& plan);

// Given rounds of host pairs (indices into World::hosts(), disjoint within a
// round), the rank pairs that run them; rounds that pair no ranks are left out.
std::vector<RankRound> rank_rounds_for(const World& world, const std::vector<Round>& host_rounds);

// The pair a rank takes part in during a round, if any.
const RankPair* find_pair(const RankRound& round, int rank);

}  // namespace ibgpu
