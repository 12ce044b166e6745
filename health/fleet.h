#pragma once
// Fleet-relative rules: each measurement against what the run's own
// measurements of the same kind (probe id, size, shape, metric) say it should
// read. They catch what the floors miss (a link at 60% of its peers) and, being
// relative, never flag a cluster that is uniformly slower but above the floors.
//
// Two numbers per kind, both from the first pass (re-tests aim at suspects and
// would bias them):
// - the reference: the good quartile, the upper quartile of a bandwidth (the
//   lower of a latency). It stays a healthy figure while fewer than three
//   quarters of the measurements are bad: half the hosts of a fleet slow.
// - the noise: how far the measurements fall short of what they could read. A
//   pair could read what the slower of its two ends reads at its good quartile
//   (the upper quartile of its pairs: a pair goes no faster than its slower end), so a slow host
//   explains its own pairs and the shortfalls are the pairs' noise; another
//   measurement could read the reference. The limit widens to Tukey's fence below the shortfalls
//   (past their lower quartile by three times its distance to their median, in log space: the
//   lower half's spread, as a pair that reads high pulls in the upper half): a noisy
//   run widens its own limit, a quiet one keeps the profile's; fewer than eight
//   measurements cannot show noise apart from a fault and widen nothing. A
//   latency median may also read as far over the reference as the run's pairs
//   read their tail over their median (p99/p50, upper quartile): that much is the
//   hosts' scheduling, which a loaded machine shows in every pair. Likewise a
//   bandwidth may read as far under as the run's pairs typically average under
//   their best iteration (bw_avg over bw_peak, the median): a pair whose own
//   iterations vary by half cannot be told apart at 15%. A bandwidth limit
//   widens to [fleet].bw_fraction_widest at most: a pair at a third of its peers
//   is a finding however noisy the run; a latency one without end, as latency on
//   a loaded host is its scheduling.
// Pure.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "health/profile.h"
#include "health/thresholds.h"

namespace ibgpu {

// What one kind of measurement is held against.
struct FleetReference {
  double reference = 0;        // the good quartile of the first pass, or the baseline's median
  double limit = 0;            // bandwidth: under it is an outlier; latency: over it
  double noise = 1;            // the widening the run's noise asked for: a fraction (bandwidth), a multiple (latency)
  bool widened = false;        // the noise, not the profile, set the limit
  double sigma = 0;            // one measurement's spread in log space, from the shortfalls (0: too few to tell)
  int count = 0;               // first-pass measurements the reference is of (0: the baseline's)
  double failed_fraction = 0;  // bandwidth under reference x this is failed ([fleet].bw_fraction_failed)
};
using FleetReferences = std::unordered_map<std::string, FleetReference>;

// One reference per kind with at least `rules.min_fleet_size` first-pass
// measurements (or a baseline median); none when the rules are off. A latency
// tail (lat_us.p99) has none: a run's tails are its scheduling, judged against
// the profile's absolute ceilings only.
FleetReferences fleet_references(const std::vector<Measurement>& measurements, const FleetRules& rules,
                                 const std::unordered_map<std::string, double>* baseline_medians = nullptr);

// Degraded when the value is beyond the kind's limit, failed when a bandwidth
// is under the failed fraction of the reference; healthy otherwise or without
// a reference.
Finding judge_against_fleet(const Measurement& m, const FleetReferences& references);

// Absolute limits first; the fleet rule only when the floors pass. A
// measurement that no rule could judge (no limit in the profile and no
// reference) is NOT_JUDGED, saying what was missing: ibgpu's own gap, which
// changes no state (Evidence::not_judged).
// A finding carries its confidence (health/confidence.h): a floor's from the limit, an outlier's
// from the reference, with the kind's noise where the run measured it, over `kind_count`
// first-pass measurements of the kind in the run.
Finding judge_measurement(const Measurement& m, const FleetReferences& references, const FleetRules& rules,
                          const ConfidenceRules& confidence = {}, int kind_count = 1);

}  // namespace ibgpu
