#include "health/localise.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/statistics.h"
#include "health/confidence.h"
#include "health/fabric.h"
#include "health/thresholds.h"

namespace ibgpu {

namespace {

// A unit is what may be at fault: a host's rail, or the host when no rail is known.
struct Unit {
  std::string_view host, device;
  bool operator==(const Unit&) const = default;
  auto operator<=>(const Unit&) const = default;
};
Unit unit_of(const Endpoint& e) { return {e.host, e.device}; }

// Hashes for the plain keys localisation indexes by.
std::size_t combined(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15 + (seed << 6) + (seed >> 2));
}
struct UnitHash {
  std::size_t operator()(const Unit& u) const {
    return combined(std::hash<std::string_view>{}(u.host), std::hash<std::string_view>{}(u.device));
  }
};

// Dense indices of keys, in order of first mention.
template <typename Key, typename Hash = std::hash<Key>>
class Indices {
 public:
  std::size_t of(const Key& key) { return index_.try_emplace(key, index_.size()).first->second; }
  std::size_t size() const { return index_.size(); }

 private:
  std::unordered_map<Key, std::size_t, Hash> index_;
};

// The edges of a run as pair_edges() folds them, with what localisation needs of each: its group
// and the units of its judged observation's ends, as positions in order of first mention.
struct IndexedEdges {
  std::vector<PairEdge> edges;
  std::vector<std::size_t> group;                         // per edge
  std::vector<std::pair<std::size_t, std::size_t>> ends;  // per edge: the units of judged->a and judged->b
  std::size_t units = 0;
};
IndexedEdges indexed_edges(const std::vector<PairObservation>& observations, std::deque<PairObservation>& made);

// How far a bad observation falls short of what the pair should read, in log space: of the fleet
// reference when known, else of its limit; none without the figures.
std::optional<double> log_deficit(const PairObservation& o) {
  if (!o.reason || !o.reason->value || !o.reason->threshold || *o.reason->value <= 0 || *o.reason->threshold <= 0)
    return std::nullopt;
  const double should = o.reference && *o.reference > 0 ? *o.reference : *o.reason->threshold;
  return std::abs(std::log(*o.reason->value / should));
}

// A re-tested pair bad every time reproduced its deficit when the mildest
// deficit is larger than its measurements disagree (in log space): 300x and
// then 3x a latency reference is a noisy pair, 0.30 and 0.32 of a bandwidth
// reference a bad one. The deficit is the shortfall from the reference, not
// from the limit: a pair at half its peers reads 0.36 and then 0.50 of the
// reference under noise of sigma 0.15, and just under a limit at 0.63 the
// second figure would have cleared it. Where the run's noise is known, every
// figure must also lie beyond the limit by more than the noise of a mean of
// that many: a figure that noise puts just over the line is no confirmation,
// after another just over it or after a transient far beyond it.
bool reproduced(const std::vector<const PairObservation*>& bad_every_time) {
  if (bad_every_time.size() < 2) return true;
  double mildest = HUGE_VAL, low = HUGE_VAL, high = -HUGE_VAL, least_beyond_limit = HUGE_VAL, sigma = 0;
  for (const PairObservation* o : bad_every_time) {
    const auto deficit = log_deficit(*o);
    if (!deficit) return true;  // an outcome (timeout, error): no figure to disagree
    mildest = std::min(mildest, *deficit);
    low = std::min(low, std::log(*o->reason->value));
    high = std::max(high, std::log(*o->reason->value));
    least_beyond_limit = std::min(least_beyond_limit, std::abs(std::log(*o->reason->value / *o->reason->threshold)));
    sigma = std::max(sigma, o->sigma);
  }
  const double n = static_cast<double>(bad_every_time.size());
  return mildest > high - low && least_beyond_limit > sigma / std::sqrt(n);
}

// The reasons of bad observations, null where one has none (an outcome without a reason).
std::vector<const Reason*> reasons_of(const std::vector<const PairObservation*>& bad) {
  std::vector<const Reason*> out;
  for (const PairObservation* o : bad) out.push_back(o->reason ? &*o->reason : nullptr);
  return out;
}

Reason reason_or_default(const PairObservation& o) {
  return o.reason ? *o.reason : Reason{ReasonCode::PAIR_BAD, "", std::string(o.group), std::nullopt, std::nullopt};
}

struct UnitCount {
  Unit unit;
  int bad = 0, total = 0;
  int bad_with_good = 0, total_with_good = 0;
  bool candidate = false, culprit = false;
  std::vector<const PairObservation*> bad_pairs = {};
};

// The worst bad pair gives the code and threshold, the median of the bad
// values the figure: one reason per culprit, however many peers it has.
Reason summarise(const std::string& who, const UnitCount& u, HealthState& state) {
  const PairObservation* worst_pair = nullptr;
  std::vector<double> values;
  for (const PairObservation* o : u.bad_pairs) {
    if (!worst_pair || o->state > worst_pair->state) worst_pair = o;
    if (o->reason && o->reason->value) values.push_back(*o->reason->value);
  }
  state = worst_pair->state;
  Reason r = reason_or_default(*worst_pair);
  // As sure as its bad pairs together (health/confidence.h), each once (a pair between two rails of
  // the host is in its list twice).
  std::vector<const PairObservation*> each = u.bad_pairs;
  std::sort(each.begin(), each.end());
  each.erase(std::unique(each.begin(), each.end()), each.end());
  r.confidence = combined_confidence(reasons_of(each));
  const std::optional<double> median = lower_median(std::move(values));
  r.message = who + " bad with " + std::to_string(u.bad) + " of " + std::to_string(u.total) + " peers" +
              (median ? " (median " + format_value(*median) + ")" : "") + "; e.g. " + r.message;
  r.value = median ? median : r.value;
  // The cited pair's ports as seen from the culprit: its own end first.
  // (A rail's end is its host and port: a pair within one host names the rail by its port.)
  if (unit_of(worst_pair->b) == u.unit && !(unit_of(worst_pair->a) == u.unit)) std::swap(r.port, r.peer_port);
  return r;
}

// The fabric's blames (switch, uplink, path) go to `out`; the culprits it explains are cleared;
// per edge, whether it explains the pair.
std::vector<bool> explain_by_fabric_into(std::vector<UnitCount>& units, const std::vector<PairEdge>& edges,
                                         const std::vector<std::pair<std::size_t, std::size_t>>& ends,
                                         const FabricTopology* topology, std::vector<Blame>& out) {
  std::unordered_map<std::string_view, std::pair<int, int>> rails;  // per host: measured, culprits
  for (const auto& u : units) {
    auto& [measured, culprits] = rails[u.unit.host];
    ++measured;
    culprits += u.culprit ? 1 : 0;
  }
  std::vector<FabricUnit> fabric_units;
  for (const auto& u : units) {
    const auto [measured, culprits] = rails[u.unit.host];
    fabric_units.push_back(FabricUnit{u.unit.host, u.unit.device, u.culprit, measured > 1 && culprits == measured,
                                      measured > 1 && host_is_culprit(culprits, measured)});
  }
  std::vector<FabricEdge> fabric_edges;
  for (std::size_t m = 0; m < edges.size(); ++m)
    fabric_edges.push_back(FabricEdge{ends[m].first, ends[m].second, edges[m].judged});
  FabricExplanation found = explain_by_fabric(fabric_units, fabric_edges, topology);
  for (std::size_t u = 0; u < units.size(); ++u)
    if (found.unit_explained[u]) units[u].culprit = false;
  for (auto& b : found.blames) out.push_back(std::move(b));
  return found.edge_explained;
}

// One group's edges (one kind of measurement) to its culprits.
// The link verdict's id of a pair of hosts (core/verdict.h).
Entity link_of(const PairObservation& o) { return Entity::link(o.a.host, o.b.host); }

// `members`: the group's edges, as positions in `all`. `fabric_explained`: the links of the pairs a
// fabric blame explained, for the other groups.
void localise_group(const IndexedEdges& all, const std::vector<std::size_t>& members, const FabricTopology* topology,
                    std::vector<Blame>& out, std::set<Entity>& fabric_explained) {
  // Units in order of first mention, and by their position in the run.
  std::vector<UnitCount> units;
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> unit_index(all.units, kNone);
  auto count_of = [&](std::size_t unit, const Endpoint& e) {
    if (unit_index[unit] == kNone) {
      unit_index[unit] = units.size();
      units.push_back(UnitCount{unit_of(e)});
    }
    return unit_index[unit];
  };
  std::vector<PairEdge> edges;
  std::vector<std::pair<std::size_t, std::size_t>> ends;
  edges.reserve(members.size());
  ends.reserve(members.size());
  for (const std::size_t m : members) {
    edges.push_back(all.edges[m]);
    const PairObservation* o = all.edges[m].judged;
    ends.emplace_back(count_of(all.ends[m].first, o->a), count_of(all.ends[m].second, o->b));
    const bool bad = o->state != HealthState::healthy;
    for (const std::size_t u : {ends.back().first, ends.back().second}) {
      units[u].total++;
      if (bad) {
        units[u].bad++;
        units[u].bad_pairs.push_back(o);
      }
    }
  }
  // Suspects first; then each unit judged by its pairs with peers that are not suspects.
  for (auto& u : units) u.candidate = bad_with_most_peers(u.bad, u.total);
  for (std::size_t m = 0; m < edges.size(); ++m) {
    const bool bad = edges[m].judged->state != HealthState::healthy;
    const auto [a, b] = ends[m];
    for (auto [self, peer] : {std::pair{a, b}, std::pair{b, a}}) {
      if (units[peer].candidate) continue;
      units[self].total_with_good++;
      if (bad) units[self].bad_with_good++;
    }
  }
  // Fewer than two such peers (a small group, where the other suspects may be a slow host's
  // peers or a noisy pair) cannot confirm a majority: then the unit must be bad with every peer,
  // the one such peer included.
  for (auto& u : units)
    u.culprit = u.total_with_good >= 2 ? bad_with_most_peers(u.bad_with_good, u.total_with_good)
                                       : u.bad >= 2 && u.bad == u.total && u.bad_with_good == u.total_with_good;
  const std::vector<bool> explained_pairs = explain_by_fabric_into(units, edges, ends, topology, out);
  for (std::size_t m = 0; m < edges.size(); ++m)
    if (explained_pairs[m]) fabric_explained.insert(link_of(*edges[m].judged));

  // A host whose rails are culprits as host_is_culprit says is itself the culprit. The fabric came
  // first: leaf switches of several rails failing together (one power feed) cleared their rails.
  // Hosts and their rails in order of first mention.
  std::vector<std::vector<const UnitCount*>> rails_of;  // per host, in order of first mention
  Indices<std::string_view> hosts;
  for (const auto& u : units) {
    const std::size_t h = hosts.of(u.unit.host);
    if (h == rails_of.size()) rails_of.emplace_back();
    rails_of[h].push_back(&u);
  }
  for (const auto& rails : rails_of) {
    const std::string name(rails.front()->unit.host);
    const auto culprits = std::count_if(rails.begin(), rails.end(), [](const UnitCount* u) { return u->culprit; });
    const auto measured = static_cast<std::ptrdiff_t>(rails.size());
    if (culprits == 0) continue;
    if (host_is_culprit(culprits, measured)) {
      UnitCount whole{rails.front()->unit};
      for (const UnitCount* u : rails) {
        whole.bad += u->bad;
        whole.total += u->total;
        whole.bad_pairs.insert(whole.bad_pairs.end(), u->bad_pairs.begin(), u->bad_pairs.end());
      }
      Blame b{Entity::node(name), HealthState::healthy, {}};
      const std::string rails_text =
          culprits == measured ? " (every rail)"
                               : " (" + std::to_string(culprits) + " of " + std::to_string(measured) + " rails)";
      b.reason = summarise("node " + name + (measured > 1 ? rails_text : ""), whole, b.state);
      b.bad_peers = std::numeric_limits<int>::max();
      for (const UnitCount* u : rails)
        if (u->culprit) b.bad_peers = std::min(b.bad_peers, u->bad_with_good);
      out.push_back(std::move(b));
      continue;
    }
    for (const UnitCount* u : rails) {
      if (!u->culprit) continue;
      Blame b{Entity::port(name, u->unit.device), HealthState::healthy, {}};
      b.reason = summarise("rail " + b.entity.id(), *u, b.state);
      b.bad_peers = u->bad_with_good;
      out.push_back(std::move(b));
    }
  }
  // What no culprit explains is the link's, when a re-test confirmed it or none could.
  for (std::size_t m = 0; m < edges.size(); ++m) {
    const PairObservation& o = *edges[m].judged;
    if (o.state == HealthState::healthy || edges[m].unconfirmed || explained_pairs[m] || units[ends[m].first].culprit ||
        units[ends[m].second].culprit)
      continue;
    Blame b{link_of(o), o.state, reason_or_default(o)};
    const std::string rails =
        o.a.device.empty() ? "" : " (" + std::string(o.a.device) + "<->" + std::string(o.b.device) + ")";
    b.reason.message = "bad only together" + rails + ": " + b.reason.message;
    out.push_back(std::move(b));
  }
}

}  // namespace

