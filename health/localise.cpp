#include "health/localise.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "health/grouped_positions.h"
#include "health/thresholds.h"

namespace ibgpu {

std::uint32_t PairLedger::unit(const Endpoint& e) {
  for (const Recent& r : recent_)
    if (r.host.data() && r.host == e.host && r.device == e.device) return r.unit;
  const std::uint32_t found = find_unit(e);
  recent_[next_recent_] = Recent{e.host, e.device, found};
  next_recent_ = 1 - next_recent_;
  return found;
}

std::uint32_t PairLedger::find_unit(const Endpoint& e) {
  const std::uint32_t host = hosts_.of(e.host), device = devices_.of(e.device);
  if (host >= units_.size()) units_.resize(host + 1);
  auto& of_host = units_[host];  // a host has a handful of rails
  if (device >= of_host.size()) of_host.resize(device + 1, kNoUnit);
  if (of_host[device] == kNoUnit) {
    of_host[device] = static_cast<std::uint32_t>(unit_host_.size());
    unit_host_.push_back(host);
    unit_device_.push_back(device);
  }
  return of_host[device];
}

std::size_t PairLedger::add(std::string_view group, const Endpoint& a, const Endpoint& b, HealthState state,
                            std::optional<Reason> reason) {
  records_.push_back(Record{groups_.of(group), unit(a), unit(b), a.rank, b.rank, HealthState::healthy, kNoReason});
  judged(records_.size() - 1, state, std::move(reason));
  return records_.size() - 1;
}

void PairLedger::judged(std::size_t i, HealthState state, std::optional<Reason> reason) {
  Record& r = records_.at(i);
  r.state = state;
  if (reason) {
    r.reason = static_cast<std::uint32_t>(reasons_.size());
    reasons_.push_back(std::move(*reason));
  }
}

PairObservation PairLedger::at(std::size_t i) const {
  const Record& r = records_[i];
  auto end = [&](std::uint32_t u, int rank) {
    return Endpoint{hosts_.name(unit_host_[u]), devices_.name(unit_device_[u]), rank};
  };
  return PairObservation{groups_.name(r.group), end(r.a, r.rank_a), end(r.b, r.rank_b), r.state,
                         r.reason == kNoReason ? std::nullopt : std::optional<Reason>(reasons_[r.reason])};
}

// Localisation over a ledger's records: counts in arrays indexed by unit and
// host id, no map keyed by strings.
class Localisation {
 public:
  explicit Localisation(const PairLedger& ledger) : l_(ledger) {}

  std::vector<Blame> run() {
    merge();
    // Each group's edges, groups in order of first mention.
    std::vector<std::vector<std::size_t>> groups(l_.groups_.size());
    std::vector<bool> any_bad(groups.size(), false);
    for (std::size_t i = 0; i < edges_.size(); ++i) {
      groups[edge(i).group].push_back(i);
      if (edge(i).state != HealthState::healthy) any_bad[edge(i).group] = true;
    }
    local_unit_.assign(l_.unit_host_.size(), -1);
    local_host_.assign(l_.hosts_.size(), -1);
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (any_bad[g]) localise_group(groups[g]);
    return std::move(out_);
  }

 private:
  using Record = PairLedger::Record;

  struct Unit {
    std::uint32_t id;  // in the ledger
    int bad = 0, total = 0;
    int bad_with_good = 0, total_with_good = 0;
    bool candidate = false, culprit = false;
    std::vector<std::size_t> bad_pairs = {};  // indices into edges_
  };

  const Record& edge(std::size_t i) const { return l_.records_[edges_[i]]; }
  std::string_view host(std::uint32_t unit) const { return l_.hosts_.name(l_.unit_host_[unit]); }
  std::string_view device(std::uint32_t unit) const { return l_.devices_.name(l_.unit_device_[unit]); }
  std::string_view group(const Record& r) const { return l_.groups_.name(r.group); }
  const Reason* reason(const Record& r) const {
    return r.reason == PairLedger::kNoReason ? nullptr : &l_.reasons_[r.reason];
  }
  Reason reason_or_default(const Record& r) const {
    const Reason* why = reason(r);
    return why ? *why : Reason{"PAIR_BAD", "", std::string(group(r)), std::nullopt, std::nullopt};
  }

