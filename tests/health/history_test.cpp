// check --history (health/history.h): a node's earlier checks and this one, in; what the operator
// acts on, out: the node's state, action, the run's exit code and the drain reason. Checks an hour
// apart; "clean", "bad" and "drained" as the records say them.
#include "health/history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "health/admission.h"
#include "health/verdict_book.h"
#include "tests/core/names.h"

namespace ibgpu {
namespace {

constexpr std::int64_t kHour = 3600;
constexpr std::int64_t kStart = 1'796'000'000;

// A record of a check `hours` after the start: c clean (admitted), b bad and admitted degraded
// (a transient), d bad and drained, u unknown (drained, something missing).
CheckRecord record(char kind, int hours) {
  CheckRecord r{kStart + hours * kHour, "run" + std::to_string(hours), HealthState::healthy, Action::admit, {}};
  if (kind == 'b') r = {r.time, r.run, HealthState::failed, Action::admit_degraded, {"NET_BW_OUTLIER"}};
  if (kind == 'd') r = {r.time, r.run, HealthState::failed, Action::drain, {"NET_BW_OUTLIER"}};
  if (kind == 'u') r = {r.time, r.run, HealthState::unknown, Action::drain, {}};
  return r;
}

// The records of a story "ccbd": one check an hour.
std::vector<CheckRecord> story(const std::string& kinds) {
  std::vector<CheckRecord> out;
  for (std::size_t i = 0; i < kinds.size(); ++i) out.push_back(record(kinds[i], static_cast<int>(i)));
  return out;
}

struct Decided {
  HealthState state;
  Action action;
  int exit_code;
  std::string drain_reason;
  CheckRecord kept;
};

// Node h1 now: a finding with `code` in `state` (none for healthy), after `past`, with these rules.
Decided decide(const std::vector<CheckRecord>& past, HealthState now, const char* code = "NET_BW_OUTLIER",
               const HistoryRules& rules = {}, bool missing = false) {
  VerdictBook book;
  Verdict& node = book.at(Entity::node("h1"));
  if (now != HealthState::healthy)
    VerdictBook::add(node, now, Reason{testing::code(code), "test", "", std::nullopt, std::nullopt});
  if (missing)
    VerdictBook::add(
        node, HealthState::unknown,
        Reason{testing::code("CHECK_SKIPPED"), "test", "", std::nullopt, std::nullopt, Evidence::unchecked});
  std::vector<Verdict> verdicts = book.take();
  NodeHistory history{{{"h1", past}}, rules, kStart + static_cast<std::int64_t>(past.size()) * kHour, "now", {}};
  decide_admission(verdicts, {}, {}, &history);
  const RunSummary summary = summarise(verdicts);
  EXPECT_EQ(history.outcomes.size(), 1u);
  return {verdicts[0].state, *verdicts[0].action, summary.exit_code, short_reasons(verdicts[0]),
          history.outcomes.at(0).second};
}

TEST(History, NoPastDecidesAsTheTable) {
  const Decided o = decide({}, HealthState::failed);
  EXPECT_EQ(o.state, HealthState::failed);
  EXPECT_EQ(o.action, Action::drain);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.drain_reason, "failed: NET_BW_OUTLIER");
  EXPECT_EQ(o.kept.state, HealthState::failed);
  EXPECT_EQ(o.kept.action, Action::drain);
  EXPECT_EQ(o.kept.codes, std::vector<std::string>{"NET_BW_OUTLIER"});
}

TEST(History, AFirstTransientAfterCleanChecksIsAdmittedWithAWatch) {
  const Decided o = decide(story("cc"), HealthState::failed);
  EXPECT_EQ(o.state, HealthState::degraded);
  EXPECT_EQ(o.action, Action::admit_degraded);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.drain_reason, "degraded: NET_BW_OUTLIER,HISTORY_TRANSIENT");
  // What is kept is the check's own state, and what the pool did.
  EXPECT_EQ(o.kept.state, HealthState::failed);
  EXPECT_EQ(o.kept.action, Action::admit_degraded);
}

TEST(History, NoTransientWithoutEnoughCleanChecksOrForAPartOrWithSomethingMissing) {
  EXPECT_EQ(decide(story("c"), HealthState::failed).action, Action::drain);   // one clean of 2
  EXPECT_EQ(decide(story("cu"), HealthState::failed).action, Action::drain);  // unknown is not clean
  // A GPU finding is never a transient, nor a check with something missing.
  EXPECT_EQ(decide(story("ccc"), HealthState::failed, "GPU_XID").action, Action::drain);
  const Decided missing = decide(story("ccc"), HealthState::failed, "NET_BW_OUTLIER", {}, true);
  EXPECT_EQ(missing.action, Action::drain);
  EXPECT_EQ(missing.exit_code, 2);
  HistoryRules never;
  never.transient_clean = 0;
  EXPECT_EQ(decide(story("ccc"), HealthState::failed, "NET_BW_OUTLIER", never).action, Action::drain);
}

