#include "health/fabric.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>

#include "core/hostlist.h"
#include "core/statistics.h"
#include "core/text.h"
#include "health/confidence.h"

namespace ibgpu {

namespace {

const char* const kHandOver = "hand it to the network team; no node is drained for it";

std::string rail_text(std::string_view device) {
  return device.empty() ? std::string() : " on rail " + std::string(device);
}

// The worst of the pairs a fabric entity explains gives the state, the code's metric and the
// threshold; the message says what the pairs show.
Blame fabric_blame(Entity entity, ReasonCode code, const std::vector<const FabricEdge*>& pairs,
                   const std::string& finding) {
  const PairObservation* worst_pair = pairs.front()->observation;
  for (const FabricEdge* e : pairs)
    if (e->observation->state > worst_pair->state) worst_pair = e->observation;
  Blame b{std::move(entity), worst_pair->state, {}};
  b.reason.code = code;
  b.reason.metric = worst_pair->reason ? worst_pair->reason->metric : std::string(worst_pair->group);
  if (worst_pair->reason) {
    b.reason.value = worst_pair->reason->value;
    b.reason.threshold = worst_pair->reason->threshold;
  }
  // As sure as the pairs it explains together (health/confidence.h).
  std::vector<const Reason*> findings;
  for (const FabricEdge* e : pairs)
    if (e->observation->state != HealthState::healthy)
      findings.push_back(e->observation->reason ? &*e->observation->reason : nullptr);
  b.reason.confidence = combined_confidence(findings);
  const std::string example = worst_pair->reason ? "; e.g. " + std::string(to_string(worst_pair->reason->code)) + " " +
                                                       worst_pair->reason->message
                                                 : "";
  b.reason.message = finding + ": " + kHandOver + example;
  return b;
}

class Explainer {
 public:
  Explainer(const std::vector<FabricUnit>& units, const std::vector<FabricEdge>& edges)
      : units_(units), edges_(edges), culprit_(units.size()), leaf_of_(units.size(), -1) {
    out_.unit_explained.assign(units.size(), false);
    out_.edge_explained.assign(edges.size(), false);
    for (std::size_t u = 0; u < units.size(); ++u) culprit_[u] = units[u].culprit;
  }

  void leaves(const FabricTopology& topology);
  void cuts();
  FabricExplanation take() { return std::move(out_); }

 private:
  struct Leaf {
    std::string name;  // the switch, and "/rail" when the units have one
    std::string_view device;
    std::vector<std::size_t> units;
  };

  bool unexplained_bad(std::size_t e) const {
    const FabricEdge& edge = edges_[e];
    return edge.bad() && !out_.edge_explained[e] && !culprit_[edge.a] && !culprit_[edge.b];
  }
  void clear(std::size_t u) {
    culprit_[u] = false;
    out_.unit_explained[u] = true;
  }
  void whole_leaf(const Leaf& leaf, std::size_t index);
  bool uplink_of_one_leaf(const std::vector<Leaf>& leaves);
  int clear_culprits_bad_only_with(std::size_t leaf);

