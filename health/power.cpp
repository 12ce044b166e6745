#include "health/power.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/seeded_draws.h"
#include "core/statistics.h"
#include "core/text.h"
#include "health/localise.h"

namespace ibgpu {

namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Chances below this are left out of the sums.
constexpr double kNegligible = 1e-15;

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

 private:
  std::uint64_t bits() {
    const std::uint64_t z = splitmix64(state_);
    state_ += 0x9e3779b97f4a7c15ULL;
    return z;
  }
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

// How many known-good partners a suspect meets in a re-test pass when `suspects` of the hosts (a
// share) are suspects and the rest cleared: each cleared host meets one suspect a round, for as many
// rounds as the busiest suspect needs and at most kMaxPartnerRounds more (health/localise.h
// plan_retests): where most hosts are suspects, most meet fewer partners than they would. The
// chances of 0..`wanted` partners, and the suspects each cleared host meets.
struct PartnersMet {
  std::vector<double> chance;
  double per_cleared = 0;
};
PartnersMet partners_met(double suspects, int wanted) {
  PartnersMet out;
  out.chance.assign(static_cast<std::size_t>(wanted) + 1, 0.0);
  const double cleared = 1 - suspects;
  if (suspects <= 0 || cleared <= 0) {
    out.chance[suspects <= 0 ? static_cast<std::size_t>(wanted) : 0] = 1;
    return out;
  }
  const double rounds = std::max<double>(
      wanted + 1, std::min(std::ceil(wanted * suspects / cleared), static_cast<double>(kMaxPartnerRounds)));
  const double each = std::min<double>(wanted, cleared * rounds / suspects);  // partners per suspect
  out.per_cleared = std::min(rounds, wanted * suspects / cleared);
  // The first partner for every suspect in turn, then the second: all but the last get theirs.
  for (int j = 0; j <= wanted; ++j) {
    const double at_least = std::clamp(each - (j - 1), 0.0, 1.0);
    const double more = j < wanted ? std::clamp(each - j, 0.0, 1.0) : 0.0;
    out.chance[static_cast<std::size_t>(j)] = j == 0 ? 1 - std::clamp(each, 0.0, 1.0) : at_least - more;
  }
  return out;
}

// The fleet limit in log space from a healthy pair's median, and the noise the run would measure
// (0 where its shortfalls cannot show it: one peer each, whose ends' quartile is the pair itself).
struct RuleAtNoise {
  double limit = 0;      // log space, from a healthy pair's median
  double run_sigma = 0;  // health/fleet.h FleetReference::sigma
};

// The fleet rule's reference, allowance and sigma (health/fleet.h) over one noise-only fleet of the
// plan's shape, its `pairs`. The final judgement's ends also hold their re-tests' pairs: `retested`
// of the hosts (a share) are suspects.
RuleAtNoise one_noise_fleet(const std::vector<std::pair<int, int>>& pairs, int hosts, const PlanShape& plan,
                            const FleetRules& rules, double sigma, double retested, Normals& normals) {
  std::vector<double> value(pairs.size());
  std::vector<std::vector<double>> of_host(static_cast<std::size_t>(hosts));
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    value[i] = sigma * normals.next();
    of_host[static_cast<std::size_t>(pairs[i].first)].push_back(value[i]);
    of_host[static_cast<std::size_t>(pairs[i].second)].push_back(value[i]);
  }
  // The re-tested hosts, spread evenly over the fleet (a golden-ratio sequence): a pair of two is
  // measured again, each meets its partners, and the cleared hosts are those partners, shared.
  std::vector<bool> suspect(static_cast<std::size_t>(hosts));
  for (int h = 0; h < hosts; ++h)
    suspect[static_cast<std::size_t>(h)] = std::fmod((h + 1) * 0.6180339887498949, 1.0) < retested;
  for (const auto& [a, b] : pairs)
    if (suspect[static_cast<std::size_t>(a)] && suspect[static_cast<std::size_t>(b)]) {
      const double again = sigma * normals.next();
      of_host[static_cast<std::size_t>(a)].push_back(again);
      of_host[static_cast<std::size_t>(b)].push_back(again);
    }
  const PartnersMet met = partners_met(retested, plan.peers_per_suspect);
  const int met_by_cleared = static_cast<int>(std::lround(met.per_cleared));
  for (int h = 0; h < hosts; ++h) {
    // A suspect's partners: as many as the chances give a suspect at its place in the sequence.
    int extra = met_by_cleared;
    if (suspect[static_cast<std::size_t>(h)]) {
      double u = std::fmod((h + 1) * 0.7548776662466927, 1.0), sum = 0;
      extra = 0;
      while (extra + 1 < static_cast<int>(met.chance.size()) &&
             u >= (sum += met.chance[static_cast<std::size_t>(extra)]))
        ++extra;
    }
    for (int k = 0; k < extra; ++k) of_host[static_cast<std::size_t>(h)].push_back(sigma * normals.next());
  }
  const double reference = *good_quartile(value);
  const double widest = std::log(rules.bw_fraction_widest);
  std::vector<double> end_quartile;
  for (auto& v : of_host) end_quartile.push_back(v.empty() ? reference : quantile(std::move(v), 0.75));
  std::vector<double> shortfalls;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const double could = std::min(end_quartile[static_cast<std::size_t>(pairs[i].first)],
                                  end_quartile[static_cast<std::size_t>(pairs[i].second)]);
    if (could >= reference + widest) shortfalls.push_back(value[i] - could);
  }
  const double allowed = std::min(std::log(rules.bw_fraction), std::max(noise_fence(shortfalls), widest));
  return {reference + allowed, noise_sigma(shortfalls)};
}

