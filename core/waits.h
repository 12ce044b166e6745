#pragma once
// The one value every wait is built from: --timeout, the longest silence of
// any peer. Each wait (a pair's message, an all-reduce, a gather, an
// agreement) gives up after that much silence; rank 0's gather of slow but
// living ranks (heartbeats) is capped by overall_wait. Messages name a wait
// with seconds_text.
#include <algorithm>
#include <chrono>
#include <string>

namespace ibgpu {

// --timeout's default, in seconds.
inline constexpr double kDefaultTimeout_s = 60;

// The cap on a wait that living, heartbeating peers may keep open: generous,
// for a fleet's slowest ranks, and never below two hours.
inline std::chrono::duration<double> overall_wait(std::chrono::duration<double> silence) {
  return std::max<std::chrono::duration<double>>(std::chrono::hours(2), 100 * silence);
}

// A wait's length in messages: "60", "0.5", "1e+04" (printf's %g); callers add " s".
std::string seconds_text(double seconds);

}  // namespace ibgpu
