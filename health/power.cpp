#include "health/power.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/seeded_draws.h"
#include "core/statistics.h"
#include "core/text.h"
#include "health/localise.h"

namespace ibgpu {

namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Chances below this are left out of the sums.
constexpr double kNegligible = 1e-15;
// ... and the counts of a mixture under this, each a sum of its own.
constexpr double kNegligibleMixture = 1e-9;

// The units' counts are modelled over at most this many peers: past a few hundred a unit is bad
// with most of its peers or with few, as one pair's chance is over or under a half, and the sums
// would grow with the square of every pair of a large fleet.
constexpr int kModelPeers = 256;

// A seeded stream of standard normals (core/seeded_draws.h, Box-Muller): the noise-only fleet is
// the same every time.
class Normals {
 public:
  double next() {
    constexpr double kTwoPi = 6.283185307179586;
    const double u1 = (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53;  // (0, 1): a logarithm's
    const double u2 = unit_interval(bits());
    return std::sqrt(-2 * std::log(u1)) * std::cos(kTwoPi * u2);
  }
  std::uint64_t bits() {
    const std::uint64_t z = splitmix64(state_);
    state_ += 0x9e3779b97f4a7c15ULL;
    return z;
  }

 private:
  std::uint64_t state_ = 1;
};

// The host pairs of a noise-only fleet of `hosts` where each meets about `peers` others: every
// pair where that is all of them, else a ring of offsets (and a matching for an odd count).
std::vector<std::pair<int, int>> noise_fleet_pairs(int hosts, int peers) {
  std::vector<std::pair<int, int>> pairs;
  if (peers >= hosts - 1) {
    for (int a = 0; a < hosts; ++a)
      for (int b = a + 1; b < hosts; ++b) pairs.emplace_back(a, b);
    return pairs;
  }
  for (int d = 1; d <= peers / 2; ++d)
    for (int h = 0; h < hosts; ++h) pairs.emplace_back(h, (h + d) % hosts);
  if (peers % 2 == 1) {
    const int across = peers == 1 ? 1 : hosts / 2;  // one peer: neighbours; more: the far side
    for (int h = 0; h + across < hosts; h += peers == 1 ? 2 : 1)
      if (peers == 1 || h < hosts / 2) pairs.emplace_back(h, h + across);
  }
  return pairs;
}

// One pair of a unit that carries `carries` reads under the limit `limit` (log space).
double pair_bad(double limit, double carries, const NoiseModel& noise) {
  const double sigma = std::max(noise.sigma, 1e-9);
  const double clean = normal_cdf((limit - std::log(carries)) / sigma);
  const double transient = normal_cdf((limit - std::log(carries * noise.transient_factor)) / sigma);
  return (1 - noise.transient_rate) * clean + noise.transient_rate * transient;
}

// The fleet limit in log space from a healthy pair's median, and the noise the run would measure
// (0 where its shortfalls cannot show it: one peer each, whose ends' quartile is the pair itself).
struct RuleAtNoise {
  double limit = 0;        // log space, from a healthy pair's median
  double run_sigma = 0;    // health/fleet.h FleetReference::sigma
  double first_limit = 0;  // the first pass's limit, as `limit` (the same where nothing is re-tested)
  // A final rule's: the chances that a suspect meets 0, 1, ... known-good partners in the first
  // re-test pass, as the re-test planner pairs them, and that a cleared host meets 0, 1, ...
  // suspects (each a pair more for it).
  std::vector<double> partners, cleared;
};

// The hosts of a modelled fleet that carry a fault alike: the fault whose power is stated is one of
// them, and the others move the rule as a run's would (their pairs widen the shortfalls and lower
// the ends' quartiles, their re-tests add pairs). `share` 0: the fault alone.
struct Slowed {
  double share = 0;        // of the hosts
  double log_carries = 0;  // what their pairs carry, log space
  int rails = 0;           // of the host's rails, this many carry it (the modelled one among them)
};

// The fleet rule (health/fleet.h) over a modelled fleet's first-pass measurements, `value` (pair i
// of `pairs` on rail r at i * rails + r), whose ends hold `of_unit` (re-tests included): its limit
// in log space from a healthy pair's median, and the run's noise.
std::pair<double, double> fleet_rule(const std::vector<std::pair<int, int>>& pairs, std::size_t rails,
                                     const std::vector<double>& value, std::vector<std::vector<double>> of_unit,
                                     const FleetRules& rules) {
  const double reference = *good_quartile(value);
  const double widest = std::log(rules.bw_fraction_widest);
  std::vector<double> end_quartile;
  end_quartile.reserve(of_unit.size());
  for (auto& v : of_unit) end_quartile.push_back(v.empty() ? reference : quantile(std::move(v), 0.75));
  auto end = [&](int h, std::size_t rail) { return end_quartile[static_cast<std::size_t>(h) * rails + rail]; };
  std::vector<double> shortfalls;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    for (std::size_t r = 0; r < rails; ++r) {
      const double could = std::min(end(pairs[i].first, r), end(pairs[i].second, r));
      if (could >= reference + widest) shortfalls.push_back(value[i * rails + r] - could);
    }
  const double allowed = std::min(std::log(rules.bw_fraction), std::max(noise_fence(shortfalls), widest));
  // The limit from a healthy pair's median, which the slowed hosts' pairs are not.
  return {reference + allowed, noise_sigma(shortfalls)};
}

// Which of `hosts` carry the slowed fault: `share` of them, spread evenly over the fleet (the first
// of a low-discrepancy sequence), so that a pair of two is as rare as among a run's hosts. Where the
// share is not a whole count of hosts its fraction is rounded up when `offset` (in [0, 1)) falls
// under it: over fleets of evenly spread offsets the mean is the share's count (82 of 4,096 are
// 20.5 of 1,024 modelled hosts). Each host counts: at 256 hosts, 2% slowed (5) set the first
// pass's limit 0.001 lower than 4 would, as seeded runs do (docs/burn-in-and-simulate.md).
std::vector<std::size_t> slowed_hosts(std::size_t hosts, double share, double offset) {
  const double exact = share * static_cast<double>(hosts);
  const auto count = std::min(hosts, static_cast<std::size_t>(std::floor(exact + offset)));
  auto place = [](std::size_t h) { return std::fmod(static_cast<double>(h + 1) * 0.5698402909980532, 1.0); };
  std::vector<std::size_t> order(hosts);
  for (std::size_t h = 0; h < hosts; ++h) order[h] = h;
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](std::size_t a, std::size_t b) { return place(a) < place(b); });
  order.resize(count);
  return order;
}

