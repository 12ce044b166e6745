#include "scheduler/run_actions.h"

#include "scheduler/process.h"

namespace ibgpu {

namespace {

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  if (line.size() > 200) line = line.substr(0, 197) + "...";
  return line;
}

std::string failure(const PlannedAction& a, const std::vector<std::string>& argv, const ProcessOutcome& out) {
  std::string text =
      std::string(to_string(a.kind)) + " of " + a.host + " failed (" + out.describe() + "): " + quote_argv(argv);
  if (const std::string said = first_line(out.output); !said.empty()) text += ": " + said;
  return text;
}

// Slurm resume: only a node that ibgpu drained. Slurm drain: not a node that
// someone else drained (their reason would be replaced, and a later fit check
// would then resume it); when Slurm does not answer, the drain goes ahead.
// go: run the action; else why not (a note when something is wrong or a
// human drained it).
struct GuardAnswer {
  bool go = false;
  std::string note;  // for the report
  std::string log;   // for the log only
};

GuardAnswer ask_drain_guard(const PlannedAction& a, double timeout_s) {
  const ProcessOutcome out = run_process(a.guard_query, timeout_s);
  const auto node = out.ok() ? parse_scontrol_show_node(out.output) : std::nullopt;
  if (node && drained_by_someone_else(*node))
    return {false,
            a.host + " left drained as it is: its Slurm drain reason is not ibgpu's (Reason=" +
                first_line(node->reason) + ")",
            ""};
  return {true, "", ""};
}

GuardAnswer ask_guard(const PlannedAction& a, double timeout_s) {
  if (a.kind == ActionKind::drain) return ask_drain_guard(a, timeout_s);
  const ProcessOutcome out = run_process(a.guard_query, timeout_s);
  if (!out.ok()) return {false, failure(a, a.guard_query, out), ""};
  const auto node = parse_scontrol_show_node(out.output);
  if (!node)
    return {false, "resume of " + a.host + " skipped: no State= in the answer of " + quote_argv(a.guard_query), ""};
  if (!node->drained())
    return {false, "", a.host + " is not drained in Slurm (State=" + node->state + "): nothing to resume"};
  if (!drained_by_ibgpu(*node))
    return {false,
            a.host + " left drained: its Slurm drain reason is not ibgpu's (Reason=" + first_line(node->reason) +
                "); resume it by hand if it is fit",
            ""};
  return {true, "", ""};
}

}  // namespace

std::vector<std::string> run_admission_actions(const AdmissionActionOptions& options, const Report& report,
                                               std::ostream& log) {
  std::vector<std::string> notes;
  for (const PlannedAction& a : plan_admission_actions(report.verdicts, options)) {
    if (options.dry_run) {
      log << "ibgpu: dry run: " << to_string(a.kind) << ' ' << a.host;
      if (!a.guard_query.empty())
        log << (a.kind == ActionKind::drain ? " (unless " : " (if ") << quote_argv(a.guard_query)
            << (a.kind == ActionKind::drain ? " shows it drained by someone else)" : " shows it drained by ibgpu)");
      log << ": " << quote_argv(a.argv) << '\n';
      continue;
    }
    if (!a.guard_query.empty()) {
      const GuardAnswer guard = ask_guard(a, options.timeout_s);
      if (!guard.log.empty()) log << "ibgpu: " << guard.log << '\n';
      if (!guard.note.empty()) {
        log << "ibgpu: " << guard.note << '\n';
        notes.push_back(guard.note);
      }
      if (!guard.go) continue;
    }
    const ProcessOutcome out = run_process(a.argv, options.timeout_s);
    if (out.ok()) {
      log << "ibgpu: " << to_string(a.kind) << ' ' << a.host << ": " << quote_argv(a.argv) << " (exit 0)\n";
    } else {
      notes.push_back(failure(a, a.argv, out));
      log << "ibgpu: " << notes.back() << '\n';
    }
  }
  log.flush();
  return notes;
}

}  // namespace ibgpu
