#pragma once
// Pure judging: results and a profile in, verdicts and the run summary out.
// No MPI, no I/O.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/fabric_topology.h"
#include "core/inventory.h"
#include "core/report.h"
#include "core/verdict.h"
#include "health/history.h"
#include "health/localise.h"
#include "health/profile.h"

namespace ibgpu {

struct Judgement {
  std::vector<Verdict> verdicts;
  RunSummary summary;
  // The run's own pair-bandwidth noise: one measurement's spread in log space (health/fleet.h) of
  // the bandwidth kind with the most first-pass pair measurements; 0 where none had enough to tell.
  // The plan's power restated at it (check's "power at the run's noise" note).
  double bw_sigma = 0;
};

// `reference_medians` (a saved baseline, health/baseline.h) replaces the
// run's own fleet median for every kind it has. `topology` (--topology) lets
// localisation blame a leaf switch or its uplinks (health/fabric.h). `history` (check --history):
// the nodes' earlier checks take part in their admission (health/history.h), and this check's
// records are left in it.
Judgement judge(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes, const Profile& profile,
                const std::unordered_map<std::string, double>* reference_medians = nullptr,
                const FabricTopology* topology = nullptr, NodeHistory* history = nullptr);

// For re-tests within a launch: the host pairs bad by localisation's fold
// (health/localise.h pair_edges: bad in every observation so far, the deficit
// reproduced) and not explained by a culprit that kConfirmedByPeers peers
// confirm, and the hosts this run has cleared, to re-pair the suspects with:
// blamed for nothing, and every bad pair of theirs explained by a culprit at
// its other end. Judged as judge() does (with the same reference medians, if
// any). Sorted; pure.
struct RetestCandidates {
  std::vector<HostPair> suspects;       // first < second
  std::vector<std::string> known_good;  // cleared
};
RetestCandidates retest_candidates(const std::vector<ProbeResult>& probes, const Profile& profile,
                                   const std::unordered_map<std::string, double>* reference_medians = nullptr);

// For commands that describe or measure rather than judge (inventory, probe):
// errors fail, lost ranks leave the run incomplete, and a skipped probe is
// fine for a description (absence is data) but leaves a measurement incomplete.
enum class SkippedMeans { fine, incomplete };
RunSummary summarise_without_verdicts(const std::vector<ProbeResult>& probes, SkippedMeans skipped);

}  // namespace ibgpu
