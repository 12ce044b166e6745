#pragma once
// The decision table: from a node's evidence to its state, its action and the
// exit code that follows, and from the nodes' decisions to the run's. Written
// once, here; docs/verdicts.md prints the same rows (a test keeps them in step).
//
// Three kinds of evidence (core/verdict.h Evidence): a finding about the
// hardware, what the node could not be checked for because of the node
// (fail closed), and what ibgpu could not or chose not to judge (recorded,
// never a state). A node's state is its worst definite finding; what is
// missing stands beside it and keeps the node out of the pool. Pure.
#include <span>
#include <string_view>
#include <vector>

#include "core/verdict.h"

namespace ibgpu {

// One row: a node's worst definite finding (healthy: none) and whether some
// of its checks are missing because of the node.
struct DecisionRow {
  HealthState finding;
  bool missing;
  HealthState state;  // the node's state
  Action action;
  int exit_code;               // the run's code where this node is the worst
  std::string_view admission;  // in words, as the summary and docs say it
};

// Every row, in the order of docs/verdicts.md.
std::span<const DecisionRow> decision_table();

// The row for a node's evidence. `finding` is healthy, degraded or failed.
const DecisionRow& decide(HealthState finding, bool missing);

// What a node's verdict holds as evidence: its worst finding and whether a
// check is missing (a reason the node could not be checked for, or a state
// of unknown that no reason explains, as a burn-in's unchecked rounds).
struct NodeEvidence {
  HealthState finding = HealthState::healthy;
  bool missing = false;
};
NodeEvidence evidence_of(const Verdict& node);

// The run's exit code from its verdicts: the worst node's row (2 above 3
// above 1 above 0: a node not admitted for a finding outranks one not decided),
// at least 1 where a link, switch, uplink or path has a finding (a fabric fault
// drains no node), at least 3 where a link's error no device reproduced (PROBE_ERROR_NOT_REPRODUCED:
// the link not decided, its nodes admitted; health/controls.h), 3 where nothing was judged.
int run_exit_code(const std::vector<Verdict>& verdicts);

// The exit code of a node's decision (its row's, found by state and action).
int exit_code_of(HealthState state, Action action);

// An interrupted run decides nothing: its summary admits and drains no node
// (and maps none for Kubernetes); its code is 3, or 2 where a finding was made.
void decide_nothing(RunSummary& summary);

// The run's state for an exit code: 0 healthy, 1 degraded, 2 failed, 3 unknown.
HealthState run_state_for(int exit_code);

}  // namespace ibgpu