  const std::vector<FabricUnit>& units_;
  const std::vector<FabricEdge>& edges_;
  std::vector<bool> culprit_;  // culprits the fabric has not explained (yet)
  std::vector<int> leaf_of_;   // per unit: its leaf (an index), -1 when unplaced or no topology is known
  const char* word_ = "leaf";  // what the topology calls a leaf: "leaf", or "block" (topology/block)
  FabricExplanation out_;
};

// Every unit of a leaf is a culprit: with the pairs within the leaf bad, the leaf switch; good,
// its uplinks (the hosts reach each other and no one else). A host that is a culprit on every
// rail is a node and stays one (a leaf of one rail's fabric does not fail every rail at once):
// the leaf is judged by its other hosts.
void Explainer::whole_leaf(const Leaf& leaf, std::size_t index) {
  std::vector<bool> member(units_.size(), false);
  std::size_t members = 0;
  for (std::size_t u : leaf.units) {
    if (!leaf.device.empty() && units_[u].whole_node) continue;
    if (!culprit_[u]) return;
    member[u] = true;
    ++members;
  }
  // A leaf mostly of nodes bad on every rail is a batch of bad nodes, not a switch: its few other
  // hosts are too few to judge it by (they are likely nodes whose one rail read well by chance).
  if (members < 2 || 2 * members <= leaf.units.size()) return;
  std::vector<const FabricEdge*> touching;
  std::vector<std::size_t> explained;
  int within = 0, within_bad = 0;
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const bool in_a = member[edges_[e].a], in_b = member[edges_[e].b];
    if (in_a && in_b) {
      ++within;
      within_bad += edges_[e].bad() ? 1 : 0;
    }
    if ((in_a || in_b) && edges_[e].bad()) {
      touching.push_back(&edges_[e]);
      explained.push_back(e);
    }
  }
  const bool uplink = within > 0 && !is_majority(within_bad, within);
  const std::string who = "every host on " + std::string(word_) + " " + leaf.name + rail_text(leaf.device) + " (" +
                          std::to_string(members) +
                          (members < leaf.units.size() ? " besides nodes bad on every rail" : "") + ")";
  std::string finding;
  if (uplink)
    finding =
        who + " is bad with the hosts off it, good with the " + count_text(within, "pair") + " within it: its uplinks";
  else if (within > 0)
    finding = who + " is bad, pairs within it too (" + std::to_string(within_bad) + " of " + std::to_string(within) +
              "): the switch";
  else
    finding = who + " is bad with the hosts off it; no pair within it was measured: the switch or its uplinks";
  for (std::size_t u = 0; u < units_.size(); ++u)
    if (member[u]) clear(u);
  if (const int cleared = clear_culprits_bad_only_with(index); cleared > 0)
    finding += "; and " + count_text(cleared, "host") + " elsewhere bad only with hosts on it (no other peer)";
  out_.blames.push_back(
      fabric_blame(Entity::leaf(uplink ? EntityKind::uplink : EntityKind::leaf_switch, leaf.name, leaf.device),
                   uplink ? ReasonCode::FABRIC_UPLINK_BAD : ReasonCode::FABRIC_SWITCH_BAD, touching, finding));
  for (std::size_t e : explained)
    if (!(uplink && member[edges_[e].a] && member[edges_[e].b])) out_.edge_explained[e] = true;
}

// P(X >= k) for X ~ Binomial(n, p): how likely k bad pairs of n are at the background rate p.
double binomial_tail(int k, int n, double p) {
  if (k <= 0) return 1;
  if (k > n) return 0;
  const double log_p = std::log(p), log_q = std::log1p(-p);
  double sum = 0;
  for (int i = k; i <= n; ++i)
    sum +=
        std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * log_p + (n - i) * log_q);
  return std::min(1.0, sum);
}

