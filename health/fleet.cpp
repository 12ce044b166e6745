#include "health/fleet.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/statistics.h"
#include "health/confidence.h"

namespace ibgpu {

namespace {

bool is_floor(const Measurement& m) { return m.sense == LimitSense::floor; }

// A tail (lat_us.p99) has no fleet rule: its measurements carry no outlier code.
bool has_fleet_rule(const Measurement& m) { return m.outlier_code.has_value(); }

// Higher is better, in log space: a bandwidth's log, a latency's negated log.
// Zero reads as the smallest positive figure (a pair that moved nothing).
double goodness(double value, LimitSense sense) {
  const double v = std::log(std::max(value, 1e-12));
  return sense == LimitSense::floor ? v : -v;
}
double goodness(const Measurement& m) { return goodness(m.value, m.sense); }

// One end of a pair measurement: its host, and its rail when the scope names two.
struct PairUnit {
  std::string_view host, device;
  bool operator==(const PairUnit&) const = default;
};
struct PairUnitHash {
  std::size_t operator()(const PairUnit& u) const {
    const std::size_t host = std::hash<std::string_view>{}(u.host);
    return host ^ (std::hash<std::string_view>{}(u.device) + 0x9e3779b97f4a7c15 + (host << 6) + (host >> 2));
  }
};

// The ends of a pair measurement; none for others.
std::optional<std::pair<PairUnit, PairUnit>> pair_units(const Measurement& m) {
  const Scope& s = m.probe->scope;
  if (!is_pair_probe(*m.probe) || s.hosts.size() != 2) return std::nullopt;
  const bool rails = s.devices.size() == 2;
  return std::pair{PairUnit{s.hosts[0], rails ? std::string_view(s.devices[0]) : ""},
                   PairUnit{s.hosts[1], rails ? std::string_view(s.devices[1]) : ""}};
}

// How far each first-pass measurement of a kind falls short of what it could
// read, in log space (those of the measurements that could read at least `healthy`): a pair,
// what the slower of its ends reads at its good
// quartile (the upper quartile of its pairs, re-tests included: a slow end
// explains its own pairs; not its best pair, which grows with the peers it met);
// another, the reference.
std::vector<double> shortfalls(const std::vector<const Measurement*>& kind, double reference, double healthy) {
  // Per measurement its ends (as positions in of_unit), or none.
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::pair<std::size_t, std::size_t>> ends(kind.size(), {kNone, kNone});
  std::unordered_map<PairUnit, std::size_t, PairUnitHash> unit_index;
  std::vector<std::vector<double>> of_unit;  // per unit the goodness of its pairs
  auto unit = [&](const PairUnit& u) {
    const auto [it, fresh] = unit_index.try_emplace(u, of_unit.size());
    if (fresh) of_unit.emplace_back();
    return it->second;
  };
  for (std::size_t i = 0; i < kind.size(); ++i)
    if (const auto units = pair_units(*kind[i])) {
      ends[i] = {unit(units->first), unit(units->second)};
      of_unit[ends[i].first].push_back(goodness(*kind[i]));
      of_unit[ends[i].second].push_back(goodness(*kind[i]));
    }
  std::vector<double> typical_of;
  typical_of.reserve(of_unit.size());
  for (auto& values : of_unit) typical_of.push_back(quantile(std::move(values), 0.75));
  std::vector<double> out;
  for (std::size_t i = 0; i < kind.size(); ++i) {
    const Measurement* m = kind[i];
    if (m->retest) continue;
    const auto [a, b] = ends[i];
    const double could = a != kNone ? std::min(typical_of[a], typical_of[b]) : reference;
    if (could >= healthy) out.push_back(goodness(*m) - could);
  }
  return out;
}

// A latency median within the spread the run's own pairs show between their median and their
// tail is scheduling, not the path: the upper quartile of the kind's p99/p50 (a pair whose median
// is itself delayed shows less of it), in log space (<= 0 in goodness), or 0 for other kinds. On a quiet fabric it is
// small (2.2 over 1.3 us) and the profile's multiple stands; where ranks wait for a core it is hundreds.
double tail_spread(const std::vector<const Measurement*>& kind) {
  std::vector<double> ratios;
  for (const Measurement* m : kind) {
    if (m->retest || std::string_view(m->metric) != metrics::lat_us_p50) continue;
    const Metric* lat = find_metric(*m->probe, metrics::lat_us);
    if (lat && lat->summary && lat->summary->p50 > 0) ratios.push_back(lat->summary->p99 / lat->summary->p50);
  }
  const auto typical = good_quartile(std::move(ratios));
  return typical && *typical > 1 ? -std::log(*typical) : 0;
}

// A bandwidth within the spread the run's pairs show within themselves is their noise: the typical
// (median) average over peak iteration of the kind's first pass (bw_avg_GBps over bw_peak_GBps),
// in log space (<= 0), or 0 for other kinds. A quiet fabric's pairs average 0.98 of their best
// iteration and the profile's fraction stands; on a loaded host half of it.
double within_spread(const std::vector<const Measurement*>& kind, double healthy) {
  std::vector<double> ratios;
  for (const Measurement* m : kind) {
    if (m->retest || std::string_view(m->metric) != metrics::bw_avg_GBps || goodness(*m) < healthy) continue;
    const auto peak = typical(*m->probe, metrics::bw_peak_GBps);
    if (peak && *peak > 0 && m->value > 0) ratios.push_back(std::min(1.0, m->value / *peak));
  }
  const auto median = lower_median(std::move(ratios));
  return median ? std::log(*median) : 0;
}

FleetReference reference_of(const std::vector<const Measurement*>& kind, const FleetRules& rules,
                            std::optional<double> baseline) {
  const Measurement& any = *kind.front();
  const LimitSense sense = any.sense;
  std::vector<double> first;
  for (const Measurement* m : kind)
    if (!m->retest) first.push_back(goodness(*m));
  FleetReference r;
  r.count = baseline ? 0 : static_cast<int>(first.size());
  const double reference = baseline ? goodness(*baseline, sense) : *good_quartile(first);
  // The noise widens a bandwidth limit to bw_fraction_widest at most (never past the profile's own).
  // The noise is the healthy measurements': those past the widest limit (a slow host's pairs,
  // steady under its rate limit) would make a noisy run look quiet.
  const double widest = sense == LimitSense::floor ? std::log(rules.bw_fraction_widest) : -HUGE_VAL;
  const double healthy = reference + widest;
  // The allowance below the reference, in log space (<= 0): the profile's, widened by the noise.
  // The shortfalls' fence (noise_fence): fewer than kNoiseSample of them (of three pairs, one
  // slow link is a third of the sample) widen nothing, re-tests decide. Its lower-half spread: a
  // pair that reads high raises its ends' good quartile, so the interquartile range read lognormal
  // noise a fifth narrower than it is and flagged 2.6% of a fleet's healthy pairs where Tukey's
  // flags under 1% (at 4,096 nodes, thousands of suspects).
  const std::vector<double> short_of = shortfalls(kind, reference, healthy);
  const double fence = std::min({noise_fence(short_of), tail_spread(kind), within_spread(kind, healthy)});
  r.sigma = noise_sigma(short_of);
  const double profile = sense == LimitSense::floor ? std::log(rules.bw_fraction) : -std::log(rules.lat_multiple);
  const double allowed = std::min(profile, std::max(fence, widest));
  auto value_of = [&](double g) { return std::exp(sense == LimitSense::floor ? g : -g); };
  r.reference = value_of(reference);
  r.limit = value_of(reference + allowed);
  r.noise = std::exp(sense == LimitSense::floor ? fence : -fence);
  r.widened = fence < profile;
  if (sense == LimitSense::floor) r.failed_fraction = std::min(rules.bw_fraction_failed, rules.bw_fraction_widest);
  return r;
}

}  // namespace

FleetReferences fleet_references(const std::vector<Measurement>& measurements, const FleetRules& rules,
                                 const std::unordered_map<std::string, double>* baseline_medians) {
  FleetReferences out;
  if (!rules.enabled) return out;
  std::unordered_map<std::string, std::vector<const Measurement*>> kinds;
  for (const auto& m : measurements)
    if (has_fleet_rule(m)) kinds[m.figure.text()].push_back(&m);
  for (const auto& [kind, ms] : kinds) {
    std::optional<double> baseline;
    if (baseline_medians)
      if (const auto it = baseline_medians->find(kind); it != baseline_medians->end() && it->second > 0)
        baseline = it->second;
    const auto first = std::count_if(ms.begin(), ms.end(), [](const Measurement* m) { return !m->retest; });
    if (baseline || (first > 0 && first >= std::max(1, rules.min_fleet_size)))
      out.emplace(kind, reference_of(ms, rules, baseline));
  }
  return out;
}

Finding judge_against_fleet(const Measurement& m, const FleetReferences& references) {
  const auto found = references.find(m.figure.text());
  if (found == references.end() || !has_fleet_rule(m)) return {};
  const FleetReference& r = found->second;
  const bool floor = is_floor(m);
  if (floor ? m.value >= r.limit : m.value <= r.limit) return {};
  const std::string of = r.count > 0 ? (floor ? "the upper quartile of " : "the lower quartile of ") +
                                           std::to_string(r.count) + " in this run"
                                     : "the baseline's median";
  const double failed_at = r.reference * r.failed_fraction;
  if (floor && m.value < failed_at) {
    const std::string message = m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) + " under " +
                                format_value(failed_at) + " (" + format_value(r.failed_fraction) +
                                " x the fleet reference " + format_value(r.reference) + ", " + of +
                                "; the fleet rule's failed level, [fleet].bw_fraction_failed)";
    return Finding{HealthState::failed, Reason{*m.outlier_code, message, m.metric, m.value, failed_at}};
  }
  const double times = r.limit / r.reference;
  const std::string message = m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) +
                              (floor ? " under " : " over ") + format_value(r.limit) + " (" + format_value(times) +
                              " x the fleet reference " + format_value(r.reference) + ", " + of +
                              (r.widened ? "; widened for this run's noise" : "") + ")";
  return Finding{HealthState::degraded, Reason{*m.outlier_code, message, m.metric, m.value, r.limit}};
}

