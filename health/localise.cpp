#include "health/localise.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "health/thresholds.h"

namespace ibgpu {

namespace {

// Dense ids for the names in the observations, in order of first mention:
// localisation then counts in arrays, not in maps keyed by strings.
class Ids {
 public:
  std::uint32_t of(std::string_view name) {
    auto [it, fresh] = index_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
    if (fresh) names_.push_back(name);
    return it->second;
  }
  std::string_view name(std::uint32_t id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string_view, std::uint32_t> index_;
  std::vector<std::string_view> names_;
};

// Units are hosts, or a host's rail when the observations name rails.
class Units {
 public:
  std::uint32_t of(const Endpoint& e) {
    const std::uint64_t key = std::uint64_t{hosts_.of(e.host)} << 32 | devices_.of(e.device);
    auto [it, fresh] = index_.try_emplace(key, static_cast<std::uint32_t>(host_.size()));
    if (fresh) {
      host_.push_back(static_cast<std::uint32_t>(key >> 32));
      device_.push_back(e.device);
    }
    return it->second;
  }
  std::size_t size() const { return host_.size(); }
  std::size_t hosts() const { return hosts_.size(); }
  std::uint32_t host_id(std::uint32_t unit) const { return host_[unit]; }
  std::string_view host(std::uint32_t unit) const { return hosts_.name(host_[unit]); }
  std::string_view device(std::uint32_t unit) const { return device_[unit]; }

