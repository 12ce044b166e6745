#include "core/statistics.h"

#include <numeric>

namespace ibgpu {

namespace {

// The rank is computed in integers (percentile in parts per 10000): ceil(0.999 * n) in
// floating point can land one rank off when p * n is meant to be a whole number.
double nearest_rank(const std::vector<double>& sorted, std::size_t per_10000) {
  const std::size_t n = sorted.size();
  const std::size_t rank = (per_10000 * n + 9999) / 10000;
  return sorted[std::clamp<std::size_t>(rank, 1, n) - 1];
}

}  // namespace

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.p50 = nearest_rank(samples, 5000);
  s.p90 = nearest_rank(samples, 9000);
  s.p99 = nearest_rank(samples, 9900);
  s.p999 = nearest_rank(samples, 9990);
  const double n = static_cast<double>(s.n);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  // Two passes: summing squares first and subtracting mean^2 cancels badly for tight latencies.
  double squares = 0;
  for (const double x : samples) squares += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(squares / n);
  return s;
}

Stats summarize_latency(std::vector<double> samples_us, std::size_t drop) {
  if (samples_us.size() > 1) {
    const std::size_t keep = samples_us.size() - std::min(drop, samples_us.size() - 1);
    std::nth_element(samples_us.begin(), samples_us.begin() + static_cast<std::ptrdiff_t>(keep - 1), samples_us.end());
    samples_us.resize(keep);
  }
  return summarize(std::move(samples_us));
}

}  // namespace ibgpu