// Bad pairs out of one leaf, from several of its units to several units elsewhere, that nothing
// else explains, and more of them than the rest of the fabric's bad pairs make likely (a few
// pairs a noisy run leaves bad land on some leaf by chance): that leaf's uplinks (one of them: the
// pairs routed over it). The least likely leaf first; a pair between two leaves counts for both
// until one takes it.
bool Explainer::uplink_of_one_leaf(const std::vector<Leaf>& leaves) {
  struct Tally {
    std::vector<std::size_t> bad;        // bad pairs out of the leaf
    int out = 0;                         // pairs out of the leaf measured
    int touching = 0, touching_bad = 0;  // every pair with an end on the leaf
    std::set<std::size_t> inside, outside;
    std::map<std::size_t, std::pair<int, int>> by_host;  // inside unit -> its pairs out, bad
    int within = 0;                                      // pairs within the leaf measured
  };
  std::vector<Tally> tally(leaves.size());
  int all = 0, all_bad = 0;  // the pairs that nothing explains yet, and the bad ones among them
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const std::size_t a = edges_[e].a, b = edges_[e].b;
    // A slow node's rail that read well with most peers is no culprit, but its bad pairs are the
    // node's, not evidence against a leaf's uplinks (a bad batch of nodes filling leaves).
    if (out_.edge_explained[e] || culprit_[a] || culprit_[b] || units_[a].on_bad_node || units_[b].on_bad_node)
      continue;
    const bool bad = edges_[e].bad();
    ++all;
    all_bad += bad ? 1 : 0;
    std::set<int> on;
    for (const int l : {leaf_of_[a], leaf_of_[b]})
      if (l >= 0) on.insert(l);
    for (const int l : on) {
      Tally& t = tally[static_cast<std::size_t>(l)];
      ++t.touching;
      t.touching_bad += bad ? 1 : 0;
    }
    if (leaf_of_[a] == leaf_of_[b]) {
      if (leaf_of_[a] >= 0) ++tally[static_cast<std::size_t>(leaf_of_[a])].within;
      continue;
    }
    for (auto [in, peer] : {std::pair{a, b}, std::pair{b, a}}) {
      if (leaf_of_[in] < 0) continue;
      Tally& t = tally[static_cast<std::size_t>(leaf_of_[in])];
      ++t.out;
      auto& [host_out, host_bad] = t.by_host[in];
      ++host_out;
      host_bad += bad ? 1 : 0;
      if (!bad) continue;
      t.bad.push_back(e);
      t.inside.insert(in);
      t.outside.insert(peer);
    }
  }
  std::size_t best = leaves.size();
  double best_chance = kUplinkSignificance / static_cast<double>(leaves.size());
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    const Tally& t = tally[l];
    if (static_cast<int>(t.bad.size()) < kUplinkMinPairs || t.inside.size() < 2 || t.outside.size() < 2) continue;
    // The background: the bad share of the pairs off this leaf (one bad and one good pair added,
    // so that a fabric with no other pair, or no other bad one, is not certainty).
    const double background = (all_bad - t.touching_bad + 1.0) / (all - t.touching + 2.0);
    const int bad = static_cast<int>(t.bad.size());
    const double chance = binomial_tail(bad, t.out, background);
    // Without its worst host the leaf must still stand out: one bad host that no rule caught
    // (one peer of a quick plan) and a little noise are not the uplinks.
    const auto worst_host = std::max_element(t.by_host.begin(), t.by_host.end(), [](const auto& x, const auto& y) {
      return x.second.second < y.second.second;
    });
    const double chance_without =
        binomial_tail(bad - worst_host->second.second, t.out - worst_host->second.first, background);
    if (std::max(chance, chance_without) < best_chance) {
      best = l;
      best_chance = std::max(chance, chance_without);
    }
  }
  if (best == leaves.size()) return false;
  const Leaf& leaf = leaves[best];
  const Tally& t = tally[best];
  std::vector<const FabricEdge*> pairs;
  for (std::size_t e : t.bad) {
    pairs.push_back(&edges_[e]);
    out_.edge_explained[e] = true;
  }
  const int cleared = clear_culprits_bad_only_with(best);
  std::string finding =
      std::to_string(t.bad.size()) + " of " + count_text(t.out, "pair") + " out of " + word_ + " " + leaf.name +
      rail_text(leaf.device) + " bad, from " + std::to_string(t.inside.size()) + " of its hosts to " +
      count_text(t.outside.size(), "host") + " elsewhere, that no node explains: its uplinks" +
      (t.within == 0 ? " (no pair within the " + std::string(word_) + " was measured: or the switch)" : "");
  if (cleared > 0)
    finding += "; and " + count_text(cleared, "host") + " elsewhere bad only with hosts on it (no other peer)";
  out_.blames.push_back(fabric_blame(Entity::leaf(EntityKind::uplink, leaf.name, leaf.device),
                                     ReasonCode::FABRIC_UPLINK_BAD, pairs, finding));
  return true;
}

