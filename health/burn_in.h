#pragma once
// Burn-in: check rounds repeated for hours in one launch, each judged on its
// own (health/judge.h), folded here into one verdict per entity. The tally is
// incremental: a round's report can be dropped once added. Pure.
//
// Burn-in verdict of an entity, over the rounds it was judged in:
// - failed (or unknown) in every one: as bad as it was (failed, else unknown);
// - failed or unknown in some but not all: failed with BURN_IN_FLAKY (a link
//   that failed 1 round in 20 is not fit for a pool);
// - degraded in a majority: degraded;
// - otherwise healthy (a degraded minority shows in the statistics).
// The reasons of the rounds that made the verdict are summarised once per
// code, with the rounds they appeared in. A round without a verdict for an
// entity (a re-test pair, the GPUs of a host whose rank was lost) neither
// passes nor fails it: the node carries what went wrong there.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/inventory.h"
#include "core/report.h"
#include "core/verdict.h"
#include "health/profile.h"

namespace ibgpu {

struct BurnInResult {
  std::vector<HostInventory> hosts;  // the fullest inventory seen of each host
  std::vector<Verdict> verdicts;     // with node actions (decide_admission)
  RunSummary summary;
  BurnInStats stats;  // duration_s and interval_s are the caller's to fill
};

class BurnInTally {
 public:
  // The profile of the rounds: it says which numbers are judged (extract_measurements).
  explicit BurnInTally(Profile profile);

  // The next round (rounds count from 1), as judged.
  void add(const Report& round);
  int rounds() const { return rounds_; }
  BurnInResult finish() const;

 private:
  struct FigureTally {
    BurnInFigure figure;
    std::vector<double> values;  // every round's: ~100 rounds of a few figures each
  };
  struct EntityTally {
    BurnInEntity stats;
    // Per reason code: the latest reason, and the worst state of the rounds it came from.
    struct LastReason {
      HealthState state = HealthState::healthy;
      Reason reason;
    };
    std::unordered_map<std::string, LastReason> last_reason;
    std::vector<std::string> reason_order;  // codes in order of first appearance
    std::vector<FigureTally> figures;
    std::unordered_map<std::string, std::size_t> figure_index;
  };

  EntityTally& entity(const Entity& e);
  void add_verdicts(const Report& round);
  void add_figures(const Report& round);
  void add_counters(const Report& round);

  Profile profile_;
  int rounds_ = 0;
  std::vector<EntityTally> entities_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::size_t>> index_;  // kind -> id -> entity
  std::vector<HostInventory> hosts_;
  std::unordered_map<std::string, std::size_t> host_index_;
  std::string first_started_, last_finished_;
};

// "7, 9, 12" (at most `shown` rounds, then "... (N more)").
std::string rounds_text(const std::vector<int>& rounds, std::size_t shown = 10);

}  // namespace ibgpu