Finding judge_measurement(const Measurement& m, const FleetReferences& references, const FleetRules& rules,
                          const ConfidenceRules& confidence, int kind_count) {
  // The run's noise for this kind, where it could tell (health/confidence.h).
  const auto kind = references.find(m.figure.text());
  const double sigma = kind != references.end() ? kind->second.sigma : 0;
  const int count = std::max(1, kind_count);
  Finding absolute = judge_absolute(m);
  if (absolute.state != HealthState::healthy) {
    // A floor: how far past the limit it reads.
    absolute.reason->confidence =
        confidence_beyond(m.value, *absolute.reason->threshold, m.sense, sigma, count, confidence);
    return absolute;
  }
  const bool has_limit = m.limit && !m.limit->empty();
  const bool no_rule_holds_it = !has_limit && !has_fleet_rule(m) && !m.floor_not_applied.empty();
  if (!no_rule_holds_it && (has_limit || !has_fleet_rule(m) || kind != references.end())) {
    Finding outlier = judge_against_fleet(m, references);
    // An outlier: how far from the reference, what a healthy one reads.
    if (outlier.reason)
      outlier.reason->confidence =
          confidence_beyond(m.value, kind->second.reference, m.sense, sigma, count, confidence);
    return cited(std::move(outlier), *m.probe);
  }
  const std::string no_limit = m.floor_not_applied.empty() ? "no limit in the profile" : m.floor_not_applied;
  const std::string why = !has_fleet_rule(m) ? "no fleet rule for it"
                          : !rules.enabled
                              ? "the fleet rule is off"
                              : "fewer than " + std::to_string(std::max(1, rules.min_fleet_size)) +
                                    " such measurements to compare (the fleet rule's [fleet].min_fleet_size)";
  Reason reason{ReasonCode::NOT_JUDGED,
                m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) + " not judged: " + no_limit +
                    " and " + why,
                m.metric, m.value, std::nullopt};
  reason.evidence = Evidence::not_judged;
  cite(reason, *m.probe);
  return Finding{HealthState::healthy, std::move(reason)};
}

}  // namespace ibgpu
