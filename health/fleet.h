#pragma once
// Fleet-relative rules: each measurement against the median of its kind
// (same probe id, size and transport) across the run. They catch what the
// floors miss (a link at 80% of its peers) and, being relative, never flag a
// cluster that is uniformly slower but above the floors. Pure.
#include <optional>
#include <vector>

#include "health/profile.h"
#include "health/thresholds.h"

namespace ibgpu {

// The median of each kind (by MeasurementKinds index) of the values given
// per kind, for kinds with at least `min_fleet_size` of them; none for the
// others, or when the rules are off. Re-tests (Measurement::retest) are
// judged against the median but are not part of it: leave them out.
using FleetMedians = std::vector<std::optional<double>>;
FleetMedians fleet_medians(std::vector<std::vector<double>> values_by_kind, const FleetRules& rules);

// Degraded when the value is under fraction x median (bandwidth) or over
// multiple x median (latency); healthy otherwise or without a median.
Finding judge_against_fleet(const Measurement& m, const FleetMedians& medians, const FleetRules& rules);

// Absolute limits first; the fleet rule only when the floors pass.
Finding judge_measurement(const Measurement& m, const FleetMedians& medians, const FleetRules& rules);

}  // namespace ibgpu
