#include "health/decision.h"

#include <array>

namespace ibgpu {

namespace {

using enum HealthState;

constexpr std::array kRows{
    DecisionRow{healthy, false, healthy, Action::admit, 0, "admitted healthy"},
    DecisionRow{degraded, false, degraded, Action::admit_degraded, 1,
                "admitted degraded (without the GPUs and rails it excludes)"},
    DecisionRow{failed, false, failed, Action::drain, 2, "not admitted: a finding"},
    DecisionRow{healthy, true, unknown, Action::drain, 3, "not decided: a check is missing because of the node"},
    DecisionRow{degraded, true, degraded, Action::drain, 3,
                "not decided: a check is missing because of the node (its finding stands beside it)"},
    DecisionRow{failed, true, failed, Action::drain, 2, "not admitted: a finding (and a check is missing)"},
};

// Exit codes by what the operator acts on: a node not admitted for a finding first, then one
// not decided, then one admitted degraded.
int severity(int exit_code) {
  switch (exit_code) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 3:
      return 2;
    default:
      return 3;
  }
}

bool fabric(const Entity& e) { return e.kind() == EntityKind::link || is_fabric(e.kind()); }

}  // namespace

std::span<const DecisionRow> decision_table() { return kRows; }

const DecisionRow& decide(HealthState finding, bool missing) {
  if (finding == unknown) finding = healthy;  // not a finding: what is missing is `missing`
  for (const DecisionRow& row : kRows)
    if (row.finding == finding && row.missing == missing) return row;
  return kRows.back();  // unreachable: every (finding, missing) has a row
}

NodeEvidence evidence_of(const Verdict& node) {
  NodeEvidence e;
  if (node.state != unknown) e.finding = node.state;
  for (const Reason& r : node.reasons) {
    if (r.evidence == Evidence::unchecked) e.missing = true;
    if (r.evidence == Evidence::finding && r.state != unknown) e.finding = worst(e.finding, r.state);
  }
  if (node.state == unknown) e.missing = true;
  return e;
}

int run_exit_code(const std::vector<Verdict>& verdicts) {
  int code = 0;
  bool any_node = false;
  for (const Verdict& v : verdicts) {
    int mine = 0;
    if (v.entity.kind() == EntityKind::node && v.action) {
      any_node = true;
      mine = exit_code_of(v.state, *v.action);
    } else if (fabric(v.entity) && (v.state == degraded || v.state == failed)) {
      mine = 1;
    } else if (fabric(v.entity) && v.state == unknown && has_reason(&v, ReasonCode::PROBE_ERROR_NOT_REPRODUCED)) {
      mine = 3;  // an error no device reproduced: not decided, re-run (its nodes stay admitted)
    }
    if (severity(mine) > severity(code)) code = mine;
  }
  return any_node ? code : exit_code_for(unknown);
}

int exit_code_of(HealthState state, Action action) {
  for (const DecisionRow& row : kRows)
    if (row.state == state && row.action == action) return row.exit_code;
  return exit_code_for(unknown);  // a decision no row makes (a hand-edited report)
}

void decide_nothing(RunSummary& summary) {
  summary.admit.clear();
  summary.admit_degraded.clear();
  summary.drain.clear();
  summary.kubernetes.clear();
  summary.exit_code = summary.exit_code == 2 ? 2 : 3;
  summary.state = run_state_for(summary.exit_code);
}

HealthState run_state_for(int exit_code) {
  switch (exit_code) {
    case 0:
      return healthy;
    case 1:
      return degraded;
    case 2:
      return failed;
    default:
      return unknown;
  }
}

}  // namespace ibgpu