// The same over enough noise-only fleets that their reference is the expected one (a fleet of 256
// hosts with one peer each has 128 pairs, whose upper quartile is itself noisy): the mean.
RuleAtNoise rule_at_noise(const PlanShape& plan, const FleetRules& rules, double sigma, double retested = 0) {
  constexpr int kHosts = 1024, kPeers = 64;  // the allowance has settled by this size
  constexpr std::size_t kValues = 32768;     // pairs in all, over the fleets
  const int hosts = std::clamp(plan.hosts, 2, kHosts);
  const int peers = std::clamp(plan.peers, 1, std::min(kPeers, hosts - 1));
  const auto pairs = noise_fleet_pairs(hosts, peers);
  const std::size_t fleets = std::clamp<std::size_t>(kValues / std::max<std::size_t>(1, pairs.size()), 1, 64);
  Normals normals;
  RuleAtNoise mean;
  for (std::size_t i = 0; i < fleets; ++i) {
    const RuleAtNoise one = one_noise_fleet(pairs, hosts, plan, rules, sigma, retested, normals);
    mean.limit += one.limit / static_cast<double>(fleets);
    mean.run_sigma += one.run_sigma / static_cast<double>(fleets);
  }
  return mean;
}

// One pair of a unit that carries `carries` reads under the limit `limit` (log space).
double pair_bad(double limit, double carries, const NoiseModel& noise) {
  const double sigma = std::max(noise.sigma, 1e-9);
  const double clean = normal_cdf((limit - std::log(carries)) / sigma);
  const double transient = normal_cdf((limit - std::log(carries * noise.transient_factor)) / sigma);
  return (1 - noise.transient_rate) * clean + noise.transient_rate * transient;
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
// A suspect left for re-tests: bad with someone, and not confirmed by kConfirmedByPeers peers.
bool suspect(int bad, int total) { return bad > 0 && !(culprit(bad, total) && bad >= kConfirmedByPeers); }

// What a re-test does to one pair of a unit. A suspect that is not a culprit has its bad pairs
// measured again (their other ends are not cleared), and such a pair stays bad when both figures
// lie beyond the limit by the noise of their mean (health/localise.h pair_edges: twice just under
// the limit is a lower number, not a deficit). A culprit's bad pairs clear its peers and stand, but
// where the same host pair is bad on another rail that is no culprit, the host pair is measured
// again on every rail. A known-good partner's pair is bad as any pair.
struct RetestChances {
  double kept = 0;          // a first-pass bad pair is bad after its re-test
  double culprit_kept = 1;  // ... of a culprit (measured again only where the host pair is suspect on another rail)
  double partner = 0;       // a new partner's pair is bad
  std::vector<double> partners;  // the chances of meeting 0, 1, ... partners in the first pass
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
    // A culprit's bad pairs clear its peers and stand; another suspect's are measured again.
    const std::vector<double> kept =
        binomial(static_cast<int>(b), culprit(static_cast<int>(b), u.total) ? c.culprit_kept : c.kept);
    for (std::size_t k = 0; k < kept.size(); ++k)
      for (std::size_t a = 0; a < added.size(); ++a) out.bad[k + a] += u.bad[b] * kept[k] * added[a];
  }
  return out;
}

// A unit's chances to end a culprit and not to, over the first-pass counts `among` allows, once its
// host is re-tested: every unit of the host in the first pass (its bad pairs again, and `partners`
// known-good partners), then each later pass where the unit is still a suspect.
std::pair<double, double> after_retests(UnitCounts u, const PlanShape& plan, const RetestChances& c,
                                        const std::vector<bool>& among, int partners) {
  for (std::size_t b = 0; b < u.bad.size(); ++b)
    if (!among[b]) u.bad[b] = 0;
  u = retest(u, partners, c, [](int, int) { return true; });
  for (int pass = 2; pass <= plan.retest_passes; ++pass) u = retest(u, plan.peers_per_suspect, c, suspect);
  double yes = 0, no = 0;
  for (std::size_t b = 0; b < u.bad.size(); ++b) (culprit(static_cast<int>(b), u.total) ? yes : no) += u.bad[b];
  return {yes, no};
}