// The fleet rule's limit and sigma over one modelled fleet of the plan's shape: its host `pairs`,
// each measured on every rail (the rails' pairs are one kind, each rail of a host one end), at
// noise, the `slowed` hosts' pairs at what the slower end carries (`offset`: slowed_hosts'). The
// first pass's rule; with `retests`, also the final judgement's, whose ends hold the re-tests'
// pairs too. A host pair is suspect when it is bad on a rail at this fleet's own first-pass limit
// (a run's reference moves with its pairs, and how many suspects there are with it) and no end
// there is a culprit that kConfirmedByPeers peers confirm (a rail, or a node by its rails); its ends
// are the suspects. The re-test
// pass is the planner's own (health/localise.h plan_retests): a pair of two suspects measured
// again, each suspect with its cleared partners, on every rail.
RuleAtNoise one_noise_fleet(const std::vector<std::pair<int, int>>& pairs, int hosts, const PlanShape& plan,
                            const FleetRules& rules, const NoiseModel& noise, const Slowed& slowed, bool retests,
                            double offset, Normals& normals) {
  const auto rails = static_cast<std::size_t>(std::max(1, plan.rails));
  const auto host_count = static_cast<std::size_t>(hosts);
  // Who is slowed, on which rails.
  std::vector<double> carried(host_count, 0.0);
  for (const std::size_t h : slowed_hosts(host_count, slowed.share, offset)) carried[h] = slowed.log_carries;
  const auto slowed_rails = static_cast<std::size_t>(std::max(0, slowed.rails));
  // A pair goes no faster than its slower end; now and then a sample is a transient bad one (a run's
  // few move its re-tests and its ends' quartiles as much as its noise does).
  const double transient = std::log(std::max(noise.transient_factor, 1e-9));
  auto value_of = [&](int a, int b, std::size_t rail) {
    const double c =
        rail < slowed_rails ? std::min(carried[static_cast<std::size_t>(a)], carried[static_cast<std::size_t>(b)]) : 0;
    const double v = noise.sigma * normals.next() + c;
    return noise.transient_rate > 0 && unit_interval(normals.bits()) < noise.transient_rate ? v + transient : v;
  };
  auto unit = [&](int h, std::size_t rail) { return static_cast<std::size_t>(h) * rails + rail; };
  std::vector<double> value(pairs.size() * rails);  // pair i on rail r: value[i * rails + r]
  std::vector<std::vector<double>> of_unit(host_count * rails);
  auto measure = [&](int a, int b, std::size_t rail) {
    const double v = value_of(a, b, rail);
    of_unit[unit(a, rail)].push_back(v);
    of_unit[unit(b, rail)].push_back(v);
    return v;
  };
  for (std::size_t i = 0; i < pairs.size(); ++i)
    for (std::size_t r = 0; r < rails; ++r) value[i * rails + r] = measure(pairs[i].first, pairs[i].second, r);
  const auto [first_limit, first_sigma] = fleet_rule(pairs, rails, value, of_unit, rules);
  if (!retests) return {first_limit, first_sigma, first_limit, {}, {}};
  // How many suspects met 0, 1, ... partners, and how many cleared hosts met 0, 1, ... suspects.
  std::vector<double> met, met_by_cleared;
  std::vector<int> bad(host_count * rails, 0), total(host_count * rails, 0);
  for (std::size_t i = 0; i < pairs.size(); ++i)
    for (std::size_t r = 0; r < rails; ++r)
      for (const int h : {pairs[i].first, pairs[i].second}) {
        ++total[unit(h, r)];
        bad[unit(h, r)] += value[i * rails + r] < first_limit;
      }
  // The pairs a confirmed culprit explains are not re-tested (health/judge.h retest_candidates): a
  // rail's that kConfirmedByPeers peers confirm, or any of a host blamed as a node whose culprit
  // rails are each confirmed so (a node blamed on a rail fewer confirm has every pair re-tested).
  auto culprit = [&](std::size_t u) { return bad_with_most_peers(bad[u], total[u]); };
  auto confirmed = [&](std::size_t u) { return culprit(u) && bad[u] >= kConfirmedByPeers; };
  std::vector<bool> explains(host_count * rails, false), blamed(host_count, false);
  for (std::size_t h = 0; h < host_count; ++h) {
    std::ptrdiff_t culprits = 0, confirmed_rails = 0;
    for (std::size_t r = 0; r < rails; ++r) {
      culprits += culprit(h * rails + r);
      confirmed_rails += confirmed(h * rails + r);
    }
    const bool node = host_is_culprit(culprits, static_cast<std::ptrdiff_t>(rails));
    for (std::size_t r = 0; r < rails; ++r)
      explains[h * rails + r] = node ? confirmed_rails == culprits : confirmed(h * rails + r);
    blamed[h] = culprits > 0;  // not a known-good partner
  }
  // Suspects; the cleared hosts are the rest, but the blamed.
  std::vector<bool> suspect(host_count, false);
  std::vector<std::string> cleared;
  std::vector<HostPair> suspect_pairs;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    bool is_suspect = false;
    for (std::size_t r = 0; r < rails; ++r)
      is_suspect = is_suspect || (value[i * rails + r] < first_limit && !explains[unit(a, r)] && !explains[unit(b, r)]);
    if (!is_suspect) continue;
    suspect[static_cast<std::size_t>(a)] = suspect[static_cast<std::size_t>(b)] = true;
    suspect_pairs.emplace_back(std::to_string(a), std::to_string(b));
  }
  for (std::size_t h = 0; h < host_count; ++h)
    if (!suspect[h] && !blamed[h]) cleared.push_back(std::to_string(h));
  std::vector<int> partners(host_count, 0);
  for (const PairRound& round : plan_retests(suspect_pairs, cleared, plan.peers_per_suspect))
    for (const auto& [x, y] : round.pairs) {
      const int a = std::stoi(x), b = std::stoi(y);
      for (std::size_t r = 0; r < rails; ++r) measure(a, b, r);
      if (suspect[static_cast<std::size_t>(a)] != suspect[static_cast<std::size_t>(b)]) {
        ++partners[static_cast<std::size_t>(a)];  // a suspect's partner, or a cleared host's suspect
        ++partners[static_cast<std::size_t>(b)];
      }
    }
  // Counted here, made chances over every modelled fleet (rule_at_noise).
  met.assign(static_cast<std::size_t>(plan.peers_per_suspect) + 1, 0.0);
  for (std::size_t h = 0; h < host_count; ++h) {
    if (blamed[h] && !suspect[h]) continue;
    auto& into = suspect[h] ? met : met_by_cleared;
    const auto k = static_cast<std::size_t>(partners[h]);
    if (!suspect[h] && k >= into.size()) into.resize(k + 1, 0.0);
    into[std::min(into.size() - 1, k)] += 1;
  }
  const auto [limit, sigma] = fleet_rule(pairs, rails, value, std::move(of_unit), rules);
  return {limit, sigma, first_limit, std::move(met), std::move(met_by_cleared)};
}

