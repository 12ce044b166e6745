#pragma once
// One entity's judged outcomes in order, oldest first: a burn-in's rounds (health/burn_in.h) and a
// node's checks (health/history.h). Both read them with the same rules, so that a burn-in and the
// history say the same of the same sequence:
//  - seen once: bad in one of the steps looked at and clean in the others (a burn-in's deep drop
//    in one round, BURN_IN_SEEN_ONCE; the history's transient, HISTORY_TRANSIENT);
//  - repeated: bad in at least M of them and clean in some (BURN_IN_FLAKY; HISTORY_FLAPPING, which
//    also asks for two spells: a node drained and checked again and again until its repair is bad
//    in one long spell, and was repaired, not flapping);
//  - a spell: bad steps in a row, ended by a clean one.
// Where they differ, the difference is in what a step is, not in the reading: a burn-in's round
// failed or unchecked once is flaky (a qualification allows none), while the history's failed
// check was already decided by the decision table when it was made.
// Unknown steps (something missing) are neither bad nor clean, and neither end a spell nor start
// one. A steady fall of a figure (drift) reads the figures, not the outcomes: health/burn_in.h.
#include <cstdint>
#include <optional>
#include <span>

namespace ibgpu {

enum class Outcome : std::uint8_t { clean, bad, unknown };

struct SequenceReading {
  int judged = 0;  // clean or bad steps
  int bad = 0;
  int spells = 0;
  std::optional<int> last_bad;    // its position (0-based)
  int clean_before_last_bad = 0;  // clean steps in a row just before it (unknown ones passed over)

  bool seen_once() const { return bad == 1 && judged > 1; }
  bool repeated(int min_bad) const { return bad >= min_bad && bad < judged; }
};

SequenceReading read_sequence(std::span<const Outcome> steps);

}  // namespace ibgpu
