#include "health/sequence.h"

namespace ibgpu {

SequenceReading read_sequence(std::span<const Outcome> steps) {
  SequenceReading r;
  bool in_spell = false;
  int clean_run = 0;  // clean steps in a row so far
  for (std::size_t i = 0; i < steps.size(); ++i) {
    switch (steps[i]) {
      case Outcome::unknown:
        break;
      case Outcome::clean:
        ++r.judged;
        ++clean_run;
        in_spell = false;
        break;
      case Outcome::bad:
        ++r.judged;
        ++r.bad;
        if (!in_spell) ++r.spells;
        in_spell = true;
        r.last_bad = static_cast<int>(i);
        r.clean_before_last_bad = clean_run;
        clean_run = 0;
        break;
    }
  }
  return r;
}

}  // namespace ibgpu