// The rules over the modelled fleets: each fleet's own, and their mean.
struct RulesAtNoise {
  RuleAtNoise mean;                 // the limits' mean; the partners' chances over every fleet's counts
  std::vector<RuleAtNoise> fleets;  // each at its own limits, its partners' chances its own counts'
};

// The same over enough modelled fleets that their reference is the expected one (a fleet of 256
// hosts with one peer each has 128 pairs, whose upper quartile is itself noisy).
RulesAtNoise rule_at_noise(const PlanShape& plan, const FleetRules& rules, const NoiseModel& noise,
                           const Slowed& slowed, bool retests) {
  constexpr std::size_t kValues = 131072;  // measurements in all, over the fleets
  const int hosts = std::clamp(plan.hosts, 2, kPowerModelHosts);
  const int peers = std::clamp(plan.peers, 1, std::min(kPowerModelPeers, hosts - 1));
  for (const auto& [a, b] : plan.pairs)
    if (a < 0 || b < 0 || a >= hosts || b >= hosts || a == b)
      throw std::invalid_argument("plan_power: the pair " + std::to_string(a) + "-" + std::to_string(b) +
                                  " is not two of the " + std::to_string(hosts) + " modelled hosts");
  const auto pairs = plan.pairs.empty() ? noise_fleet_pairs(hosts, peers) : plan.pairs;
  const std::size_t values = pairs.size() * static_cast<std::size_t>(std::max(1, plan.rails));
  const std::size_t fleets = std::clamp<std::size_t>(kValues / std::max<std::size_t>(1, values), 1, 256);
  Normals normals;
  RulesAtNoise out;
  RuleAtNoise& mean = out.mean;
  for (std::size_t i = 0; i < fleets; ++i) {
    const double offset = (static_cast<double>(i) + 0.5) / static_cast<double>(fleets);
    RuleAtNoise one = one_noise_fleet(pairs, hosts, plan, rules, noise, slowed, retests, offset, normals);
    mean.limit += one.limit / static_cast<double>(fleets);
    mean.run_sigma += one.run_sigma / static_cast<double>(fleets);
    mean.first_limit += one.first_limit / static_cast<double>(fleets);
    for (auto [into, from] : {std::pair{&mean.partners, &one.partners}, std::pair{&mean.cleared, &one.cleared}}) {
      into->resize(std::max(into->size(), from->size()), 0.0);
      for (std::size_t k = 0; k < from->size(); ++k) (*into)[k] += (*from)[k];
    }
    out.fleets.push_back(std::move(one));
  }
  if (!retests) return out;
  // The counts made chances. Where a fleet had no suspect, the one the fault makes is alone: it
  // meets every partner it asks for that the fleet has; where none had a cleared host, none meets
  // a suspect.
  auto chances_of = [&](RuleAtNoise& rule) {
    const auto every_partner = static_cast<std::size_t>(std::min(plan.peers_per_suspect, hosts - 1));
    for (auto [counts, otherwise] :
         {std::pair{&rule.partners, every_partner}, std::pair{&rule.cleared, std::size_t{0}}}) {
      double total = 0;
      for (const double c : *counts) total += c;
      if (total <= 0) {
        counts->assign(otherwise + 1, 0.0);
        (*counts)[otherwise] = 1;
        continue;
      }
      for (double& c : *counts) c /= total;
    }
  };
  chances_of(mean);
  for (RuleAtNoise& one : out.fleets) chances_of(one);
  return out;
}

