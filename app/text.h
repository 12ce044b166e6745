#pragma once
// Human text on progress lines and in notes: durations read from the command line, and lists cut
// short (a duration printed: core/units.h).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/deadline.h"

namespace ibgpu {

// "90s", "15m", "2h", "1h30m", "90" -> seconds; throws std::invalid_argument. At most
// kMaxDurationS: a deadline further out would overflow the clock's count.
inline constexpr double kMaxDurationS = 366.0 * 86400;
double parse_duration(const std::string& text);

// How many columns the output is read at: $COLUMNS where set (40 to 1000: shells do not export it,
// so a value there was set on purpose), else the window size of the terminal stdout writes to
// (at least 40); nullopt for neither (a file, a pipe). Under mpirun stdout is a pseudo-terminal
// without a size: there $COLUMNS tells (mpirun -x COLUMNS; srun passes the environment).
std::optional<std::size_t> terminal_width();

// The first `shown` items joined with ", ", then ", +N more" for the rest.
std::string short_list(const std::vector<std::string>& items, std::size_t shown);

}  // namespace ibgpu
