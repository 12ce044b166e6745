#include "probes/cycle_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ibgpu {
namespace {

TEST(CycleClock, TicksAdvance) {
  const std::uint64_t first = cycle_ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GT(cycle_ticks(), first);
}

TEST(CycleClock, CalibratedTicksMeasureTime) {
  const TickCalibration calibration;
  const std::uint64_t from = cycle_ticks();
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::uint64_t to = cycle_ticks();
  const double want_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  const double us_per_tick = calibration.us_per_tick();
  ASSERT_GT(us_per_tick, 0);
  // The calibration spans the measured stretch, so the two agree closely even on a busy machine.
  EXPECT_NEAR(ticks_to_us(from, to, us_per_tick), want_us, 0.1 * want_us);
  EXPECT_LT(ticks_to_us(to, from, us_per_tick), 0);
}

}  // namespace
}  // namespace ibgpu