// The chances of 0..n bad of n pairs, each bad with chance p.
std::vector<double> binomial(int n, double p) {
  std::vector<double> out(static_cast<std::size_t>(n) + 1, 0.0);
  if (p <= 0 || p >= 1) {
    out[p <= 0 ? 0 : static_cast<std::size_t>(n)] = 1;
    return out;
  }
  for (int k = 0; k <= n; ++k)
    out[static_cast<std::size_t>(k)] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                                                k * std::log(p) + (n - k) * std::log1p(-p));
  return out;
}

// One unit's chances over how many of its pairs are bad, of `total` peers.
struct UnitCounts {
  std::vector<double> bad;  // bad[b]: the chance of b bad
  int total = 0;
};

bool culprit(int bad, int total) { return bad_with_most_peers(bad, total); }
// A unit of `peers` peers, each pair bad with chance `p`, is bad with most of them.
double culprit_chance(int peers, double p) {
  double chance = 0;
  const std::vector<double> counts = binomial(peers, p);
  for (std::size_t b = 0; b < counts.size(); ++b)
    if (culprit(static_cast<int>(b), peers)) chance += counts[b];
  return chance;
}
// A unit's chances to be a culprit and not to, as its counts stand (weights: yes, no).
std::pair<double, double> culprit_weights(const UnitCounts& u) {
  double yes = 0, no = 0;
  for (std::size_t b = 0; b < u.bad.size(); ++b) (culprit(static_cast<int>(b), u.total) ? yes : no) += u.bad[b];
  return {yes, no};
}
bool confirmed_culprit(int bad, int total) { return culprit(bad, total) && bad >= kConfirmedByPeers; }
// A suspect left for re-tests: bad with someone, and not confirmed by kConfirmedByPeers peers.
bool suspect(int bad, int total) { return bad > 0 && !confirmed_culprit(bad, total); }

