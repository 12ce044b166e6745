#include "health/fleet.h"

#include <algorithm>

namespace ibgpu {

FleetMedians fleet_medians(std::vector<std::vector<double>> values_by_kind, const FleetRules& rules) {
  FleetMedians medians(values_by_kind.size());
  if (!rules.enabled) return medians;
  for (std::size_t k = 0; k < values_by_kind.size(); ++k) {
    auto& v = values_by_kind[k];
    if (v.empty() || v.size() < static_cast<std::size_t>(std::max(1, rules.min_fleet_size))) continue;
    // Lower median for even counts: nth_element keeps this linear.
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
    std::nth_element(v.begin(), mid, v.end());
    medians[k] = *mid;
  }
  return medians;
}

Finding judge_against_fleet(const Measurement& m, const FleetMedians& medians, const FleetRules& rules) {
  if (!rules.enabled || m.kind_index >= medians.size() || !medians[m.kind_index]) return {};
  const double median = *medians[m.kind_index];
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