  // One edge per (group, unit pair). Re-tests of one rank pair fold into the
  // mildest (a pair is bad only when every measurement of it is bad), and the
  // rank pairs between the same two units into the worst of them (peers are
  // counted once); ties go to the first mentioned. Edges in order of first
  // mention. Sorting ids keeps this O(n log n), and mostly linear.
  void merge() {
    struct Seen {
      std::uint32_t group, lo, hi;  // lo <= hi: the edge, whichever end came first
      int rank_lo, rank_hi;
      std::uint32_t index;  // into the records
    };
    const auto& records = l_.records_;
    // Grouped by the edge's lower unit (units are dense ids), then each
    // unit's few records sorted by the rest of the key.
    const GroupedPositions by_lower(records.size(), l_.unit_host_.size(),
                                    [&](std::size_t i) { return std::min(records[i].a, records[i].b); });
    std::vector<Seen> seen;
    seen.reserve(records.size());
    for (const std::uint32_t i : by_lower.all()) {
      const Record& r = records[i];
      const bool swap = r.b < r.a;
      seen.push_back(Seen{r.group, swap ? r.b : r.a, swap ? r.a : r.b, swap ? r.rank_b : r.rank_a,
                          swap ? r.rank_a : r.rank_b, i});
    }
    auto same_edge = [](const Seen& x, const Seen& y) { return x.group == y.group && x.lo == y.lo && x.hi == y.hi; };
    auto same_ranks = [](const Seen& x, const Seen& y) { return x.rank_lo == y.rank_lo && x.rank_hi == y.rank_hi; };
    auto state = [&](const Seen& x) { return records[x.index].state; };
    for (std::size_t u = 0; u < by_lower.groups(); ++u)
      std::sort(seen.begin() + static_cast<std::ptrdiff_t>(by_lower.start(u)),
                seen.begin() + static_cast<std::ptrdiff_t>(by_lower.start(u + 1)), [](const Seen& x, const Seen& y) {
                  return std::tie(x.group, x.hi, x.rank_lo, x.rank_hi, x.index) <
                         std::tie(y.group, y.hi, y.rank_lo, y.rank_hi, y.index);
                });
    // Each edge is written over records already read: seen[0, n) are the
    // edges, index the chosen record, rank_lo the edge's first mention.
    std::size_t n = 0;
    for (std::size_t e = 0; e < seen.size();) {
      std::uint32_t edge_first = seen[e].index, worst_first = 0;
      std::size_t worst = seen.size(), r = e;
      while (r < seen.size() && same_edge(seen[r], seen[e])) {
        // One rank pair: its records in order of mention; the mildest, first on ties.
        const std::uint32_t first = seen[r].index;
        std::size_t mildest = r, k = r + 1;
        for (; k < seen.size() && same_edge(seen[k], seen[r]) && same_ranks(seen[k], seen[r]); ++k)
          if (state(seen[k]) < state(seen[mildest])) mildest = k;
        if (worst == seen.size() || state(seen[mildest]) > state(seen[worst]) ||
            (state(seen[mildest]) == state(seen[worst]) && first < worst_first)) {
          worst = mildest;
          worst_first = first;
        }
        edge_first = std::min(edge_first, first);
        r = k;
      }
      Seen edge = seen[worst];
      edge.rank_lo = static_cast<int>(edge_first);
      seen[n++] = edge;
      e = r;
    }
    // In order of first mention: each edge's first record is its own.
    constexpr std::uint32_t kNoEdge = ~std::uint32_t{0};
    std::vector<std::uint32_t> chosen_at(records.size(), kNoEdge);
    for (std::size_t e = 0; e < n; ++e) chosen_at[static_cast<std::size_t>(seen[e].rank_lo)] = seen[e].index;
    edges_.reserve(n);
    for (const std::uint32_t chosen : chosen_at)
      if (chosen != kNoEdge) edges_.push_back(chosen);
  }

