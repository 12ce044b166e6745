#include "health/confidence.h"

#include <algorithm>
#include <cmath>

namespace ibgpu {

namespace {

// A normal's upper tail past z sigmas.
double upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The chance that at least one of `count` independent readings lands in a tail of chance q.
double any_of(double q, int count) { return -std::expm1(static_cast<double>(std::max(1, count)) * std::log1p(-q)); }

// The chi-squared survival function at x with 2k degrees of freedom (closed form for even ones).
double chi_squared_even_tail(double x, int k) {
  if (x <= 0) return 1;
  const double half = x / 2;
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += std::exp(-half + i * std::log(half) - std::lgamma(i + 1.0));
  return std::min(1.0, sum);
}

}  // namespace

ConfidenceLevel confidence_level(double p) {
  if (p < kCertainBelow) return ConfidenceLevel::certain;
  if (p < kLikelyBelow) return ConfidenceLevel::likely;
  return ConfidenceLevel::weak;
}

Confidence confidence_beyond(double value, double against, LimitSense sense, double run_sigma, int count,
                             const ConfidenceRules& rules) {
  constexpr double kTiny = 1e-12;  // a pair that moved nothing reads as the smallest positive figure
  const double ratio = std::max(value, kTiny) / std::max(against, kTiny);
  const double gap = sense == LimitSense::floor ? -std::log(ratio) : std::log(ratio);
  Confidence c;
  c.method = run_sigma > 0 ? ConfidenceMethod::run_noise : ConfidenceMethod::profile_noise;
  c.noise = run_sigma > 0 ? run_sigma : rules.default_noise;
  c.count = std::max(1, count);
  c.sigmas = gap / c.noise;
  c.p = any_of(upper_tail(c.sigmas), c.count);
  c.level = confidence_level(c.p);
  return c;
}

std::optional<Confidence> combined_confidence(const std::vector<const Reason*>& findings) {
  if (findings.empty()) return std::nullopt;
  double x = 0;
  for (const Reason* r : findings) {
    if (!r || !r->confidence) return std::nullopt;
    x += -2 * std::log(std::max(r->confidence->p, 1e-300));
  }
  if (findings.size() == 1) return findings.front()->confidence;
  Confidence c;
  c.method = ConfidenceMethod::combined;
  c.count = static_cast<int>(findings.size());
  c.p = chi_squared_even_tail(x, c.count);
  c.level = confidence_level(c.p);
  return c;
}

HealthState held_to_confidence(HealthState state, Reason& reason, const ConfidenceRules& rules) {
  if (state != HealthState::failed || rules.drain_weak || !reason.confidence ||
      reason.confidence->level != ConfidenceLevel::weak)
    return state;
  reason.message += " (weak evidence: degraded, not failed; [confidence].drain_weak)";
  return HealthState::degraded;
}

}  // namespace ibgpu
