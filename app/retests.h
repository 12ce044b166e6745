#pragma once
// Between the network pass and the all-reduce, within the same launch: rank 0
// judges the pairs measured so far, plans re-tests of the suspect ones (each
// suspect pair again, and its hosts with known-good peers: health/localise.h),
// and every rank runs them; up to `passes` times, until nothing is suspect.
// The same consultation also settles, with --budget, whether the all-reduce
// still fits: one answer from rank 0, so every rank takes the same path.
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/network.h"
#include "core/deadline.h"
#include "health/controls.h"
#include "health/profile.h"

namespace ibgpu {

struct BetweenSteps {
  int passes = 1;                 // re-test passes (0: none)
  int peers_per_suspect = 2;      // known-good peers each suspect host meets
  std::optional<Seconds> budget;  // the whole check's budget
  Clock::time_point started;      // when the check started (rank 0's clock decides)
  double collectives_estimate_s = 0;
  double retest_round_s = 0;  // one re-test round's worst case (its measurements at their caps)
  bool collectives = true;    // still planned
  // A saved baseline's medians (check --baseline): suspects are judged as the final verdicts are.
  const std::unordered_map<std::string, double>* reference_medians = nullptr;
};

struct BetweenOutcome {
  // This rank's re-test measurements (params "retest": pass) and the controls it ran (health/controls.h).
  std::vector<ProbeResult> results;
  bool collectives = true;         // run the all-reduce
  std::vector<std::string> notes;  // rank 0: what was re-tested or dropped, in words
};

// Every rank calls it with its own network results (all ranks, same options).
BetweenOutcome run_between_steps(MpiSession& session, const NetOptions& net, const Profile& profile,
                                 const BetweenSteps& steps, std::vector<ProbeResult> network, Seconds timeout,
                                 LiveChannel& live);

// Rank 0's decision for one pass, from every rank's network results so far
// (nullopt: the rank did not check in; its hosts are left out): the re-tests, and the controls
// of the verbs pairs that ended in an error (those not in `controls_done`), which run first. Pure.
struct RetestDecision {
  std::vector<std::vector<std::pair<std::string, std::string>>> rounds;  // host pairs per round
  std::vector<ControlOrder> controls;
  std::size_t suspects = 0;
  bool collectives = true;
  std::vector<std::string> notes;
};
RetestDecision decide_retests(const std::vector<std::optional<std::string>>& payloads,
                              const std::vector<std::string>& rank_hosts, const Profile& profile, int pass,
                              int peers_per_suspect, bool retest_allowed,
                              const std::unordered_map<std::string, double>* reference_medians = nullptr,
                              const std::vector<ControlOrder>& controls_done = {});

// The same decision from the results themselves (hosts in `absent` are left out): what
// decide_retests does once it has read the payloads, and what the fleet simulator calls.
RetestDecision decide_retests_from(const std::vector<ProbeResult>& probes, const std::set<std::string>& absent,
                                   const Profile& profile, int pass, int peers_per_suspect, bool retest_allowed,
                                   const std::unordered_map<std::string, double>* reference_medians = nullptr);

// With a budget, only the re-test rounds that fit what is left of it, each at its worst case
// (steps.retest_round_s), stay in the decision, within kBudgetForMeasuring of the budget. The
// suspects of the rounds cut stay unconfirmed, and a note says so. Pure.
void trim_retests_to_budget(RetestDecision& d, const BetweenSteps& steps, Seconds elapsed);

}  // namespace ibgpu