  Reason summarise(const std::string& who, const Unit& u, HealthState& state) const {
    // The worst bad pair gives the code and threshold, the median of the bad
    // values the figure: one reason per culprit, however many peers it has.
    const Record* worst_pair = nullptr;
    std::vector<double> values;
    for (std::size_t i : u.bad_pairs) {
      const Record& o = edge(i);
      if (!worst_pair || o.state > worst_pair->state) worst_pair = &o;
      if (const Reason* why = reason(o); why && why->value) values.push_back(*why->value);
    }
    state = worst_pair->state;
    Reason r = reason_or_default(*worst_pair);
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

  void localise_group(const std::vector<std::size_t>& members) {
    std::vector<Unit> units;
    std::vector<std::pair<std::size_t, std::size_t>> ends(members.size());
    auto unit_of = [&](std::uint32_t id) {
      std::int32_t& local = local_unit_[id];
      if (local < 0) {
        local = static_cast<std::int32_t>(units.size());
        units.push_back(Unit{id});
      }
      return static_cast<std::size_t>(local);
    };
    for (std::size_t m = 0; m < members.size(); ++m) {
      const Record& e = edge(members[m]);
      ends[m] = {unit_of(e.a), unit_of(e.b)};
      const bool bad = e.state != HealthState::healthy;
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
      const bool bad = edge(members[m]).state != HealthState::healthy;
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
      std::int32_t& local = local_host_[l_.unit_host_[units[i].id]];
      if (local < 0) {
        local = static_cast<std::int32_t>(rails_of.size());
        rails_of.emplace_back();
      }
      rails_of[static_cast<std::size_t>(local)].push_back(i);
    }
    for (const auto& rails : rails_of) {
      const std::string name(host(units[rails.front()].id));
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
        Blame b{{"node", name}, HealthState::healthy, {}};
        b.reason = summarise("node " + name + (measured > 1 ? " (every rail)" : ""), whole, b.state);
        out_.push_back(std::move(b));
        continue;
      }
      for (std::size_t i : rails) {
        const Unit& u = units[i];
        if (!u.culprit) continue;
        const std::string rail = name + "/" + std::string(device(u.id));
        Blame b{{"hca_port", rail}, HealthState::healthy, {}};
        b.reason = summarise("rail " + rail, u, b.state);
        out_.push_back(std::move(b));
      }
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      const Record& o = edge(members[m]);
      if (o.state == HealthState::healthy || units[ends[m].first].culprit || units[ends[m].second].culprit) continue;
      Blame b{{"link", std::string(host(o.a)) + "<->" + std::string(host(o.b))}, o.state, reason_or_default(o)};
      const std::string rails =
          device(o.a).empty() ? "" : " (" + std::string(device(o.a)) + "<->" + std::string(device(o.b)) + ")";
      b.reason.message = "bad only together" + rails + ": " + b.reason.message;
      out_.push_back(std::move(b));
    }
    for (const auto& u : units) {
      local_unit_[u.id] = -1;
      local_host_[l_.unit_host_[u.id]] = -1;
    }
  }

  const PairLedger& l_;
  std::vector<std::uint32_t> edges_;  // the record chosen for each edge, in order of first mention
  // Scratch, reset after each group: a fleet's groups share their units.
  std::vector<std::int32_t> local_unit_, local_host_;
  std::vector<Blame> out_;
};

std::vector<Blame> localise(const PairLedger& ledger) { return Localisation(ledger).run(); }

namespace {
PairLedger ledger_of(const std::vector<PairObservation>& observations) {
  PairLedger ledger;
  ledger.reserve(observations.size());
  for (const auto& o : observations) ledger.add(o);
  return ledger;
}
}  // namespace

std::vector<Blame> localise(const std::vector<PairObservation>& observations) {
  return localise(ledger_of(observations));
}

std::vector<std::string> known_good_hosts(const PairLedger& ledger, const std::vector<Blame>& blames) {
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
  for (const std::string_view h : ledger.hosts())
    if (!blamed.count(h)) good.emplace_back(h);
  return good;
}

std::vector<std::string> known_good_hosts(const std::vector<PairObservation>& observations,
                                          const std::vector<Blame>& blames) {
  return known_good_hosts(ledger_of(observations), blames);
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
