#pragma once
// Fleet-relative rules: each measurement against the median of its kind
// (same probe id, size and transport) across the run. They catch what the
// floors miss (a link at 80% of its peers) and, being relative, never flag a
// cluster that is uniformly slower but above the floors. Pure.
#include <string>
#include <unordered_map>
#include <vector>

#include "health/profile.h"
#include "health/thresholds.h"

namespace ibgpu {

// The median of each kind (Measurement::kind), for kinds with at least
// `min_fleet_size` measurements; none for the others, or when the rules are
// off. Re-tests aim at suspects: they are judged against the median but are
// not part of it.
using FleetMedians = std::unordered_map<std::string, double>;
FleetMedians fleet_medians(const std::vector<Measurement>& measurements, const FleetRules& rules);

// Degraded when the value is under fraction x median (bandwidth) or over
// multiple x median (latency); healthy otherwise or without a median.
Finding judge_against_fleet(const Measurement& m, const FleetMedians& medians, const FleetRules& rules);

// Absolute limits first; the fleet rule only when the floors pass.
Finding judge_measurement(const Measurement& m, const FleetMedians& medians, const FleetRules& rules);

}  // namespace ibgpu