namespace {

IndexedEdges indexed_edges(const std::vector<PairObservation>& observations, std::deque<PairObservation>& made) {
  // The observations of one rank pair of an edge. Only a pair bad every time is judged by all
  // of them (reproduced): the list is kept while that holds, from the second observation on.
  struct RankPair {
    int lo, hi;  // ranks at the edge's lower and higher unit
    const PairObservation* mildest;
    std::pair<std::size_t, std::size_t> mildest_ends;  // the units of its a and b
    int seen = 1;
    std::vector<const PairObservation*> bad_every_time = {};
  };
  // An edge's rank pairs in order of first mention: nearly always one, kept without an allocation.
  struct Edge {
    std::size_t group;
    RankPair first;
    std::vector<RankPair> more = {};
  };
  // The edges by group and lower unit, with their higher unit: a unit meets a few dozen peers, so
  // a short list searched in order serves, not a map of a fleet's million edges.
  struct Peer {
    std::size_t hi, edge;
  };
  std::vector<std::vector<std::vector<Peer>>> peers_of;  // [group][lower unit]
  Indices<Unit, UnitHash> units;
  Indices<std::string_view> groups;
  std::vector<Edge> edges;  // in order of first mention
  edges.reserve(observations.size());
  // Consecutive observations are often of one pair (its sizes, its latency's median and tail):
  // the previous one's units and group are compared before any is looked up.
  const PairObservation* previous = nullptr;
  std::size_t group = 0;
  std::pair<std::size_t, std::size_t> ends;
  for (const auto& o : observations) {
    if (!previous || o.group != previous->group) group = groups.of(o.group);
    if (!previous || unit_of(o.a) != unit_of(previous->a) || unit_of(o.b) != unit_of(previous->b))
      ends = {units.of(unit_of(o.a)), units.of(unit_of(o.b))};
    previous = &o;
    // Both orders of a pair are one edge: its ends ordered by their units' positions.
    const bool swap = ends.second < ends.first;
    const std::size_t lo = swap ? ends.second : ends.first, hi = swap ? ends.first : ends.second;
    const int lo_rank = swap ? o.b.rank : o.a.rank, hi_rank = swap ? o.a.rank : o.b.rank;
    if (group == peers_of.size()) peers_of.emplace_back();
    auto& of_group = peers_of[group];
    if (of_group.size() <= lo) of_group.resize(lo + 1);
    auto& peers = of_group[lo];
    const auto known = std::find_if(peers.begin(), peers.end(), [&](const Peer& p) { return p.hi == hi; });
    if (known == peers.end()) {
      peers.push_back(Peer{hi, edges.size()});
      edges.push_back(Edge{group, RankPair{lo_rank, hi_rank, &o, ends}});
      continue;
    }
    Edge& edge = edges[known->edge];
    auto is_same = [&](const RankPair& r) { return r.lo == lo_rank && r.hi == hi_rank; };
    RankPair* same = &edge.first;
    if (!is_same(edge.first)) {
      const auto found = std::find_if(edge.more.begin(), edge.more.end(), is_same);
      if (found == edge.more.end()) {
        edge.more.push_back(RankPair{lo_rank, hi_rank, &o, ends});
        continue;
      }
      same = &*found;
    }
    const PairObservation* first = same->mildest;  // while seen once
    if (o.state < same->mildest->state) {
      same->mildest = &o;
      same->mildest_ends = ends;
    }
    ++same->seen;
    if (same->mildest->state == HealthState::healthy) continue;  // not bad every time
    if (same->seen == 2) same->bad_every_time.push_back(first);
    same->bad_every_time.push_back(&o);
  }
  const bool run_retested =
      std::any_of(observations.begin(), observations.end(), [](const PairObservation& o) { return o.retest; });
  IndexedEdges out;
  out.units = units.size();
  out.edges.reserve(edges.size());
  out.group.reserve(edges.size());
  out.ends.reserve(edges.size());
  for (auto& edge : edges) {
    PairEdge worst_pair;
    std::pair<std::size_t, std::size_t> worst_ends;
    auto fold = [&](RankPair& r) {
      if (r.mildest->state != HealthState::healthy && r.seen > 1) {
        if (!reproduced(r.bad_every_time)) {
          made.push_back(PairObservation{r.mildest->group, r.mildest->a, r.mildest->b, HealthState::healthy, {}});
          r.mildest = &made.back();
        } else if (const auto sure = combined_confidence(reasons_of(r.bad_every_time)); sure && r.mildest->reason) {
          made.push_back(*r.mildest);  // the re-tests confirmed it: as sure as they are together
          made.back().reason->confidence = sure;
          r.mildest = &made.back();
        }
      }
      const PairEdge judged{r.mildest, run_retested && r.mildest->state == HealthState::degraded && r.seen == 1};
      if (!worst_pair.judged || judged.judged->state > worst_pair.judged->state ||
          (judged.judged->state == worst_pair.judged->state && worst_pair.unconfirmed && !judged.unconfirmed)) {
        worst_pair = judged;
        worst_ends = r.mildest_ends;
      }
    };
    fold(edge.first);
    for (RankPair& r : edge.more) fold(r);
    out.edges.push_back(worst_pair);
    out.group.push_back(edge.group);
    out.ends.push_back(worst_ends);
  }
  return out;
}

}  // namespace

