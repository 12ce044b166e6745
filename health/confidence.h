#pragma once
// How sure a finding from measurements is: the chance that the run's own noise alone would read a
// figure that far out, and a word for it. Pure.
//
// One measurement `gap` past what it is held against (log space: a bandwidth's shortfall from a
// floor or the fleet reference, a latency's excess over a ceiling), of a kind whose single
// measurement spreads by `sigma` (log space; the run's own, health/fleet.h, else the profile's
// [confidence].default_noise), among `count` measurements of that kind:
//     p = 1 - (1 - Phi(-gap / sigma))^count
// a normal's one-sided tail, over the run's family of such measurements (at 4,096 nodes, readings
// three sigmas out happen by chance). certain: p < 0.001; likely: p < 0.05; weak otherwise.
// Several findings that make one blame (a node bad with each of its peers, a switch under its
// pairs) combine by Fisher's method: X = -2 sum ln p_i is chi-squared with 2k degrees of freedom
// where each is noise alone.
//
// A failed finding on weak evidence is degraded, admitted and flagged, unless the profile drains
// on it ([confidence].drain_weak).
#include <optional>
#include <vector>

#include "core/verdict.h"
#include "health/profile.h"
#include "health/thresholds.h"

namespace ibgpu {

inline constexpr double kCertainBelow = 0.001;
inline constexpr double kLikelyBelow = 0.05;

ConfidenceLevel confidence_level(double p);

// `value` beyond `against` (a limit or a reference) as `sense` reads it; `run_sigma` 0 where the
// run could not measure its noise (the profile's default stands in).
Confidence confidence_beyond(double value, double against, LimitSense sense, double run_sigma, int count,
                             const ConfidenceRules& rules);

// Fisher's combination of the findings' confidences; none when any of them has none (a fact, a
// timeout: certain in its own way; a null finding is an outcome without a reason) or there are none.
std::optional<Confidence> combined_confidence(const std::vector<const Reason*>& findings);

// The state a finding gives: failed on weak evidence is degraded unless rules.drain_weak, and the
// message says so.
HealthState held_to_confidence(HealthState state, Reason& reason, const ConfidenceRules& rules);

}  // namespace ibgpu
