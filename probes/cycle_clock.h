#pragma once
// Timestamps for per-iteration latency samples from the CPU's cycle counter,
// as perftest takes them (get_cycles). Reading the counter costs nanoseconds
// everywhere; steady_clock is that cheap only while the kernel keeps time
// with the TSC. With HPET, acpi_pm or xen as the clocksource (VMs, some
// clouds) every read is a system call of a microsecond or more, and one read
// lands inside every sample. Ticks become time through a rate measured
// against steady_clock over the same run, so the counter must tick at a
// constant rate (x86 invariant TSC, the ARM generic timer), and, like
// perftest, a sample assumes its thread stays on one CPU.
#include <cstdint>

#include "core/deadline.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace ibgpu {

inline std::uint64_t cycle_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#elif defined(__aarch64__)
  std::uint64_t ticks = 0;
  asm volatile("mrs %0, cntvct_el0" : "=r"(ticks));
  return ticks;
#else
  return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
#endif
}

// Calibrates ticks against steady_clock from construction to each call of
// us_per_tick(): the longer the run, the finer the rate.
class TickCalibration {
 public:
  TickCalibration() : ticks_(cycle_ticks()), time_(Clock::now()) {}
  // Microseconds per tick since construction; 0 when the counter did not advance.
  double us_per_tick() const;

 private:
  std::uint64_t ticks_;
  Clock::time_point time_;
};

// Ticks from `from` to `to` in microseconds (negative if `to` came first).
inline double ticks_to_us(std::uint64_t from, std::uint64_t to, double us_per_tick) {
  return static_cast<double>(static_cast<std::int64_t>(to - from)) * us_per_tick;
}

}  // namespace ibgpu