std::vector<PairEdge> pair_edges(const std::vector<PairObservation>& observations, std::deque<PairObservation>& made) {
  return indexed_edges(observations, made).edges;
}

std::vector<Blame> localise(const std::vector<PairObservation>& observations, const FabricTopology* topology) {
  // Each group's edges, groups in order of first mention; only groups with a bad edge.
  std::deque<PairObservation> made;  // re-tested pairs: cleared, or confirmed and as sure as their measurements
  const IndexedEdges all = indexed_edges(observations, made);
  std::vector<std::vector<std::size_t>> edges_by_group;  // groups in order of first mention
  for (std::size_t e = 0; e < all.edges.size(); ++e) {
    if (all.group[e] == edges_by_group.size()) edges_by_group.emplace_back();
    edges_by_group[all.group[e]].push_back(e);
  }
  std::vector<Blame> out;
  std::set<Entity> fabric_explained;
  for (const auto& members : edges_by_group) {
    if (std::any_of(members.begin(), members.end(),
                    [&](std::size_t e) { return all.edges[e].judged->state != HealthState::healthy; }))
      localise_group(all, members, topology, out, fabric_explained);
  }
  // A pair a fabric fault explains in one kind of measurement is that fault's in every kind: the
  // bandwidth of every pair over a slow uplink blames the uplink, and the latency of the one of
  // them that crossed its limit too is no finding on its link.
  std::erase_if(out, [&](const Blame& b) { return fabric_explained.count(b.entity) > 0; });
  return out;
}