// A culprit off the leaf whose bad pairs are all with hosts on it (a sparse plan paired it with
// them only) is explained by the leaf's uplinks, as its pairs are. Returns how many.
int Explainer::clear_culprits_bad_only_with(std::size_t leaf) {
  std::vector<int> bad_on(units_.size(), 0), bad_elsewhere(units_.size(), 0);
  for (const FabricEdge& e : edges_) {
    if (!e.bad()) continue;
    for (auto [self, peer] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}})
      (leaf_of_[peer] == static_cast<int>(leaf) && leaf_of_[self] != static_cast<int>(leaf) ? bad_on
                                                                                            : bad_elsewhere)[self]++;
  }
  int cleared = 0;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (!culprit_[u] || bad_elsewhere[u] > 0 || bad_on[u] == 0) continue;
    clear(u);
    ++cleared;
    for (std::size_t e = 0; e < edges_.size(); ++e)
      if (edges_[e].bad() && (edges_[e].a == u || edges_[e].b == u)) out_.edge_explained[e] = true;
  }
  return cleared;
}

void Explainer::leaves(const FabricTopology& topology) {
  // A leaf per switch and rail (a rail-optimised fabric has a leaf per rail); units in order. A block
  // of the block form is a leaf: its hosts bad together are its switch or its uplinks.
  word_ = topology.group_word();
  std::vector<Leaf> leaves;
  std::map<std::pair<std::string, std::string_view>, int> index;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    std::string name = topology.leaf(units_[u].host);
    if (name.empty()) continue;  // unplaced
    const auto [it, fresh] = index.try_emplace({name, units_[u].device}, static_cast<int>(leaves.size()));
    if (fresh) leaves.push_back(Leaf{std::move(name), units_[u].device, {}});
    leaf_of_[u] = it->second;
    leaves[static_cast<std::size_t>(it->second)].units.push_back(u);
  }
  for (std::size_t l = 0; l < leaves.size(); ++l) whole_leaf(leaves[l], l);
  while (uplink_of_one_leaf(leaves)) {
  }
}

