#include "probes/cycle_clock.h"

#include <chrono>

namespace ibgpu {

double TickCalibration::us_per_tick() const {
  const std::uint64_t ticks = cycle_ticks() - ticks_;
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - time_).count();
  return ticks > 0 ? us / static_cast<double>(ticks) : 0;
}

}  // namespace ibgpu
