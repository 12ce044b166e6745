#include "health/fleet.h"

#include <algorithm>

namespace ibgpu {

std::unordered_map<std::string, double> fleet_medians(const std::vector<Measurement>& measurements,
                                                      const FleetRules& rules) {
  std::unordered_map<std::string, std::vector<double>> values;
  // Re-tests aim at suspects: counting them would pull the median towards the faults.
  for (const auto& m : measurements)
    if (!m.probe || !m.probe->params.contains("retest")) values[m.kind].push_back(m.value);
  std::unordered_map<std::string, double> medians;
  if (!rules.enabled) return medians;
  for (auto& [kind, v] : values) {
    if (v.size() < static_cast<std::size_t>(std::max(1, rules.min_fleet_size))) continue;
    // Lower median for even counts: nth_element keeps this linear.
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
    std::nth_element(v.begin(), mid, v.end());
    medians[kind] = *mid;
  }
  return medians;
}

Finding judge_against_fleet(const Measurement& m, const std::unordered_map<std::string, double>& medians,
                            const FleetRules& rules) {
  auto it = medians.find(m.kind);
  if (!rules.enabled || it == medians.end()) return {};
  const double median = it->second;
  const bool floor = m.sense == LimitSense::floor;
  const double limit = floor ? median * rules.bw_fraction_of_median : median * rules.lat_multiple_of_median;
  if (floor ? m.value >= limit : m.value <= limit) return {};
  const std::string message = m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) +
                              (floor ? " under " + format_value(rules.bw_fraction_of_median)
                                     : " over " + format_value(rules.lat_multiple_of_median)) +
                              " x the fleet median " + format_value(median);
  return Finding{HealthState::degraded, Reason{m.outlier_code, message, m.metric, m.value, limit}};
}

Finding judge_measurement(const Measurement& m, const std::unordered_map<std::string, double>& medians,
                          const FleetRules& rules) {
  Finding absolute = judge_absolute(m);
  if (absolute.state != HealthState::healthy) return absolute;
  return judge_against_fleet(m, medians, rules);
}

}  // namespace ibgpu