// Groups of units that are good within (connected by good pairs) and bad across: a culprit
// whose group holds another culprit and whose bad pairs all leave it for other groups that a cut
// can part it from is on the wrong side of a cut, not at fault; the bad pairs between two such
// groups are one fabric path. Two slow nodes whose pair happens to pass look the same (at fleet
// scale, a few of the slow nodes' pairs with each other pass by noise): so the smaller group must
// be made of whole leaves (its hosts' leaf-mates are in it, or bad with every peer), or, unplaced,
// hold three units or more (two units are one good pair, no more than noise gives two slow nodes).
void Explainer::cuts() {
  std::vector<std::size_t> parent(units_.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto root = [&](std::size_t u) {
    while (parent[u] != u) u = parent[u] = parent[parent[u]];
    return u;
  };
  for (const FabricEdge& e : edges_)
    if (!e.bad()) parent[root(e.a)] = root(e.b);
  std::vector<std::size_t> size(units_.size(), 0), culprits(units_.size(), 0);
  for (std::size_t u = 0; u < units_.size(); ++u) {
    ++size[root(u)];
    if (culprit_[u]) ++culprits[root(u)];
  }
  // A group one of whose leaves has hosts in another group (of two or more) is not whole leaves.
  std::vector<bool> placed(units_.size(), false), split(units_.size(), false);
  std::map<int, std::size_t> group_of_leaf;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (leaf_of_[u] < 0) continue;
    placed[root(u)] = true;
    if (size[root(u)] < 2) continue;
    const auto [it, fresh] = group_of_leaf.try_emplace(leaf_of_[u], root(u));
    if (!fresh && it->second != root(u)) split[it->second] = split[root(u)] = true;
  }
  auto cut_apart = [&](std::size_t x, std::size_t y) {
    if (x == y || size[x] < 2 || size[y] < 2) return false;
    const std::size_t smaller = size[x] <= size[y] ? x : y;
    return placed[smaller] ? !split[smaller] : size[smaller] >= 3;
  };
  std::vector<int> bad_pairs(units_.size(), 0), all_pairs(units_.size(), 0);
  for (const FabricEdge& e : edges_)
    for (const std::size_t u : {e.a, e.b}) {
      ++all_pairs[u];
      bad_pairs[u] += e.bad() ? 1 : 0;
    }
  std::vector<bool> leaves_only(units_.size(), true);  // per culprit: every bad pair crosses a cut
  for (const FabricEdge& e : edges_) {
    if (!e.bad()) continue;
    for (auto [self, peer] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}})
      if (!cut_apart(root(self), root(peer))) leaves_only[self] = false;
  }
  for (std::size_t u = 0; u < units_.size(); ++u)
    if (culprit_[u] && size[root(u)] >= 2 && culprits[root(u)] >= 2 && leaves_only[u]) clear(u);

  std::map<std::pair<std::size_t, std::size_t>, std::vector<std::size_t>> across;  // (group, group) -> bad pairs
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    if (!unexplained_bad(e)) continue;
    const std::size_t ra = root(edges_[e].a), rb = root(edges_[e].b);
    const std::size_t x = std::min(ra, rb), y = std::max(ra, rb);
    if (cut_apart(x, y)) across[{x, y}].push_back(e);
  }
  for (const auto& [groups, bad] : across) {
    // Two or more bad pairs from two or more units on each side (one unit bad with a few hosts of
    // another group is that unit's links), and every unit of the smaller group bad with most of its
    // peers: a sparse plan's good pairs leave small groups that a few bad pairs happen to join.
    std::set<std::size_t> ends;
    for (std::size_t e : bad) ends.insert({edges_[e].a, edges_[e].b});
    const auto on_first =
        std::count_if(ends.begin(), ends.end(), [&](std::size_t u) { return root(u) == groups.first; });
    if (on_first < 2 || static_cast<std::ptrdiff_t>(ends.size()) - on_first < 2) continue;
    const std::size_t smaller = size[groups.first] <= size[groups.second] ? groups.first : groups.second;
    bool cut_off = true;
    for (std::size_t u = 0; u < units_.size() && cut_off; ++u)
      if (root(u) == smaller) cut_off = is_majority(bad_pairs[u], all_pairs[u]);
    if (!cut_off) continue;
    std::vector<std::string> sides[2];
    std::set<std::string_view> devices;
    for (std::size_t u = 0; u < units_.size(); ++u) {
      if (root(u) == groups.first) sides[0].emplace_back(units_[u].host);
      if (root(u) == groups.second) sides[1].emplace_back(units_[u].host);
    }
    std::vector<const FabricEdge*> pairs;
    for (std::size_t e : bad) {
      pairs.push_back(&edges_[e]);
      out_.edge_explained[e] = true;
      devices.insert(units_[edges_[e].a].device);
    }
    std::string first = compress_hostlist(sides[0]), second = compress_hostlist(sides[1]);
    if (second < first) std::swap(first, second);
    const std::string rail = devices.size() == 1 ? rail_text(*devices.begin()) : std::string();
    const std::string finding = "pairs across these groups are bad (" + std::to_string(bad.size()) +
                                " measured, every one), pairs within each good" + rail +
                                ": a fabric path between them (a switch or uplink; --topology FILE names it)";
    out_.blames.push_back(fabric_blame(Entity::path(first, second), ReasonCode::FABRIC_PATH_BAD, pairs, finding));
  }
}

}  // namespace

FabricExplanation explain_by_fabric(const std::vector<FabricUnit>& units, const std::vector<FabricEdge>& edges,
                                    const FabricTopology* topology) {
  Explainer explainer(units, edges);
  if (topology) explainer.leaves(*topology);
  explainer.cuts();
  return explainer.take();
}

}  // namespace ibgpu
