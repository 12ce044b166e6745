#pragma once
// Burn-in: check rounds repeated for hours in one launch, each judged on its
// own (health/judge.h), folded here into one verdict per entity. The tally is
// incremental: a round's report can be dropped once added. Pure.
//
// Burn-in verdict of an entity, over the rounds it was judged in (the states
// and counts come from the profile's [burn_in] rules):
// - not healthy in any round, the same findings throughout: as bad as it was
//   (failed, degraded, else unknown);
// - healthy in some rounds, and failed or unknown in others, or degraded in at
//   least flaky_min_rounds (2) (for an entity with figures, rounds in which one
//   read beyond the run's own round-to-round noise of that figure, from eight
//   readings: a small group's fleet rule cannot learn its noise in one round,
//   the rounds show it): BURN_IN_FLAKY, flaky_state (failed: a link that
//   collapsed for 40 s of 120 is not fit for a pool), with the rounds and the
//   worst figure of those rounds, when it was read and the figure's median;
// - never healthy, but with a finding (a reason other than CHECK_SKIPPED or
//   NOT_JUDGED) in at least flaky_min_rounds rounds and not in all: flaky the
//   same way (a node unknown throughout for its skipped GPU checks whose
//   network fault came and went; failed stays failed);
// - otherwise, its bandwidth read round by round as a sequence
//   (health/sequence.h), whatever the rounds' verdicts said (a fault that began
//   between a pair's first measurement and its re-test goes unflagged in its
//   round): a round is bad where it read under drop_fraction (0.2, a fifth)
//   of its other rounds' median (the upper of an even count; a node: the middle one of its links'
//   drops, from two links, more than half of them; a
//   link's drop in a round one of its hosts dropped in is the host's). Bad in
//   one round: BURN_IN_SEEN_ONCE, seen_once_state (degraded: a host at an
//   eighth of its bandwidth for one round of three is a finding, not noise);
//   in flaky_min_rounds and not all: BURN_IN_FLAKY. On this project's loaded
//   test hosts clean links read 0.6 of their other rounds at worst (0.34 in
//   the round a host beside them was at a twentieth) and latencies spike
//   6-fold, so latencies are not read. The history's
//   transient is the same reading of a node's checks (health/history.h);
// - otherwise healthy (a shallower drop, or degraded rounds within the noise,
//   show in the statistics);
// - and whatever the rounds said, a figure that got steadily worse over the run
//   (Mann-Kendall, one-sided p < 0.001: beyond the run's own noise) by at least
//   drift_fraction (Theil-Sen slope, first round to last) adds BURN_IN_DRIFT at
//   drift_state (degraded): a GPU that throttles as it heats.
// A drop's and a drift's reason cite the figure's results (thresholds.h cite: probe,
// size, ports; a node's own end first). Each entity's class (core/report.h
// BurnInClass) is set here, from its verdict and counts: the table prints and counts it, and it
// agrees with the codes the HTML and Prometheus read (flaky is BURN_IN_FLAKY's).
// A verdict not healthy lists every reason code of its rounds, once each, with
// the rounds it appeared in. A round without a verdict for an entity (a re-test
// pair, the GPUs of a host whose rank was lost) neither passes nor fails it:
// the node carries what went wrong there. The fabric's entities (switch,
// uplink, path) are the exception: the judge names them only to blame them, so
// a round with link verdicts and none for them passed them.
#include <map>
#include <optional>
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
    Reason cites;                // its results' probe, size and ports (cite), for the reasons it gives
  };
  struct EntityTally {
    BurnInEntity stats;
    std::map<ReasonCode, Reason> last_reason;  // per reason code, the latest
    std::vector<ReasonCode> reason_order;      // codes in order of first appearance
    std::vector<int> not_healthy_rounds;
    std::vector<FigureTally> figures;
    std::unordered_map<std::string, std::size_t> figure_index;
  };

  EntityTally& entity(const Entity& e);
  BurnInEntity entity_stats(const EntityTally& t) const;
  void add_verdicts(const Report& round);
  void add_figures(const Report& round);
  void add_counters(const Report& round);
  // e: the entity's statistics as finish() made them (figures with their medians); came_and_went:
  // for an entity never healthy, the rounds of its findings that came and went.
  Reason flaky_reason(const EntityTally& t, const BurnInEntity& e, const std::vector<int>& came_and_went) const;
  // r cites the results behind figure f of t (f is one of entity_stats(t)'s figures, in t's order).
  static void cite_figure(Reason& r, const EntityTally& t, const BurnInEntity& e, const BurnInFigure& f);

  Profile profile_;
  int rounds_ = 0;
  int network_rounds_ = 0;  // rounds with link verdicts: the fabric was judged in them
  std::vector<EntityTally> entities_;
  std::map<EntityKind, std::unordered_map<std::string, std::size_t>> index_;  // kind -> id -> entity
  std::vector<HostInventory> hosts_;
  std::unordered_map<std::string, std::size_t> host_index_;
  std::string first_started_, last_finished_;
  std::vector<std::string> round_started_;  // by round, from 1 at index 0
};

// "7, 9, 12" (at most `shown` rounds, then "... (N more)").
std::string rounds_text(const std::vector<int>& rounds, std::size_t shown = 10);

}  // namespace ibgpu