TEST(History, ASecondBadCheckInTheWindowIsNoTransient) {
  const Decided o = decide(story("ccbc"), HealthState::failed);
  EXPECT_EQ(o.state, HealthState::failed);
  EXPECT_EQ(o.action, Action::drain);
  EXPECT_EQ(o.drain_reason, "failed: NET_BW_OUTLIER");
}

TEST(History, BadInThreeOfTheLastSixIsFlappingAndNotAdmittedEvenWhenCleanNow) {
  const Decided now_bad = decide(story("ccbcd"), HealthState::degraded);
  EXPECT_EQ(now_bad.state, HealthState::failed);
  EXPECT_EQ(now_bad.action, Action::drain);
  EXPECT_EQ(now_bad.exit_code, 2);
  EXPECT_EQ(now_bad.drain_reason, "failed: NET_BW_OUTLIER,HISTORY_FLAPPING");
  const Decided now_clean = decide(story("cbcdd"), HealthState::healthy);
  EXPECT_EQ(now_clean.state, HealthState::failed);
  EXPECT_EQ(now_clean.action, Action::drain);
  EXPECT_EQ(now_clean.drain_reason, "failed: HISTORY_FLAPPING");
  EXPECT_EQ(now_clean.kept.state, HealthState::healthy);  // its own evidence was clean
  EXPECT_EQ(now_clean.kept.action, Action::drain);
  // The oldest bad check leaves the window of 6: two bad in the last six, admitted.
  const Decided later = decide(story("bccdcdc"), HealthState::healthy);
  EXPECT_EQ(later.action, Action::admit);
  EXPECT_EQ(later.exit_code, 0);
  // Unknown checks are not counted, and do not push bad ones out of the window.
  EXPECT_EQ(decide(story("dcduuuu"), HealthState::degraded).drain_reason, "failed: NET_BW_OUTLIER,HISTORY_FLAPPING");
}

TEST(History, OneLongSpellOfBadChecksThenARepairIsNoFlap) {
  // A drained node checked again and again until its repair, then clean: admitted.
  const Decided repaired = decide(story("cdddd"), HealthState::healthy);
  EXPECT_EQ(repaired.state, HealthState::healthy);
  EXPECT_EQ(repaired.action, Action::admit);
  EXPECT_EQ(repaired.exit_code, 0);
  // Bad again right after: a lemon, and now two spells: flapping (the first rule to hold).
  const Decided again = decide(story("cddddc"), HealthState::failed);
  EXPECT_EQ(again.action, Action::drain);
  EXPECT_EQ(again.drain_reason, "failed: NET_BW_OUTLIER,HISTORY_FLAPPING");
  // Still bad, check after check: failed by the table, no history reason.
  EXPECT_EQ(decide(story("cddd"), HealthState::failed).drain_reason, "failed: NET_BW_OUTLIER");
}

TEST(History, BadAgainWithinLemonDaysOfComingBackFromADrainIsALemon) {
  const Decided o = decide(story("ccdc"), HealthState::degraded);
  EXPECT_EQ(o.state, HealthState::failed);
  EXPECT_EQ(o.action, Action::drain);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.drain_reason, "failed: NET_BW_OUTLIER,HISTORY_LEMON");
  // Back after a transient (never drained): no lemon, a plain drain (two bad in the window).
  EXPECT_EQ(decide(story("ccbc"), HealthState::failed).drain_reason, "failed: NET_BW_OUTLIER");
  // Drained for something missing, not a finding: no lemon (and no transient, to see it).
  HistoryRules no_transient;
  no_transient.transient_clean = 0;
  EXPECT_EQ(decide(story("ccuc"), HealthState::failed, "NET_BW_OUTLIER", no_transient).drain_reason,
            "failed: NET_BW_OUTLIER");
  // Past lemon_days: no lemon.
  HistoryRules hour;
  hour.lemon_days = 0.5 / 24;
  EXPECT_EQ(decide(story("ccdc"), HealthState::failed, "NET_BW_OUTLIER", hour).drain_reason, "failed: NET_BW_OUTLIER");
}