// The chances of 0..units culprits among `units` independent units each a culprit with chance c
// (weights: not culprit, culprit; not normalised).
std::vector<double> culprit_counts(double no, double yes, int units) {
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

// The chances of 0..units culprit units of a host whose `units` rails each carry `carries`.
std::vector<double> host_culprits(const PlanShape& plan, int units, double p, const RetestChances& retested) {
  const UnitCounts first{binomial(plan.peers, p), plan.peers};
  auto first_pass_culprit = [&](bool only_settled) {
    double yes = 0, no = 0;
    for (std::size_t b = 0; b < first.bad.size(); ++b) {
      const int bad = static_cast<int>(b);
      if (only_settled && suspect(bad, first.total)) continue;
      (culprit(bad, first.total) ? yes : no) += first.bad[b];
    }
    return std::pair{yes, no};
  };
  if (plan.retest_passes <= 0) {
    const auto [yes, no] = first_pass_culprit(false);
    return culprit_counts(no, yes, units);
  }
  // Without a re-test: every unit settled in the first pass.
  const auto [settled_yes, settled_no] = first_pass_culprit(true);
  std::vector<double> out = culprit_counts(settled_no, settled_yes, units);
  // With one: every outcome, less those where every unit was settled, at the re-tested counts.
  std::vector<bool> all(first.bad.size(), true), settled(first.bad.size());
  for (std::size_t b = 0; b < first.bad.size(); ++b) settled[b] = !suspect(static_cast<int>(b), first.total);
  // The host meets as many partners as the pass has for it, on every rail alike.
  for (std::size_t j = 0; j < retested.partners.size(); ++j) {
    const int partners = static_cast<int>(j);
    const auto [any_yes, any_no] = after_retests(first, plan, retested, all, partners);
    const auto [s_yes, s_no] = after_retests(first, plan, retested, settled, partners);
    const std::vector<double> every = culprit_counts(any_no, any_yes, units);
    const std::vector<double> only_settled = culprit_counts(s_no, s_yes, units);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += retested.partners[j] * (every[k] - only_settled[k]);
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

}  // namespace

PlanPower plan_power(const PlanShape& plan, const FleetRules& rules, const NoiseModel& noise,
                     const std::vector<double>& carries) {
  PlanPower out;
  out.plan = plan;
  out.plan.rails = std::max(1, plan.rails);
  out.plan.peers = std::clamp(plan.peers, 1, std::max(1, plan.hosts - 1));
  PlanShape model = out.plan;  // what the sums run over
  model.peers = std::min(model.peers, kModelPeers);
  out.noise = noise;
  // The first pass's limit picks the suspects; the final one also reads the re-tests' pairs.
  RuleAtNoise rule = rule_at_noise(model, rules, noise.sigma);
  double suspects = 0;  // the share of the fleet's hosts the first pass leaves suspect
  if (model.retest_passes > 0) {
    const std::vector<double> first = binomial(model.peers, pair_bad(rule.limit, 1, noise));
    double settled = 0;
    for (std::size_t b = 0; b < first.size(); ++b)
      if (!suspect(static_cast<int>(b), model.peers)) settled += first[b];
    suspects = 1 - std::pow(settled, model.rails);
    rule = rule_at_noise(model, rules, noise.sigma, suspects);
  }
  const std::vector<double> partners = partners_met(suspects, model.peers_per_suspect).chance;
  const double limit = rule.limit;
  out.limit = std::exp(limit);
  // A re-tested pair's figures must lie past the limit by the noise of a mean of two, as the run
  // measures its noise.
  const double confirmed = limit - rule.run_sigma / std::sqrt(2.0);
  // `rails` of the host slowed to `fraction` (the others healthy enough to leave alone).
  auto chances = [&](double fraction, int rails) {
    const double p = pair_bad(limit, fraction, noise), p2 = pair_bad(confirmed, fraction, noise);
    const double kept = p > 0 ? std::min(1.0, p2 * p2 / p) : 0;
    double culprit_first = 0;
    const std::vector<double> first = binomial(model.peers, p);
    for (std::size_t b = 0; b < first.size(); ++b)
      if (culprit(static_cast<int>(b), model.peers)) culprit_first += first[b];
    // The host pair suspect on another rail: bad there, and that rail no culprit.
    const double again = 1 - std::pow(1 - p * (1 - culprit_first), rails - 1);
    return RetestChances{kept, 1 - again + again * kept, p, partners};
  };
  out.healthy_pair_bad = pair_bad(limit, 1, noise);
  out.healthy_node_flagged = found(host_culprits(model, model.rails, out.healthy_pair_bad, chances(1, model.rails)));
  out.expected_flagged = out.healthy_node_flagged * model.hosts;
  // Of two hosts, a slowed one slows every pair (the reference with them), and no host is left
  // to clear it: nothing is found.
  const bool findable = model.hosts >= 3;
  for (const double c : carries) {
    FaultPower f;
    f.carries = c;
    f.pair_bad = pair_bad(limit, c, noise);
    if (!findable) {
      out.faults.push_back(f);
      continue;
    }
    const std::vector<double> node = host_culprits(model, model.rails, f.pair_bad, chances(c, model.rails));
    f.node_found = found(node);
    f.node_blamed = blamed(node);
    f.rail_found = found(host_culprits(model, 1, f.pair_bad, chances(c, 1)));
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