// What a re-test does to one pair of a unit. A suspect that is not a culprit has its bad pairs
// measured again (their other ends are not cleared), and such a pair stays bad when both figures
// lie beyond the limit by the noise of their mean (health/localise.h pair_edges: twice just under
// the limit is a lower number, not a deficit). A culprit's bad pairs stand (at the final limit)
// where its other ends are cleared, and are measured again where they are not (chances() says
// when). A known-good partner's pair is bad as any pair.
struct RetestChances {
  double first = 0;              // a pair is bad in the first pass (its limit picks the suspects)
  double kept = 0;               // a first-pass bad pair is bad after its re-test
  double culprit_kept = 1;       // ... of a culprit (measured again only where its other end is not cleared)
  double confirmed_kept = 1;     // ... of a culprit kConfirmedByPeers peers confirm (host_culprits sets it)
  double stands = 1;             // a first-pass bad pair not measured again is bad at the final limit
  double partner = 0;            // a new partner's pair is bad (at the final limit)
  std::vector<double> partners;  // the chances of meeting 0, 1, ... partners in the first pass
  std::vector<double> cleared;   // a cleared host's chances of meeting 0, 1, ... suspects there
};

// `u` re-tested where `retested(b, total)`: its bad pairs measured again, and `partners` more peers.
UnitCounts retest(const UnitCounts& u, int partners, const RetestChances& c, bool (*retested)(int, int)) {
  const std::vector<double> added = binomial(partners, c.partner);
  UnitCounts out{std::vector<double>(u.bad.size() + static_cast<std::size_t>(partners), 0.0), u.total + partners};
  for (std::size_t b = 0; b < u.bad.size(); ++b) {
    if (u.bad[b] < kNegligible) continue;
    if (!retested(static_cast<int>(b), u.total)) {
      out.bad[b] += u.bad[b];  // settled: a culprit or clear as it stands
      continue;
    }
    // A culprit's bad pairs stand where its other ends are cleared; another suspect's are measured again.
    const std::vector<double> kept =
        binomial(static_cast<int>(b), confirmed_culprit(static_cast<int>(b), u.total) ? c.confirmed_kept
                                      : culprit(static_cast<int>(b), u.total)         ? c.culprit_kept
                                                                                      : c.kept);
    for (std::size_t k = 0; k < kept.size(); ++k)
      for (std::size_t a = 0; a < added.size(); ++a) out.bad[k + a] += u.bad[b] * kept[k] * added[a];
  }
  return out;
}

// A unit's chances to end a culprit and not to, over the first-pass counts `among` allows, once its
// host is re-tested: every unit of the host in the first pass (its bad pairs again, and `partners`
// known-good partners), then each later pass where the unit is still a suspect.
// `u`'s chances of the counts `among` allows, the rest none.
UnitCounts only(UnitCounts u, const std::vector<bool>& among) {
  for (std::size_t b = 0; b < u.bad.size(); ++b)
    if (!among[b]) u.bad[b] = 0;
  return u;
}

std::pair<double, double> after_retests(const UnitCounts& first, const PlanShape& plan, const RetestChances& c,
                                        const std::vector<bool>& among, int partners) {
  UnitCounts u = retest(only(first, among), partners, c, [](int, int) { return true; });
  for (int pass = 2; pass <= plan.retest_passes; ++pass) u = retest(u, plan.peers_per_suspect, c, suspect);
  return culprit_weights(u);
}

// The chances of 0..units culprits among `units` independent units, each with culprit_weights'
// (yes, no): not normalised.
std::vector<double> culprit_counts(const std::pair<double, double>& weights, int units) {
  const auto [yes, no] = weights;
  std::vector<double> out{1.0};
  for (int i = 0; i < units; ++i) {
    std::vector<double> next(out.size() + 1, 0.0);
    for (std::size_t k = 0; k < out.size(); ++k) {
      next[k] += out[k] * no;
      next[k + 1] += out[k] * yes;
    }
    out = std::move(next);
  }
  return out;
}

// The chances of a sum of two independent counts, each given as chances of 0, 1, ...
std::vector<double> convolved(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size() + b.size() - 1, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t k = 0; k < b.size(); ++k) out[i + k] += a[i] * b[k];
  return out;
}

double choose(int n, int k) {
  double ways = 1;
  for (int i = 1; i <= k; ++i) ways = ways * (n - k + i) / i;
  return ways;
}