TEST(History, ACheckWithSomethingMissingIsDecidedByTheTableAloneAndKeptAsUnknown) {
  // After a return from a drain a finding would be a lemon; with a check missing it is row 5.
  const Decided o = decide(story("ccdc"), HealthState::degraded, "NET_BW_OUTLIER", {}, true);
  EXPECT_EQ(o.state, HealthState::degraded);
  EXPECT_EQ(o.action, Action::drain);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.drain_reason, "degraded: NET_BW_OUTLIER; not checked: CHECK_SKIPPED");
  EXPECT_EQ(o.kept.state, HealthState::unknown);  // neither bad nor clean for later checks
}

TEST(History, NoLemonWhileStillDrainedNorForAReturnInTheFuture) {
  // Drained twice in a row (still out of the pool), bad again: not back, so no lemon.
  HistoryRules three;
  three.window = 3;
  EXPECT_EQ(decide(story("cdcdd"), HealthState::degraded, "NET_BW_OUTLIER", three).drain_reason,
            "degraded: NET_BW_OUTLIER");
  // A record kept with a later clock than this check's (rank 0 on another host): no lemon from it.
  std::vector<CheckRecord> past = story("ccd");
  past.push_back(record('c', 10));
  EXPECT_EQ(decide(past, HealthState::failed, "NET_BW_OUTLIER", {}).drain_reason, "failed: NET_BW_OUTLIER");
}

TEST(History, ARailsPairFindingCanBeATransientNotANodeWithoutARail) {
  // The localiser blamed one of the node's two rails: the port's verdict has the pair's code; the
  // node is admitted degraded without it, as without history, and watched.
  VerdictBook book;
  book.at(Entity::node("h1"));
  book.at(Entity::port("h1", "mlx5_1:1"));  // healthy
  Verdict& rail = book.at(Entity::port("h1", "mlx5_0:1"));
  VerdictBook::add(rail, HealthState::failed,
                   Reason{testing::code("NET_BW_OUTLIER"), "test", "", std::nullopt, std::nullopt});
  std::vector<Verdict> verdicts = book.take();
  NodeHistory history{{{"h1", story("cc")}}, {}, kStart + 2 * kHour, "now", {}};
  decide_admission(verdicts, {}, {}, &history);
  const Verdict& node = *std::find_if(verdicts.begin(), verdicts.end(),
                                      [](const Verdict& v) { return v.entity.kind() == EntityKind::node; });
  EXPECT_EQ(node.state, HealthState::degraded);
  EXPECT_EQ(*node.action, Action::admit_degraded);
  EXPECT_EQ(short_reasons(node), "degraded: HISTORY_TRANSIENT (excluded mlx5_0:1)");
  EXPECT_EQ(history.outcomes.at(0).second.codes, std::vector<std::string>{"NET_BW_OUTLIER"});
  // Its only rail blamed: no transient admits a node without a usable rail.
  VerdictBook alone;
  alone.at(Entity::node("h1"));
  VerdictBook::add(alone.at(Entity::port("h1", "mlx5_0:1")), HealthState::failed,
                   Reason{testing::code("NET_BW_OUTLIER"), "test", "", std::nullopt, std::nullopt});
  std::vector<Verdict> one = alone.take();
  NodeHistory again{{{"h1", story("cc")}}, {}, kStart + 2 * kHour, "now", {}};
  decide_admission(one, {}, {}, &again);
  EXPECT_EQ(*one[0].action, Action::drain);
  EXPECT_EQ(short_reasons(one[0]), "failed (excluded mlx5_0:1)");
}

TEST(History, AnUnknownCheckIsDecidedByTheTableAlone) {
  const Decided o = decide(story("dcdcd"), HealthState::healthy, "NET_BW_OUTLIER", {}, true);
  EXPECT_EQ(o.state, HealthState::unknown);
  EXPECT_EQ(o.action, Action::drain);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.drain_reason, "unknown; not checked: CHECK_SKIPPED");
}

TEST(History, TheStoryOfANode) {
  const std::vector<CheckRecord> r = story("ccdcdcd");
  const NodeStory s = story_of(r, {});
  EXPECT_EQ(s.checks, 7);
  EXPECT_EQ(s.bad, 3);
  EXPECT_EQ(s.failures, 3);
  ASSERT_TRUE(s.mean_time_between_failures_s);
  EXPECT_DOUBLE_EQ(*s.mean_time_between_failures_s, 2 * kHour);
  ASSERT_TRUE(s.last.reason);
  EXPECT_EQ(s.last.reason->code, ReasonCode::HISTORY_FLAPPING);
  EXPECT_FALSE(story_of(story("cc"), {}).mean_time_between_failures_s);
}

}  // namespace
}  // namespace ibgpu
