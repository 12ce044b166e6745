#include "health/localise.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "health/thresholds.h"

namespace ibgpu {

namespace {

// Host and rail, by reference into the observations: no string is built per lookup.
struct UnitKey {
  std::string_view host, device;
  bool operator==(const UnitKey&) const = default;
  bool operator<(const UnitKey& o) const { return host != o.host ? host < o.host : device < o.device; }
};
UnitKey unit_key(const Endpoint& e) { return {e.host, e.device}; }

std::size_t mix(std::size_t h, std::string_view s) {
  return h ^ (std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
struct UnitKeyHash {
  std::size_t operator()(const UnitKey& k) const { return mix(mix(0, k.host), k.device); }
};
struct EdgeKey {
  std::string_view group;
  UnitKey a, b;
  bool operator==(const EdgeKey&) const = default;
};
struct EdgeKeyHash {
  std::size_t operator()(const EdgeKey& k) const {
    return mix(mix(mix(mix(mix(0, k.group), k.a.host), k.a.device), k.b.host), k.b.device);
  }
};

using Observations = std::vector<const PairObservation*>;

// One observation per (group, unit pair): re-tests of one rank pair fold into
// the mildest (a pair is bad only when every measurement of it is bad), and
// the rank pairs between the same two units into the worst of them (peers are
// counted once). One hash lookup per observation: a fleet has ~10^5 of them.
Observations merge_observations(const std::vector<PairObservation>& observations) {
  struct RankPair {
    int rank_a, rank_b;
    const PairObservation* mildest;
    std::size_t next;  // the edge's next rank pair, in order of first mention; npos at the end
  };
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::vector<RankPair> rank_pairs;
  std::vector<std::size_t> edges;  // each edge's first rank pair, in order of first mention
  std::unordered_map<EdgeKey, std::size_t, EdgeKeyHash> index;
  rank_pairs.reserve(observations.size());
  edges.reserve(observations.size());
  index.reserve(observations.size());
  for (const auto& o : observations) {
    EdgeKey key{o.group, unit_key(o.a), unit_key(o.b)};
    int rank_a = o.a.rank, rank_b = o.b.rank;
    if (key.b < key.a) {
      std::swap(key.a, key.b);
      std::swap(rank_a, rank_b);
    }
    auto [it, fresh] = index.try_emplace(key, edges.size());
    if (fresh) {
      edges.push_back(rank_pairs.size());
      rank_pairs.push_back(RankPair{rank_a, rank_b, &o, npos});
      continue;
    }
    auto same_ranks = [&](const RankPair& r) { return r.rank_a == rank_a && r.rank_b == rank_b; };
    std::size_t i = edges[it->second];
    while (!same_ranks(rank_pairs[i]) && rank_pairs[i].next != npos) i = rank_pairs[i].next;
    if (same_ranks(rank_pairs[i])) {
      if (o.state < rank_pairs[i].mildest->state) rank_pairs[i].mildest = &o;
    } else {
      rank_pairs[i].next = rank_pairs.size();
      rank_pairs.push_back(RankPair{rank_a, rank_b, &o, npos});
    }
  }
  Observations merged;
  merged.reserve(edges.size());
  for (std::size_t first : edges) {
    const PairObservation* worst_pair = rank_pairs[first].mildest;
    for (std::size_t i = rank_pairs[first].next; i != npos; i = rank_pairs[i].next)
      if (rank_pairs[i].mildest->state > worst_pair->state) worst_pair = rank_pairs[i].mildest;
    merged.push_back(worst_pair);
  }
  return merged;
}

struct Unit {
  const Endpoint* endpoint;  // into the observations
  int bad = 0, total = 0;
  int bad_with_good = 0, total_with_good = 0;
  bool candidate = false, culprit = false;
  std::vector<std::size_t> bad_pairs = {};  // indices into the merged observations
};

Reason summarise(const std::string& who, const Unit& u, const Observations& pairs, HealthState& state) {
  // The worst bad pair gives the code and threshold, the median of the bad
  // values the figure: one reason per culprit, however many peers it has.
  const PairObservation* worst_pair = nullptr;
  std::vector<double> values;
  for (std::size_t i : u.bad_pairs) {
    const PairObservation& o = *pairs[i];
    if (!worst_pair || o.state > worst_pair->state) worst_pair = &o;
    if (o.reason && o.reason->value) values.push_back(*o.reason->value);
  }
  state = worst_pair->state;
  Reason r = worst_pair->reason.value_or(Reason{"PAIR_BAD", "", worst_pair->group, std::nullopt, std::nullopt});
  std::optional<double> median;
  if (!values.empty()) {
    const auto mid = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
    std::nth_element(values.begin(), mid, values.end());
    median = *mid;
  }
  r.message = who + " bad with " + std::to_string(u.bad) + " of " + std::to_string(u.total) + " peers" +
              (median ? " (median " + format_value(*median) + ")" : "") + "; e.g. " + r.message;
  r.value = median ? median : r.value;
  return r;
}

void localise_group(const std::vector<std::size_t>& members, const Observations& pairs,
                    std::vector<Blame>& out) {
  std::vector<Unit> units;
  std::unordered_map<UnitKey, std::size_t, UnitKeyHash> unit_index;
  std::vector<std::pair<std::size_t, std::size_t>> ends(members.size());
  units.reserve(members.size());
  unit_index.reserve(members.size());
  auto unit_of = [&](const Endpoint& e) {
    auto [it, fresh] = unit_index.try_emplace(unit_key(e), units.size());
    if (fresh) units.push_back(Unit{&e});
    return it->second;
  };
  for (std::size_t m = 0; m < members.size(); ++m) {
    const PairObservation& o = (*pairs[members[m]]);
    ends[m] = {unit_of(o.a), unit_of(o.b)};
    const bool bad = o.state != HealthState::healthy;
    for (std::size_t u : {ends[m].first, ends[m].second}) {
      units[u].total++;
      if (bad) {
        units[u].bad++;
        units[u].bad_pairs.push_back(members[m]);
      }
    }
  }
  for (auto& u : units) u.candidate = u.bad >= 2 && 2 * u.bad > u.total;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const bool bad = (*pairs[members[m]]).state != HealthState::healthy;
    auto [a, b] = ends[m];
    for (auto [self, peer] : {std::pair{a, b}, std::pair{b, a}}) {
      if (units[peer].candidate) continue;
      units[self].total_with_good++;
      if (bad) units[self].bad_with_good++;
    }
  }
  for (auto& u : units)
    u.culprit = u.total_with_good > 0 ? (u.bad_with_good >= 2 && 2 * u.bad_with_good > u.total_with_good)
                                      : (u.bad >= 2 && u.bad == u.total);

  // A host all of whose measured rails are culprits is itself the culprit.
  // host -> its units, in order of first mention; views into the observations.
  std::unordered_map<std::string_view, std::size_t> host_index;
  std::vector<std::pair<std::string_view, std::vector<std::size_t>>> rails_of;
  host_index.reserve(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) {
    auto [it, fresh] = host_index.try_emplace(units[i].endpoint->host, rails_of.size());
    if (fresh) rails_of.emplace_back(units[i].endpoint->host, std::vector<std::size_t>{});
    rails_of[it->second].second.push_back(i);
  }
  for (const auto& [host_view, rails] : rails_of) {
    const std::string host(host_view);
    const auto culprits = std::count_if(rails.begin(), rails.end(), [&](std::size_t i) { return units[i].culprit; });
    const auto measured = static_cast<std::ptrdiff_t>(rails.size());
    if (culprits == 0) continue;
    if (culprits == measured) {
      const Endpoint whole_host{host, ""};
      Unit whole{&whole_host};
      for (std::size_t i : rails) {
        const Unit& u = units[i];
        whole.bad += u.bad;
        whole.total += u.total;
        whole.bad_pairs.insert(whole.bad_pairs.end(), u.bad_pairs.begin(), u.bad_pairs.end());
      }
      Blame b{{"node", host}, HealthState::healthy, {}};
      b.reason = summarise("node " + host + (measured > 1 ? " (every rail)" : ""), whole, pairs, b.state);
      out.push_back(std::move(b));
      continue;
    }
    for (std::size_t i : rails) {
      const Unit& u = units[i];
      if (!u.culprit) continue;
      Blame b{{"hca_port", host + "/" + u.endpoint->device}, HealthState::healthy, {}};
      b.reason = summarise("rail " + host + "/" + u.endpoint->device, u, pairs, b.state);
      out.push_back(std::move(b));
    }
  }
  for (std::size_t m = 0; m < members.size(); ++m) {
    const PairObservation& o = (*pairs[members[m]]);
    if (o.state == HealthState::healthy || units[ends[m].first].culprit || units[ends[m].second].culprit) continue;
    Blame b{{"link", o.a.host + "<->" + o.b.host}, o.state, {}};
    b.reason = o.reason.value_or(Reason{"PAIR_BAD", "", o.group, std::nullopt, std::nullopt});
    const std::string rails = o.a.device.empty() ? "" : " (" + o.a.device + "<->" + o.b.device + ")";
    b.reason.message = "bad only together" + rails + ": " + b.reason.message;
    out.push_back(std::move(b));
  }
}

}  // namespace

std::vector<Blame> localise(const std::vector<PairObservation>& observations) {
  const Observations pairs = merge_observations(observations);
  std::vector<std::string_view> group_order;
  std::unordered_map<std::string_view, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    auto [it, fresh] = groups.try_emplace(pairs[i]->group);
    if (fresh) group_order.push_back(pairs[i]->group);
    it->second.push_back(i);
  }
  std::vector<Blame> out;
  for (const auto& g : group_order) {
    const auto& members = groups[g];
    const bool any_bad = std::any_of(members.begin(), members.end(),
                                     [&](std::size_t i) { return pairs[i]->state != HealthState::healthy; });
    if (any_bad) localise_group(members, pairs, out);
  }
  return out;
}

std::vector<std::string> known_good_hosts(const std::vector<PairObservation>& observations,
                                          const std::vector<Blame>& blames) {
  std::unordered_set<std::string> blamed;
  for (const auto& b : blames) {
    const std::string& id = b.entity.id;
    if (b.entity.kind == "link") {
      const auto sep = id.find("<->");
      blamed.insert(id.substr(0, sep));
      blamed.insert(id.substr(sep + 3));
    } else {
      blamed.insert(id.substr(0, id.find('/')));
    }
  }
  std::vector<std::string> good;
  std::unordered_set<std::string> seen;
  for (const auto& o : observations)
    for (const auto* h : {&o.a.host, &o.b.host})
      if (!blamed.count(*h) && seen.insert(*h).second) good.push_back(*h);
  return good;
}

std::vector<PairRound> plan_retests(const std::vector<HostPair>& suspect_pairs,
                                    const std::vector<std::string>& known_good, int peers_per_suspect) {
  std::vector<PairRound> rounds;
  // The suspect pairs themselves, each host once per round; a host's pairs
  // land in increasing rounds, so the later of its ends' next free rounds is free.
  std::unordered_map<std::string, std::size_t> next_free;
  std::vector<std::string> suspects;
  std::unordered_set<std::string> is_suspect;
  for (const auto& [a, b] : suspect_pairs) {
    const std::size_t r = std::max(next_free[a], next_free[b]);
    if (r >= rounds.size()) rounds.resize(r + 1);
    rounds[r].pairs.emplace_back(a, b);
    next_free[a] = next_free[b] = r + 1;
    for (const auto* h : {&a, &b})
      if (is_suspect.insert(*h).second) suspects.push_back(*h);
  }
  std::vector<std::string> good;
  for (const auto& g : known_good)
    if (!is_suspect.count(g)) good.push_back(g);
  if (good.empty() || suspects.empty()) return rounds;
  const std::size_t n_good = good.size();
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max(0, peers_per_suspect)), n_good);
  // Round j of chunk c pairs the chunk's i-th suspect with good[(i + j + c) % G]:
  // distinct good hosts within a round (i < G) and across a suspect's rounds (j < G).
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t start = 0, c = 0; start < suspects.size(); start += n_good, ++c) {
      PairRound round;
      for (std::size_t i = 0; i < n_good && start + i < suspects.size(); ++i)
        round.pairs.emplace_back(suspects[start + i], good[(i + j + c) % n_good]);
      rounds.push_back(std::move(round));
    }
  return rounds;
}

}  // namespace ibgpu