// The chances of 0..units culprit units of a host whose `units` rails are alike, each with the
// chances `retested` (chances() below: its pairs' carried fraction is in them).
std::vector<double> host_culprits(const PlanShape& plan, int units, const RetestChances& retested) {
  const UnitCounts first{binomial(plan.peers, retested.first), plan.peers};
  if (plan.retest_passes <= 0) return culprit_counts(culprit_weights(first), units);
  std::vector<bool> settled(first.bad.size());
  for (std::size_t b = 0; b < first.bad.size(); ++b) settled[b] = !suspect(static_cast<int>(b), first.total);
  // Without a re-test: every unit settled in the first pass. The host is cleared, and meets the
  // suspects the pass has for it: a pair more with each, on every rail, which may be bad.
  std::vector<double> out(static_cast<std::size_t>(units) + 1, 0.0);
  const std::vector<double> none{1.0};
  const std::vector<double>& cleared = retested.cleared.empty() ? none : retested.cleared;
  for (std::size_t j = 0; j < cleared.size(); ++j) {
    if (cleared[j] < kNegligible) continue;
    const std::vector<double> added = binomial(static_cast<int>(j), retested.partner);
    UnitCounts u{std::vector<double>(first.bad.size() + j, 0.0), first.total + static_cast<int>(j)};
    for (std::size_t b = 0; b < first.bad.size(); ++b) {
      if (!settled[b]) continue;
      for (std::size_t a = 0; a < added.size(); ++a) u.bad[b + a] += first.bad[b] * added[a];
    }
    const std::vector<double> counts = culprit_counts(culprit_weights(u), units);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += cleared[j] * counts[k];
  }
  // With one: the host is re-tested because u >= 1 of its units are suspects, which sends each host
  // pair bad on one of their rails to re-test on every rail. So the units are not independent there:
  // a confirmed unit's bad pair is measured again where the host pair is bad on one of those u rails
  // (a suspect is bad with a share of its peers); a slowed node whose rail went unconfirmed loses
  // pairs on its confirmed rails with it. (The units are the host's every rail, or one rail alone,
  // which has no confirmed unit beside a suspect: the host's other rails take no part here.) The
  // host meets as many partners as the pass has for it, on every rail alike.
  // A host that its confirmed units blame as a node (host_is_culprit over them, and no suspect of it a
  // culprit) is not re-tested at all (health/judge.h retest_candidates): its units' bad pairs stand
  // at the final limit. So the units are counted by kind, settled ones confirmed or clear, suspects
  // culprits or not, and the host re-tested or not by how many of each it has.
  const std::size_t counts_size = first.bad.size();
  std::vector<bool> confirmed(counts_size), clear(counts_size), suspect_culprit(counts_size),
      suspect_clear(counts_size);
  double suspect_mass = 0, suspect_bad = 0;
  for (std::size_t b = 0; b < counts_size; ++b) {
    const bool is_culprit = culprit(static_cast<int>(b), first.total);
    confirmed[b] = settled[b] && is_culprit;
    clear[b] = settled[b] && !is_culprit;
    suspect_culprit[b] = !settled[b] && is_culprit;
    suspect_clear[b] = !settled[b] && !is_culprit;
    if (settled[b]) continue;
    suspect_mass += first.bad[b];
    suspect_bad += static_cast<double>(b) * first.bad[b];
  }
  const double suspect_pair_bad = suspect_mass > 0 ? std::min(1.0, suspect_bad / (suspect_mass * first.total)) : 0;
  // Not re-tested, each kind's bad pairs stand (a unit no culprit at the first limit is none at a
  // lower one).
  RetestChances standing = retested;
  standing.kept = standing.culprit_kept = standing.confirmed_kept = retested.stands;
  auto stand = [&](const std::vector<bool>& among) {
    return culprit_weights(retest(only(first, among), 0, standing, [](int, int) { return true; }));
  };
  const auto stand_confirmed = stand(confirmed), stand_clear = stand(clear), stand_suspect = stand(suspect_clear);
  for (std::size_t j = 0; j < retested.partners.size(); ++j) {
    if (retested.partners[j] < kNegligible) continue;
    const int partners = static_cast<int>(j);
    // A suspect's own pairs do not depend on how many others there are (no confirmed_kept).
    const auto suspect_culprit_weights = after_retests(first, plan, retested, suspect_culprit, partners);
    const auto suspect_clear_weights = after_retests(first, plan, retested, suspect_clear, partners);
    for (int u = 1; u <= units; ++u) {
      RetestChances c = retested;
      const double again = 1 - std::pow(1 - suspect_pair_bad, u);
      c.confirmed_kept = (1 - again) * retested.stands + again * retested.kept;
      const auto confirmed_weights = after_retests(first, plan, c, confirmed, partners);
      const auto clear_weights = after_retests(first, plan, c, clear, partners);
      for (int k = 0; k <= units - u; ++k)  // confirmed units among the others
        for (int s = 0; s <= u; ++s) {      // culprits among the suspects
          const double ways = choose(units, u) * choose(units - u, k) * choose(u, s);
          const bool not_retested = s == 0 && host_is_culprit(k, units);
          const std::vector<double> counts =
              not_retested
                  ? convolved(convolved(culprit_counts(stand_confirmed, k), culprit_counts(stand_clear, units - u - k)),
                              culprit_counts(stand_suspect, u))
                  : convolved(
                        convolved(culprit_counts(confirmed_weights, k), culprit_counts(clear_weights, units - u - k)),
                        convolved(culprit_counts(suspect_culprit_weights, s),
                                  culprit_counts(suspect_clear_weights, u - s)));
          for (std::size_t a = 0; a < counts.size(); ++a) out[a] += retested.partners[j] * ways * counts[a];
        }
    }
  }
  for (double& c : out) c = std::max(0.0, c);
  return out;
}

