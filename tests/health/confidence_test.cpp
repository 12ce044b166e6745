// How sure a finding is: the normal tail over the run's family of measurements, Fisher's
// combination for a blame of several findings, and a failed finding on weak evidence held to
// degraded unless the profile drains on it.
#include "health/confidence.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ibgpu {
namespace {

TEST(Confidence, AFifteenPercentShortfallOnAQuietRunIsCertain) {
  // 0.85 of the reference with 1% noise: 16 sigmas, whatever the fleet's size.
  const Confidence c = confidence_beyond(0.85, 1.0, LimitSense::floor, 0.01, 4096, {});
  EXPECT_EQ(c.level, ConfidenceLevel::certain);
  EXPECT_EQ(c.method, ConfidenceMethod::run_noise);
  EXPECT_NEAR(c.sigmas, -std::log(0.85) / 0.01, 1e-9);
  EXPECT_LT(c.p, 1e-12);
}

TEST(Confidence, TheSameShortfallAmongManyNoisyMeasurementsIsWeak) {
  // 3.25 sigmas: one reading in 1,700 by chance; among 100 such readings, one in 18 runs.
  const double sigma = -std::log(0.85) / 3.25;
  const Confidence one = confidence_beyond(0.85, 1.0, LimitSense::floor, sigma, 1, {});
  EXPECT_NEAR(one.p, 5.77e-4, 1e-5);
  EXPECT_EQ(one.level, ConfidenceLevel::certain);
  const Confidence many = confidence_beyond(0.85, 1.0, LimitSense::floor, sigma, 100, {});
  EXPECT_NEAR(many.p, 1 - std::pow(1 - 5.77e-4, 100), 1e-3);
  EXPECT_EQ(many.level, ConfidenceLevel::weak);
  const Confidence some = confidence_beyond(0.85, 1.0, LimitSense::floor, sigma, 10, {});
  EXPECT_EQ(some.level, ConfidenceLevel::likely);
}

TEST(Confidence, ALatencyIsFarOutAbove) {
  const Confidence c = confidence_beyond(3.0, 1.5, LimitSense::ceiling, 0.1, 20, {});
  EXPECT_NEAR(c.sigmas, std::log(2.0) / 0.1, 1e-9);
  EXPECT_EQ(c.level, ConfidenceLevel::certain);
}

TEST(Confidence, WithoutTheRunsNoiseTheProfilesDefaultStandsIn) {
  ConfidenceRules rules;
  rules.default_noise = 0.05;
  // Just under a floor: 2% is 0.4 sigma of the default noise.
  const Confidence c = confidence_beyond(392, 400, LimitSense::floor, 0, 1, rules);
  EXPECT_EQ(c.method, ConfidenceMethod::profile_noise);
  EXPECT_DOUBLE_EQ(c.noise, 0.05);
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(c.level, ConfidenceLevel::weak);
  rules.default_noise = 0.005;
  EXPECT_EQ(confidence_beyond(392, 400, LimitSense::floor, 0, 1, rules).level, ConfidenceLevel::certain);
}

Reason with_p(double p) {
  Reason r{ReasonCode::NET_BW_OUTLIER, "", "bw_avg_GBps", 1.0, 2.0};
  r.confidence = Confidence{confidence_level(p), ConfidenceMethod::run_noise, p, 3, 0.1, 10};
  return r;
}

TEST(Confidence, FindingsOfOneBlameCombineByFishersMethod) {
  // Two at 0.1: X = 9.21 on 4 degrees of freedom, 0.056; three at 0.01: 1.1e-4.
  const Reason a = with_p(0.1), b = with_p(0.1);
  const auto two = combined_confidence({&a, &b});
  ASSERT_TRUE(two);
  EXPECT_EQ(two->method, ConfidenceMethod::combined);
  EXPECT_EQ(two->count, 2);
  EXPECT_NEAR(two->p, 0.01 * (1 - std::log(0.01)), 1e-9);
  EXPECT_EQ(two->level, ConfidenceLevel::weak);
  const Reason c = with_p(0.01), d = with_p(0.01), e = with_p(0.01);
  const auto three = combined_confidence({&c, &d, &e});
  const double half = -3 * std::log(0.01);
  EXPECT_NEAR(three->p, std::exp(-half) * (1 + half + half * half / 2), 1e-12);
  EXPECT_EQ(three->level, ConfidenceLevel::certain);
  // One finding is its own; a fact among them (a timeout) leaves the blame without one.
  EXPECT_DOUBLE_EQ(combined_confidence({&a})->p, 0.1);
  const Reason fact{ReasonCode::PROBE_TIMEOUT, "", "", std::nullopt, std::nullopt};
  EXPECT_FALSE(combined_confidence({&a, &fact}));
  EXPECT_FALSE(combined_confidence({&a, nullptr}));  // an outcome without a reason
  EXPECT_FALSE(combined_confidence({}));
}

TEST(Confidence, AFailedFindingOnWeakEvidenceIsDegradedUnlessTheProfileDrainsOnIt) {
  ConfidenceRules rules;
  Reason weak = with_p(0.2);
  EXPECT_EQ(held_to_confidence(HealthState::failed, weak, rules), HealthState::degraded);
  EXPECT_NE(weak.message.find("weak evidence"), std::string::npos);
  Reason likely = with_p(0.01);
  EXPECT_EQ(held_to_confidence(HealthState::failed, likely, rules), HealthState::failed);
  Reason fact{ReasonCode::PROBE_ERROR, "", "", std::nullopt, std::nullopt};
  EXPECT_EQ(held_to_confidence(HealthState::failed, fact, rules), HealthState::failed);
  Reason degraded = with_p(0.2);
  EXPECT_EQ(held_to_confidence(HealthState::degraded, degraded, rules), HealthState::degraded);
  rules.drain_weak = true;
  Reason drained = with_p(0.2);
  EXPECT_EQ(held_to_confidence(HealthState::failed, drained, rules), HealthState::failed);
}

}  // namespace
}  // namespace ibgpu
