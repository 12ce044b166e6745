#include "health/fleet.h"

#include <algorithm>

#include "health/statistics.h"

namespace ibgpu {

FleetMedians fleet_medians(const std::vector<Measurement>& measurements, const FleetRules& rules) {
  FleetMedians medians;
  if (!rules.enabled) return medians;
  std::unordered_map<std::string, std::vector<double>> values;
  for (const auto& m : measurements)
    if (!m.retest) values[m.kind].push_back(m.value);
  for (auto& [kind, v] : values)
    if (v.size() >= static_cast<std::size_t>(std::max(1, rules.min_fleet_size)))
      medians[kind] = *lower_median(std::move(v));
  return medians;
}

Finding judge_against_fleet(const Measurement& m, const FleetMedians& medians, const FleetRules& rules) {
  const auto found = medians.find(m.kind);
  if (!rules.enabled || found == medians.end()) return {};
  const double median = found->second;
  const bool floor = m.sense == LimitSense::floor;
  const double limit = floor ? median * rules.bw_fraction_of_median : median * rules.lat_multiple_of_median;
  if (floor ? m.value >= limit : m.value <= limit) return {};
  const std::string message = m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) +
                              (floor ? " under " + format_value(rules.bw_fraction_of_median)
                                     : " over " + format_value(rules.lat_multiple_of_median)) +
                              " x the fleet median " + format_value(median);
  return Finding{HealthState::degraded, Reason{m.outlier_code, message, m.metric, m.value, limit}};
}

Finding judge_measurement(const Measurement& m, const FleetMedians& medians, const FleetRules& rules) {
  Finding absolute = judge_absolute(m);
  if (absolute.state != HealthState::healthy) return absolute;
  return judge_against_fleet(m, medians, rules);
}

}  // namespace ibgpu