double found(const std::vector<double>& culprits) { return std::clamp(1 - culprits.front(), 0.0, 1.0); }

double blamed(const std::vector<double>& culprits) {
  double sum = 0;
  const auto units = static_cast<std::ptrdiff_t>(culprits.size()) - 1;
  for (std::size_t k = 0; k < culprits.size(); ++k)
    if (host_is_culprit(static_cast<std::ptrdiff_t>(k), units)) sum += culprits[k];
  return std::clamp(sum, 0.0, 1.0);
}

// The rules a fault is judged by, in a fleet where `slowed` of the hosts carry it: the first pass's
// limit picks the suspects, the final one also reads the re-tests' pairs.
RulesAtNoise judged_rule(const PlanShape& model, const FleetRules& rules, const NoiseModel& noise,
                         const Slowed& slowed) {
  return rule_at_noise(model, rules, noise, slowed, model.retest_passes > 0);
}

}  // namespace

PlanPower plan_power(const PlanShape& plan, const FleetRules& rules, const NoiseModel& noise,
                     const std::vector<double>& carries) {
  PlanPower out;
  out.plan = plan;
  out.plan.rails = std::max(1, plan.rails);
  out.plan.peers = std::clamp(plan.peers, 1, std::max(1, plan.hosts - 1));
  out.plan.peers_per_suspect = std::max(0, plan.peers_per_suspect);
  out.plan.retest_passes = std::max(0, plan.retest_passes);
  out.plan.slowed_share = std::clamp(plan.slowed_share, 0.0, 1.0);
  PlanShape model = out.plan;  // what the sums run over
  model.peers = std::min(model.peers, kModelPeers);
  out.noise = noise;
  // The chances of one unit's re-tests under `judged`, `rails` of its host slowed to `fraction`
  // (the others healthy enough to leave alone).
  auto chances = [&](const PlanShape& shape, const RuleAtNoise& judged, double fraction, int rails) {
    const double limit = judged.limit;
    // A re-tested pair's figures must lie past the final limit by the noise of a mean of two, as
    // the run measures its noise; the first figure was under the first pass's limit.
    const double confirmed = limit - judged.run_sigma / std::sqrt(2.0);
    const double first = pair_bad(judged.first_limit, fraction, noise), p = pair_bad(limit, fraction, noise);
    const double p2 = pair_bad(confirmed, fraction, noise);
    const double kept =
        first > 0 ? std::min(1.0, pair_bad(std::min(confirmed, judged.first_limit), fraction, noise) * p2 / first) : 0;
    const double stands = first > 0 ? std::min(1.0, p / first) : 0;  // not measured again: at the final limit
    const double culprit_first = culprit_chance(shape.peers, first);
    // A culprit's bad pair is measured again where its other end is not cleared: the host pair is
    // suspect through another rail (bad there, and that rail's end no culprit: on the host's other
    // slowed rails, or by a healthy pair's chance on the rest), or the other end has a bad pair of
    // its own with any other peer (at fleet scale, a host's peers on every rail make that common). A
    // confirmed culprit's pair is no suspect pair: only the host pair's being suspect through another
    // rail measures it again (host_culprits, given how many of the host's rails are suspects).
    const double healthy = pair_bad(judged.first_limit, 1, noise);
    const double again = 1 - std::pow(1 - first * (1 - culprit_first), rails - 1) *
                                 std::pow(1 - healthy, shape.rails - rails) *
                                 std::pow(1 - healthy, shape.rails * (shape.peers - 1));
    RetestChances c;
    c.first = first;
    c.kept = kept;
    c.culprit_kept = (1 - again) * stands + again * kept;
    c.stands = stands;
    c.partner = p;
    c.partners = judged.partners;
    c.cleared = judged.cleared;
    return c;
  };
  auto healthy_flagged = [&](const RuleAtNoise& judged) {
    return found(host_culprits(model, model.rails, chances(model, judged, 1, model.rails)));
  };
  // The chances of 0..units culprit units of a host `units` of whose rails are slowed to `fraction`,
  // in a fleet where `share` of the hosts carry it alike. Its peers that do too, and are candidates
  // (bad with most of their own peers), count neither way: localisation leaves a unit's pairs with
  // candidates out, so such a host is judged over fewer peers (at 1,024 hosts, 2% slowed, a third of
  // the slowed hosts meet another among 17 peers).
  auto fault_culprits = [&](const RuleAtNoise& judged, double fraction, int units, double share) {
    const double hosts = model.hosts, others = hosts > 1 ? std::max(0.0, (share * hosts - 1) / (hosts - 1)) : 0;
    const double candidate = culprit_chance(model.peers, pair_bad(judged.first_limit, fraction, noise));
    const std::vector<double> excluded = binomial(model.peers, others * candidate);
    std::vector<double> culprits(static_cast<std::size_t>(units) + 1, 0.0);
    for (std::size_t e = 0; e < excluded.size(); ++e) {
      if (excluded[e] < kNegligibleMixture) continue;
      PlanShape fewer = model;
      fewer.peers = model.peers - static_cast<int>(e);
      if (fewer.peers < 1) {  // no peer left to judge it by
        culprits.front() += excluded[e];
        continue;
      }
      const std::vector<double> counts = host_culprits(fewer, units, chances(fewer, judged, fraction, units));
      for (std::size_t k = 0; k < counts.size(); ++k) culprits[k] += excluded[e] * counts[k];
    }
    return culprits;
  };
  // The power over the modelled fleets, each at its own limits: a run's limits move from run to run,
  // and near certainty a lower limit loses more than a higher one gains (one quick round at 256
  // nodes, 20% slow: 0.90 where the mean limit states 0.92, and seeded runs find 0.88).
  auto mean_culprits = [&](const RulesAtNoise& judged, double fraction, int units, double share) {
    std::vector<double> mean(static_cast<std::size_t>(units) + 1, 0.0);
    for (const RuleAtNoise& fleet : judged.fleets) {
      const std::vector<double> culprits = fault_culprits(fleet, fraction, units, share);
      for (std::size_t k = 0; k < mean.size(); ++k) mean[k] += culprits[k] / static_cast<double>(judged.fleets.size());
    }
    return mean;
  };
  const RulesAtNoise noise_only = judged_rule(model, rules, noise, {});
  out.limit = std::exp(noise_only.mean.limit);
  out.healthy_pair_bad = pair_bad(noise_only.mean.limit, 1, noise);
  // The flags at the mean limit. Over the fleets' own limits the sums would state more (4.7 a run
  // for one quick round at 256 nodes, where runs flag 3.7), as they count a cleared host's bad pair
  // with a suspect that is a candidate itself, which localisation leaves out: the two offset
  // (docs/burn-in-and-simulate.md).
  out.healthy_node_flagged = healthy_flagged(noise_only.mean);
  out.expected_flagged = out.healthy_node_flagged * model.hosts;
  // Of two hosts, a slowed one slows every pair (the reference with them), and no host is left
  // to clear it: nothing is found.
  const bool findable = model.hosts >= 3;
  for (const double c : carries) {
    FaultPower f;
    f.carries = c;
    // The fleet the fault is judged in: its share of the hosts slowed on every rail, or on one.
    const Slowed nodes{model.slowed_share, std::log(c), model.rails},
        rails{model.slowed_share / model.rails, std::log(c), 1};
    const RulesAtNoise by_node = nodes.share > 0 ? judged_rule(model, rules, noise, nodes) : noise_only;
    f.limit = std::exp(by_node.mean.limit);
    f.pair_bad = pair_bad(by_node.mean.limit, c, noise);
    f.expected_flagged = healthy_flagged(by_node.mean) * model.hosts * (1 - model.slowed_share);
    if (!findable) {
      out.faults.push_back(f);
      continue;
    }
    const std::vector<double> node = mean_culprits(by_node, c, model.rails, nodes.share);
    f.node_found = found(node);
    f.node_blamed = blamed(node);
    const RulesAtNoise by_rail = rails.share > 0 ? judged_rule(model, rules, noise, rails) : noise_only;
    f.rail_found = found(mean_culprits(by_rail, c, 1, rails.share));
    out.faults.push_back(f);
  }
  return out;
}

std::string power_text(const PlanPower& power) {
  std::string slowed, nodes, rails;
  for (const FaultPower& f : power.faults) {
    const std::string sep = slowed.empty() ? "" : "/";
    slowed += sep + format_value(std::round((1 - f.carries) * 100)) + "%";
    nodes += sep + fixed_text(f.node_found, 2);
    rails += sep + fixed_text(f.rail_found, 2);
  }
  return "at noise " + fixed_text(power.noise.sigma, 3) + ", finds a node slowed " + slowed + " with chance " + nodes +
         ", one rail " + rails + "; expects " + fixed_text(power.expected_flagged, 1) +
         " healthy nodes flagged by noise alone";
}

}  // namespace ibgpu