 private:
  Ids hosts_, devices_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<std::uint32_t> host_;
  std::vector<std::string_view> device_;
};

// One observation per (group, unit pair), as a localisation edge.
struct Edge {
  const PairObservation* pair;
  std::uint32_t group, a, b;  // a and b: the units of pair->a and pair->b
};

// Re-tests of one rank pair fold into the mildest (a pair is bad only when
// every measurement of it is bad), and the rank pairs between the same two
// units into the worst of them (peers are counted once); ties go to the
// first mentioned. Edges come out in order of first mention. Sorting ids
// keeps this O(n log n) with no allocation per observation.
std::vector<Edge> merge_observations(const std::vector<PairObservation>& observations, Ids& groups, Units& units) {
  struct Seen {
    std::uint32_t group, lo, hi;  // lo <= hi: the edge, whichever end came first
    int rank_lo, rank_hi;
    std::uint32_t index;  // into observations
    std::uint32_t a, b;   // units of the observation's own ends
  };
  std::vector<Seen> seen;
  seen.reserve(observations.size());
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const PairObservation& o = observations[i];
    const std::uint32_t a = units.of(o.a), b = units.of(o.b);
    const bool swap = b < a;
    seen.push_back(Seen{groups.of(o.group), swap ? b : a, swap ? a : b, swap ? o.b.rank : o.a.rank,
                        swap ? o.a.rank : o.b.rank, static_cast<std::uint32_t>(i), a, b});
  }
  auto same_edge = [](const Seen& x, const Seen& y) { return x.group == y.group && x.lo == y.lo && x.hi == y.hi; };
  auto same_ranks = [](const Seen& x, const Seen& y) { return x.rank_lo == y.rank_lo && x.rank_hi == y.rank_hi; };
  std::sort(seen.begin(), seen.end(), [](const Seen& x, const Seen& y) {
    return std::tie(x.group, x.lo, x.hi, x.rank_lo, x.rank_hi, x.index) <
           std::tie(y.group, y.lo, y.hi, y.rank_lo, y.rank_hi, y.index);
  });
  std::vector<std::pair<std::uint32_t, Edge>> edges;  // first mention, edge
  edges.reserve(seen.size());
  for (std::size_t e = 0; e < seen.size();) {
    std::uint32_t edge_first = seen[e].index;
    const Seen* worst_pair = nullptr;
    std::uint32_t worst_first = 0;
    std::size_t r = e;
    for (; r < seen.size() && same_edge(seen[r], seen[e]);) {
      // One rank pair: its records in order of mention; the mildest, first on ties.
      const std::uint32_t first = seen[r].index;
      const Seen* mildest = &seen[r];
      std::size_t k = r + 1;
      for (; k < seen.size() && same_edge(seen[k], seen[r]) && same_ranks(seen[k], seen[r]); ++k)
        if (observations[seen[k].index].state < observations[mildest->index].state) mildest = &seen[k];
      const HealthState state = observations[mildest->index].state;
      if (!worst_pair || state > observations[worst_pair->index].state ||
          (state == observations[worst_pair->index].state && first < worst_first)) {
        worst_pair = mildest;
        worst_first = first;
      }
      edge_first = std::min(edge_first, first);
      r = k;
    }
    edges.emplace_back(edge_first,
                       Edge{&observations[worst_pair->index], worst_pair->group, worst_pair->a, worst_pair->b});
    e = r;
  }
  std::sort(edges.begin(), edges.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<Edge> out;
  out.reserve(edges.size());
  for (const auto& [first, edge] : edges) out.push_back(edge);
  return out;
}

struct Unit {
  std::uint32_t id;  // in Units
  int bad = 0, total = 0;
  int bad_with_good = 0, total_with_good = 0;
  bool candidate = false, culprit = false;
  std::vector<std::size_t> bad_pairs = {};  // indices into the edges
};

Reason summarise(const std::string& who, const Unit& u, const std::vector<Edge>& edges, HealthState& state) {
  // The worst bad pair gives the code and threshold, the median of the bad
  // values the figure: one reason per culprit, however many peers it has.
  const PairObservation* worst_pair = nullptr;
  std::vector<double> values;
  for (std::size_t i : u.bad_pairs) {
    const PairObservation& o = *edges[i].pair;
    if (!worst_pair || o.state > worst_pair->state) worst_pair = &o;
    if (o.reason && o.reason->value) values.push_back(*o.reason->value);
  }
  state = worst_pair->state;
  Reason r = worst_pair->reason ? *worst_pair->reason
                                : Reason{"PAIR_BAD", "", std::string(worst_pair->group), std::nullopt, std::nullopt};
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

// Scratch indexed by unit and host id, reset after each group: a fleet's
// groups share their units, so the arrays are sized once.
struct Scratch {
  std::vector<std::int32_t> local_unit, local_host;
};

void localise_group(const std::vector<std::size_t>& members, const std::vector<Edge>& edges, const Units& ids,
                    Scratch& scratch, std::vector<Blame>& out) {
  std::vector<Unit> units;
  std::vector<std::pair<std::size_t, std::size_t>> ends(members.size());
  auto unit_of = [&](std::uint32_t id) {
    std::int32_t& local = scratch.local_unit[id];
    if (local < 0) {
      local = static_cast<std::int32_t>(units.size());
      units.push_back(Unit{id});
    }
    return static_cast<std::size_t>(local);
  };
  for (std::size_t m = 0; m < members.size(); ++m) {
    const Edge& edge = edges[members[m]];
    ends[m] = {unit_of(edge.a), unit_of(edge.b)};
    const bool bad = edge.pair->state != HealthState::healthy;
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
    const bool bad = edges[members[m]].pair->state != HealthState::healthy;
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
  // Hosts and their rails in order of first mention.
  std::vector<std::vector<std::size_t>> rails_of;
  for (std::size_t i = 0; i < units.size(); ++i) {
    std::int32_t& local = scratch.local_host[ids.host_id(units[i].id)];
    if (local < 0) {
      local = static_cast<std::int32_t>(rails_of.size());
      rails_of.emplace_back();
    }
    rails_of[static_cast<std::size_t>(local)].push_back(i);
  }
  for (const auto& rails : rails_of) {
    const std::string host(ids.host(units[rails.front()].id));
    const auto culprits = std::count_if(rails.begin(), rails.end(), [&](std::size_t i) { return units[i].culprit; });
    const auto measured = static_cast<std::ptrdiff_t>(rails.size());
    if (culprits == 0) continue;
    if (culprits == measured) {
      Unit whole{units[rails.front()].id};
      for (std::size_t i : rails) {
        const Unit& u = units[i];
        whole.bad += u.bad;
        whole.total += u.total;
        whole.bad_pairs.insert(whole.bad_pairs.end(), u.bad_pairs.begin(), u.bad_pairs.end());
      }
      Blame b{{"node", host}, HealthState::healthy, {}};
      b.reason = summarise("node " + host + (measured > 1 ? " (every rail)" : ""), whole, edges, b.state);
      out.push_back(std::move(b));
      continue;
    }
    for (std::size_t i : rails) {
      const Unit& u = units[i];
      if (!u.culprit) continue;
      const std::string rail = host + "/" + std::string(ids.device(u.id));
      Blame b{{"hca_port", rail}, HealthState::healthy, {}};
      b.reason = summarise("rail " + rail, u, edges, b.state);
      out.push_back(std::move(b));
    }
  }
  for (std::size_t m = 0; m < members.size(); ++m) {
    const PairObservation& o = *edges[members[m]].pair;
    if (o.state == HealthState::healthy || units[ends[m].first].culprit || units[ends[m].second].culprit) continue;
    Blame b{{"link", std::string(o.a.host) + "<->" + std::string(o.b.host)}, o.state, {}};
    b.reason = o.reason ? *o.reason : Reason{"PAIR_BAD", "", std::string(o.group), std::nullopt, std::nullopt};
    const std::string rails =
        o.a.device.empty() ? "" : " (" + std::string(o.a.device) + "<->" + std::string(o.b.device) + ")";
    b.reason.message = "bad only together" + rails + ": " + b.reason.message;
    out.push_back(std::move(b));
  }
  for (const auto& u : units) {
    scratch.local_unit[u.id] = -1;
    scratch.local_host[ids.host_id(u.id)] = -1;
  }
}

}  // namespace

std::vector<Blame> localise(const std::vector<PairObservation>& observations) {
  Ids group_ids;
  Units units;
  const std::vector<Edge> edges = merge_observations(observations, group_ids, units);
  // Each group's edges, groups in order of first mention.
  std::vector<std::vector<std::size_t>> groups(group_ids.size());
  std::vector<std::uint32_t> group_order;
  std::vector<bool> any_bad(group_ids.size(), false);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    auto& members = groups[edges[i].group];
    if (members.empty()) group_order.push_back(edges[i].group);
    members.push_back(i);
    if (edges[i].pair->state != HealthState::healthy) any_bad[edges[i].group] = true;
  }
  Scratch scratch{std::vector<std::int32_t>(units.size(), -1), std::vector<std::int32_t>(units.hosts(), -1)};
  std::vector<Blame> out;
  for (std::uint32_t g : group_order)
    if (any_bad[g]) localise_group(groups[g], edges, units, scratch, out);
  return out;
}

std::vector<std::string> known_good_hosts(const std::vector<PairObservation>& observations,
                                          const std::vector<Blame>& blames) {
  std::unordered_set<std::string_view> blamed;  // views into the blames' ids
  for (const auto& b : blames) {
    const std::string_view id = b.entity.id;
    if (b.entity.kind == "link") {
      const auto sep = id.find("<->");
      blamed.insert(id.substr(0, sep));
      blamed.insert(id.substr(sep + 3));
    } else {
      blamed.insert(id.substr(0, id.find('/')));
    }
  }
  std::vector<std::string> good;
  std::unordered_set<std::string_view> seen;
  for (const auto& o : observations)
    for (const std::string_view h : {o.a.host, o.b.host})
      if (!blamed.count(h) && seen.insert(h).second) good.emplace_back(h);
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