std::vector<std::string> known_good_hosts(const std::vector<PairObservation>& observations,
                                          const std::vector<Blame>& blames) {
  std::set<std::string_view> blamed;  // views into the blames' entities: hosts, and the ends of links
  for (const auto& b : blames) {
    if (is_fabric(b.entity.kind())) continue;
    for (const std::string_view host : {b.entity.host(), b.entity.peer()})
      if (!host.empty()) blamed.insert(host);
  }
  // The hosts in order of first mention.
  std::vector<std::string> good;
  std::set<std::string_view> seen;
  for (const auto& o : observations)
    for (const std::string_view h : {o.a.host, o.b.host})
      if (seen.insert(h).second && !blamed.count(h)) good.emplace_back(h);
  return good;
}

std::vector<PairRound> plan_retests(const std::vector<HostPair>& suspect_pairs,
                                    const std::vector<std::string>& known_good, int peers_per_suspect) {
  const std::unordered_set<std::string> cleared(known_good.begin(), known_good.end());
  // The suspects: the ends of suspect pairs that the run has not cleared, most suspect first
  // (in the most suspect pairs; ties in order of mention).
  std::vector<std::string> suspects;
  std::unordered_map<std::string, int> times_suspect;
  for (const auto& [a, b] : suspect_pairs)
    for (const auto* h : {&a, &b})
      if (!cleared.count(*h) && times_suspect[*h]++ == 0) suspects.push_back(*h);
  std::stable_sort(suspects.begin(), suspects.end(),
                   [&](const std::string& x, const std::string& y) { return times_suspect[x] > times_suspect[y]; });
  std::set<HostPair> suspect_with;  // both orders
  for (const auto& [a, b] : suspect_pairs) {
    suspect_with.emplace(a, b);
    suspect_with.emplace(b, a);
  }
  std::vector<std::string> partners;
  for (const auto& g : known_good)
    if (!times_suspect.count(g)) partners.push_back(g);

  // What to measure: a suspect pair with a cleared end is explained by its other end, which
  // meets cleared partners; a pair of two suspects is measured again (a link, or two culprits).
  // Then each suspect with `peers_per_suspect` distinct partners.
  std::vector<HostPair> again;
  std::unordered_map<std::string, int> pair_load;  // re-measured pairs per host
  for (const auto& [a, b] : suspect_pairs)
    if (!cleared.count(a) && !cleared.count(b)) {
      again.emplace_back(a, b);
      ++pair_load[a];
      ++pair_load[b];
    }
  const std::size_t k =
      partners.empty()
          ? 0
          : std::min<std::size_t>(static_cast<std::size_t>(std::max(0, peers_per_suspect)), partners.size());
  // A pass is as long as its busiest suspect needs, or as the partners need to meet every
  // suspect; when few hosts are cleared, at most kMaxPartnerRounds: a noisy fleet does not get
  // a pass of hundreds of rounds, and the most suspect are re-paired first.
  std::size_t busiest = 0;
  for (const auto& s : suspects) busiest = std::max(busiest, static_cast<std::size_t>(pair_load[s]) + k);
  const std::size_t partner_rounds =
      partners.empty() ? 0 : (k * suspects.size() + partners.size() - 1) / partners.size();
  const std::size_t cap = std::max(busiest, std::min(partner_rounds, static_cast<std::size_t>(kMaxPartnerRounds)));

  // First fit: each measurement in the earliest round where its hosts are free, side by side.
  std::vector<PairRound> rounds;
  std::vector<std::unordered_set<std::string>> busy;
  auto free_in = [&](std::size_t r, const std::string& h) { return r >= busy.size() || !busy[r].count(h); };
  auto place = [&](std::size_t r, const std::string& a, const std::string& b) {
    if (r >= rounds.size()) {
      rounds.resize(r + 1);
      busy.resize(r + 1);
    }
    rounds[r].pairs.emplace_back(a, b);
    busy[r].insert(a);
    busy[r].insert(b);
  };
  for (const auto& [a, b] : again) {
    std::size_t r = 0;
    while (!free_in(r, a) || !free_in(r, b)) ++r;
    place(r, a, b);
  }
  // Partners rotate, so each round's suspects meet different ones and the load spreads.
  std::unordered_map<std::string, std::unordered_set<std::string>> met;
  std::size_t next_partner = 0;
  for (std::size_t j = 0; j < k; ++j)
    for (const auto& s : suspects)
      for (std::size_t r = 0; r < cap; ++r) {
        if (!free_in(r, s)) continue;
        // A partner it has not been measured with yet tells more; one it was bad with will do.
        std::optional<std::size_t> pick;
        for (const bool fresh_only : {true, false})
          for (std::size_t i = 0; i < partners.size() && !pick; ++i) {
            const std::size_t g = (next_partner + i) % partners.size();
            if (free_in(r, partners[g]) && !met[s].count(partners[g]) &&
                (!fresh_only || !suspect_with.count({s, partners[g]})))
              pick = g;
          }
        if (!pick) continue;
        place(r, s, partners[*pick]);
        met[s].insert(partners[*pick]);
        next_partner = *pick + 1;
        break;
      }
  return rounds;
}

}  // namespace ibgpu
