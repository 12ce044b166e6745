#include <gtest/gtest.h>

#include "cluster/liveness.h"

namespace ibgpu {
namespace {

// A wait ends when the peer has said it is past this rank's step, never when it is behind.
TEST(Phase, APeerPastThisStepHasMovedOnAPeerBehindHasNot) {
  begin_phase_epoch();
  set_phase(4);  // network round 4
  const long long mine = current_phase();
  note_heartbeat(7, mine - 1);  // still in round 3, on its way
  EXPECT_FALSE(moved_on(7));
  note_heartbeat(7, mine);
  EXPECT_FALSE(moved_on(7));
  set_phase(5);
  note_heartbeat(8, current_phase() + 1);  // already in the consultation after round 5
  EXPECT_TRUE(moved_on(8));
  EXPECT_FALSE(moved_on(9));  // never heard
  EXPECT_EQ(phase_of(9), -1);
}

TEST(Phase, AStaleBeatNeverTakesAPeerBack) {
  begin_phase_epoch();
  set_phase(2);
  note_heartbeat(3, current_phase() + 5);
  note_heartbeat(3, current_phase() - 1);  // an older beat delivered late
  EXPECT_TRUE(moved_on(3));
}

// Burn-in runs check after check in one launch: a new round's first step is past every step
// of the round before, the report included.
TEST(Phase, ANewEpochIsPastTheWholeRoundBefore) {
  begin_phase_epoch();
  set_phase(kPhaseReport);
  const long long report = current_phase();
  begin_phase_epoch();
  EXPECT_GT(current_phase(), report);
  note_heartbeat(2, report);  // a peer still sending the last round's report
  EXPECT_FALSE(moved_on(2));
}

}  // namespace
}  // namespace ibgpu
