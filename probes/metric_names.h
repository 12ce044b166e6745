#pragma once
// A result's metrics by name: one, or a fixed set found in one walk over
// them, for readers of a fleet's results (the judge's GPU records, the
// table's rows) that look up the same dozen names in tens of thousands.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "probes/result.h"

namespace ibgpu {

// Sorted as a result's metrics are, so that one walk finds them all; a name
// looked up that is not in the set does not compile.
template <std::size_t N>
struct MetricNames {
  std::array<std::string_view, N> names;
  consteval explicit MetricNames(std::array<std::string_view, N> sorted) : names(sorted) {
    if (!std::is_sorted(names.begin(), names.end())) throw "metric names must be sorted";
  }
  consteval std::size_t operator[](std::string_view name) const {
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == name) return i;
    throw "no such metric name";
  }
};

// The metrics of the set, in its order; null for those the result lacks.
template <std::size_t N>
std::array<const Metric*, N> find_metrics(const Metrics& metrics, const MetricNames<N>& wanted) {
  std::array<const Metric*, N> found{};
  std::size_t i = 0;
  for (auto it = metrics.begin(); it != metrics.end() && i < N;) {
    // Most names differ in their first letter: no call to compare the rest.
    const std::string& name = it->first;
    const std::string_view want = wanted.names[i];
    const int order = !name.empty() && name[0] != want[0]
                          ? static_cast<unsigned char>(name[0]) - static_cast<unsigned char>(want[0])
                          : std::string_view(name).compare(want);
    if (order == 0) found[i++] = &it->second;
    if (order <= 0) ++it;
    else ++i;
  }
  return found;
}

// The typical value of a metric found, if any.
inline std::optional<double> typical(const Metric* m) { return m ? m->typical() : std::nullopt; }

// The typical value of the result's metric of that name, if it has one.
inline std::optional<double> typical(const ProbeResult& p, std::string_view name) {
  const auto it = p.metrics.find(name);
  return it == p.metrics.end() ? std::nullopt : it->second.typical();
}

}  // namespace ibgpu
