#pragma once
// Every statistic, one definition each, for probes, the judge and the reports alike: a probe's
// summary of its samples, the fleet's median (the baseline's, localisation's and the reports'
// are the same median), quantiles, the noise fence. Pure, in double precision (perftest's
// integer temporaries give a stddev of 0 below 1 us).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/result.h"

namespace ibgpu {

// Percentiles by nearest rank (p-th percentile = sorted[ceil(p*n)-1]: the p50 is the lower median),
// mean and population stddev (divide by n). Empty input gives n = 0 and zeros.
Stats summarize(std::vector<double> samples);

// perftest drops the largest `drop` samples (2 by default) before summarising latency, so one
// stray interrupt does not set the max; at least one sample is always kept.
Stats summarize_latency(std::vector<double> samples_us, std::size_t drop = 2);

// The value at rank floor(q * (n - 1)) of values sorted ascending: 0.5 is the lower median, 1 the
// largest; no value between two ranks is made up. Values must not be empty.
inline double sorted_lower_quantile(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
}

// The lower median (of an even count, the lower middle value); none of nothing.
inline std::optional<double> lower_median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

// The quantile q (0..1) of values sorted ascending, interpolated between the two nearest ranks
// (the usual definition, R's type 7); values must not be empty.
inline double sorted_quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// The same of values in any order.
inline double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

inline std::vector<double> sorted(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values;
}

// How far below the typical a reading must lie, in log space, to be beyond the noise that
// `readings` (log-space deviations, worse negative) show: Tukey's lower fence with the lower
// half's spread, past the lower quartile by three times its distance to the median (for a
// symmetric spread, 1.5 interquartile ranges; the lower half because a reading that is high
// pulls in the upper half of what it is held against). Never above 0. Fewer than
// kNoiseSample readings cannot tell noise from the fault they should show: 0 then, and
// callers check the size where "no fence" must differ from "no allowance".
constexpr std::size_t kNoiseSample = 8;
inline double noise_fence(const std::vector<double>& readings) {
  if (readings.size() < kNoiseSample) return 0;
  const std::vector<double> in_order = sorted(readings);
  const double q1 = sorted_quantile(in_order, 0.25), median = sorted_quantile(in_order, 0.5);
  return std::min(0.0, q1 - 3 * (median - q1));
}

// The spread of one reading in log space (a normal's sigma) from the same lower half of the
// deviations that noise_fence reads; 0 from fewer than kNoiseSample.
inline double noise_sigma(const std::vector<double>& readings) {
  if (readings.size() < kNoiseSample) return 0;
  constexpr double kQuartileInSigmas = 0.6745;  // a normal's lower quartile lies this far under its median
  const std::vector<double> in_order = sorted(readings);
  return (sorted_quantile(in_order, 0.5) - sorted_quantile(in_order, 0.25)) / kQuartileInSigmas;
}

// The good quartile of values where higher is better: the value three quarters
// of the way up, at the nearest rank at or above (never a mix of a slow and a
// fast figure: of {slow, slow, fast} it is fast). It is a good figure while
// fewer than a quarter of the values are. None of nothing.
inline std::optional<double> good_quartile(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  const auto rank = static_cast<std::ptrdiff_t>(std::ceil(0.75 * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + rank, values.end());
  return values[static_cast<std::size_t>(rank)];
}

// More than half: `part` of `whole`.
inline bool is_majority(int part, int whole) { return 2 * part > whole; }

}  // namespace ibgpu
