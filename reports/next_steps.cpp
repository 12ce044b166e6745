#include "reports/next_steps.h"

namespace ibgpu {

std::string actions_taken(const Report& r) {
  if (r.run.interrupted) return "The run was interrupted: no admission action was run (re-run it).";
  switch (r.run.actions) {
    case AdmissionActions::run:
      return "Admission actions run once this report is written; what they did is in the run's notes.";
    case AdmissionActions::dry_run:
      return "Dry run: the admission commands were printed on stderr, not run; nothing was drained.";
    case AdmissionActions::none:
      break;
  }
  return "No admission action was requested, so nothing was drained (--slurm-drain or --drain-cmd apply it).";
}

}  // namespace ibgpu
