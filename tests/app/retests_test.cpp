#include "app/retests.h"

#include <gtest/gtest.h>

namespace ibgpu {
namespace {

RetestDecision rounds_of_one_pair(int n) {
  RetestDecision d;
  for (int i = 0; i < n; ++i) d.rounds.push_back({{"a", "h" + std::to_string(i)}});
  return d;
}

TEST(RetestBudget, OnlyTheRoundsThatFitTheBudgetAtTheirWorstCaseRun) {
  BetweenSteps steps;
  steps.budget = Seconds(20);
  steps.retest_round_s = 2.5;
  RetestDecision d = rounds_of_one_pair(6);
  trim_retests_to_budget(d, steps, Seconds(12));  // 19 s usable - 12 s spent = 7 s: two rounds of 2.5 s
  ASSERT_EQ(d.rounds.size(), 2u);
  EXPECT_EQ(d.rounds[1].front().second, "h1");  // the first rounds stay, in order
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "budget: re-tests cut to 2 of 6 rounds (12 s of 20 s spent, up to 2.5 s a round)");

  RetestDecision late = rounds_of_one_pair(3);
  trim_retests_to_budget(late, steps, Seconds(19.5));  // past the usable part: none
  EXPECT_TRUE(late.rounds.empty());
  EXPECT_EQ(late.notes.size(), 1u);
}

TEST(RetestBudget, RoundsThatFitOrNoBudgetAreLeftAlone) {
  BetweenSteps steps;
  steps.retest_round_s = 2.5;
  RetestDecision d = rounds_of_one_pair(6);
  trim_retests_to_budget(d, steps, Seconds(1000));  // no budget
  EXPECT_EQ(d.rounds.size(), 6u);
  steps.budget = Seconds(60);
  trim_retests_to_budget(d, steps, Seconds(10));  // 6 x 2.5 s fit in the 47 s left
  EXPECT_EQ(d.rounds.size(), 6u);
  EXPECT_TRUE(d.notes.empty());
}

}  // namespace
}  // namespace ibgpu
