#pragma once
// The one value every wait is built from: --timeout, the longest silence of
// any peer, carried as a duration. Each wait (a pair's message, an all-reduce,
// a gather, an agreement) gives up after that much silence; rank 0's gather of
// slow but living ranks (heartbeats) is capped by overall_wait. Messages name
// a wait with duration_text (core/units.h).
#include <algorithm>
#include <chrono>
#include <string>

#include "core/deadline.h"

namespace ibgpu {

// --timeout's default.
inline constexpr Seconds kDefaultTimeout{60};

// The cap on a wait that living, heartbeating peers may keep open: generous,
// for a fleet's slowest ranks, and never below two hours.
inline Seconds overall_wait(Seconds silence) { return std::max<Seconds>(std::chrono::hours(2), 100 * silence); }

}  // namespace ibgpu
