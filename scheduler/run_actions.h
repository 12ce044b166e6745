#pragma once
// Rank 0, after the report is written: applies the admission decision to the
// scheduler (scheduler/admission_actions.h builds the commands, scheduler/process.h
// runs them). A failing command changes no verdict and no exit code.
#include <ostream>
#include <string>
#include <vector>

#include "core/report.h"
#include "scheduler/admission_actions.h"

namespace ibgpu {

// Logs every command (or, with dry_run, what it would run) to `log`; returns
// the notes for the report: commands that failed, nodes left alone.
std::vector<std::string> run_admission_actions(const AdmissionActionOptions& options, const Report& report,
                                               std::ostream& log);

}  // namespace ibgpu
