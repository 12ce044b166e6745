#pragma once
// A node's earlier checks, and what they decide now (`check --history DIR`). Each check of a node
// leaves one record: when, which run, the state its own evidence gave (before history) and the
// action the pool took. Under the profile's [history] rules (health/profile.h HistoryRules):
//  - flapping: bad (degraded or failed) in flapping_bad of the last `window` judged checks, this
//    one included, in two spells or more (clean between them; one long spell is a failure that
//    was repaired, not a flap): failed, drained, also when this check was clean (HISTORY_FLAPPING);
//  - lemon: bad again within lemon_days of coming back from a drain for a finding: failed,
//    drained (HISTORY_LEMON);
//  - transient: the first bad check after transient_clean clean ones, none bad in the window, its
//    findings all measurements between hosts: admitted degraded with a watch (HISTORY_TRANSIENT).
// Unknown checks (something missing) count as neither bad nor clean; a node with something
// missing now is decided by the decision table alone. Pure: the records are read and written by
// app/history_store.h.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/verdict.h"
#include "health/profile.h"

namespace ibgpu {

// One check of one node.
struct CheckRecord {
  std::int64_t time = 0;                     // seconds since the epoch (UTC)
  std::string run;                           // the run's id
  HealthState state = HealthState::unknown;  // from this check's own evidence (before history)
  Action action = Action::drain;             // what the pool did (after history)
  std::vector<std::string> codes;            // the check's own finding codes
};
bool is_bad(const CheckRecord& r);  // degraded or failed

// What the history says about this check.
struct HistoryCall {
  std::optional<Reason> reason;        // HISTORY_*, or none
  std::optional<HealthState> finding;  // the node's finding from now on, where the history changes it
};

// `past`: the node's earlier records, oldest first. `now`: this check's record (state from its
// own evidence). `transient_eligible`: every finding of this check is a measurement between
// hosts and nothing is missing.
HistoryCall judge_history(std::span<const CheckRecord> past, const CheckRecord& now, bool transient_eligible,
                          const HistoryRules& rules);

// Whether a node's finding codes could be a transient: all of the network pair and all-reduce groups.
bool transient_codes(const std::vector<ReasonCode>& findings);

// The input and output of the history step of the admission (health/admission.h): the nodes'
// earlier records by host, the time of this check, and, filled in, this check's record of each
// node judged.
struct NodeHistory {
  std::map<std::string, std::vector<CheckRecord>, std::less<>> past;
  HistoryRules rules;
  std::int64_t now = 0;
  std::string run;
  std::vector<std::pair<std::string, CheckRecord>> outcomes;
};

// For `ibgpu history`: a node's story in figures. A failure is a bad check after a clean one (or
// the first check); the time between failures is from one failure to the next.
struct NodeStory {
  int checks = 0, bad = 0, failures = 0;
  std::optional<double> mean_time_between_failures_s;
  HistoryCall last;  // what its history said of its last check
};
NodeStory story_of(std::span<const CheckRecord> records, const HistoryRules& rules);

}  // namespace ibgpu
