// The reading of a sequence of judged outcomes that the burn-in and the history share.
#include "health/sequence.h"

#include <gtest/gtest.h>

#include <vector>

namespace ibgpu {
namespace {

constexpr Outcome C = Outcome::clean, B = Outcome::bad, U = Outcome::unknown;

SequenceReading read(std::vector<Outcome> steps) { return read_sequence(steps); }

TEST(Sequence, CountsBadStepsAndSpellsAndTheCleanRunBeforeTheLastBad) {
  const SequenceReading r = read({C, B, B, C, U, B, C});
  EXPECT_EQ(r.judged, 6);
  EXPECT_EQ(r.bad, 3);
  EXPECT_EQ(r.spells, 2);  // the unknown step neither ends the second spell's clean run nor starts one
  EXPECT_EQ(r.last_bad, 5);
  EXPECT_EQ(r.clean_before_last_bad, 1);
  EXPECT_TRUE(r.repeated(3));
  EXPECT_FALSE(r.repeated(4));
  EXPECT_FALSE(r.seen_once());
}

TEST(Sequence, UnknownStepsNeitherEndNorStartASpell) {
  EXPECT_EQ(read({B, U, B}).spells, 1);
  EXPECT_EQ(read({B, C, B}).spells, 2);
  EXPECT_EQ(read({U, U}).judged, 0);
}

TEST(Sequence, SeenOnceIsOneBadStepBesideCleanOnes) {
  EXPECT_TRUE(read({C, C, B}).seen_once());
  EXPECT_EQ(read({C, C, B}).clean_before_last_bad, 2);
  EXPECT_TRUE(read({C, B, C}).seen_once());
  EXPECT_FALSE(read({B}).seen_once());        // nothing to set it beside
  EXPECT_FALSE(read({U, B, U}).seen_once());  // the same
  EXPECT_FALSE(read({B, B, C}).seen_once());
  EXPECT_FALSE(read({B, B}).repeated(2));  // bad throughout is not repeated: it is steady
  EXPECT_FALSE(read({}).last_bad);
}

}  // namespace
}  // namespace ibgpu
