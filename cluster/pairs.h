#pragma once
// Pair scheduling for point-to-point probes. Pairs in one round share no node,
// so a round can run concurrently without two tests competing for one NIC.
#include <string>
#include <vector>

namespace ibgpu {

struct NodePair {
  int a = 0;  // a < b once normalised
  int b = 0;
  bool operator==(const NodePair&) const = default;
};
using Round = std::vector<NodePair>;

// All pairs of n nodes in rounds of concurrent, disjoint pairs (circle method):
// n even: n-1 rounds of n/2 pairs; n odd: n rounds of (n-1)/2 pairs, one node idle per round.
// Every unordered pair exactly once, no node twice in a round; n < 2 gives no rounds.
std::vector<Round> all_pairs_rounds(int n);

// Round r (0 <= r < all_pairs_rounds(n).size()) of the circle method alone.
Round circle_round(int n, int r);

// `--pairs peers:K`: K rounds of the circle method, so every node meets K distinct peers (n odd:
// a node may sit out one of them), chosen so that each node's peers lie evenly spaced round the
// host list: over the leaf switches too, when, as in a hostfile or a Slurm node list, a leaf's
// hosts are listed together. K >= the rounds of every pair: every pair.
std::vector<Round> spread_rounds(int n, int k);

// How many rounds all_pairs_rounds(n) has, without building them.
int all_pairs_round_count(int n);

// With a topology, the round in which nodes meet a leaf-mate (the pairs within a leaf tell its
// switch from its uplinks): within each leaf, the nodes with the same `leaf_of` in index order,
// the first with the second, the third with the fourth, ...; the last of an odd leaf and nodes
// placed on no leaf (-1) sit out.
Round leaf_round(const std::vector<int>& leaf_of);

// `--pairs quick`: one round in which every node takes part once. For odd n the last
// node would sit out, so it gets a second round of one pair with node 0.
std::vector<Round> quick_rounds(int n);

// An explicit pair list: validated (0 <= a, b < n, a != b), normalised to a < b, duplicates
// dropped, then packed first-fit into rounds in order of first appearance.
// Throws std::invalid_argument naming the bad pair.
std::vector<Round> rounds_from_pairs(const std::vector<NodePair>& pairs, int n);

// Parses "0-1,2-3" (node indices, as written: not normalised, not range-checked; that needs n
// and is done by rounds_from_pairs). Throws std::invalid_argument naming the bad token.
std::vector<NodePair> parse_pair_list(const std::string& text);

}  // namespace ibgpu
