#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "probes/net/pair_probe.h"

namespace ibgpu {
namespace {

// Runs the loop as a measurement does: `last` before each iteration, `pause` each one.
int run(CappedLoop& loop, std::chrono::milliseconds pause) {
  int ran = 0;
  for (int it = 0; it < loop.total(); ++it) {
    const bool last = loop.last(it);
    ++ran;
    std::this_thread::sleep_for(pause);
    if (last) break;
  }
  return ran;
}

TEST(CappedLoop, WithinTheCapEveryPlannedIterationRuns) {
  CappedLoop loop(2, 5, 60);
  EXPECT_EQ(run(loop, std::chrono::milliseconds(0)), 7);
  EXPECT_EQ(loop.warmup(), 2);
  EXPECT_EQ(loop.iters(), 5);
  nlohmann::json params;
  loop.describe(params);
  EXPECT_EQ(params["iters"], 5);
  EXPECT_EQ(params["warmup"], 2);
  EXPECT_FALSE(params.contains("time_capped_s"));
}

TEST(CappedLoop, PastTheCapTheCurrentTimedIterationIsTheLast) {
  CappedLoop loop(1, 1000, 0.05);
  const int ran = run(loop, std::chrono::milliseconds(10));
  // At least the warmup and one timed iteration; ends within a few iterations of the cap.
  EXPECT_GE(ran, 2);
  EXPECT_LT(ran, 1000);
  EXPECT_EQ(loop.warmup(), 1);
  EXPECT_EQ(loop.iters(), ran - 1);
  nlohmann::json params;
  loop.describe(params);
  EXPECT_EQ(params["iters"], ran - 1);
  EXPECT_EQ(params["time_capped_s"], 0.05);
}

TEST(CappedLoop, ACapSpentInTheWarmupLeavesOneTimedIteration) {
  CappedLoop loop(100, 100, 0.02);
  const int ran = run(loop, std::chrono::milliseconds(15));
  EXPECT_EQ(loop.iters(), 1);
  EXPECT_EQ(loop.warmup(), ran - 1);
  EXPECT_LT(ran, 100);
  EXPECT_TRUE(loop.timed(ran - 1));
  EXPECT_FALSE(loop.timed(ran - 2));
}

TEST(CappedLoop, TheLastPlannedIterationIsLastWithoutACap) {
  CappedLoop loop(0, 3, 0);  // a cap of zero is spent at once: one timed iteration
  EXPECT_TRUE(loop.last(0));
  EXPECT_EQ(loop.total(), 1);
}

}  // namespace
}  // namespace ibgpu

namespace ibgpu {
namespace {

TEST(CappedLoop, WithAStrideTheCapIsLookedAtOnlyEveryFewIterations) {
  CappedLoop loop(0, 100, 0, 8);  // the cap is spent at once, looked at on 0, 8, 16, ...
  int ran = 0;
  for (int it = 0; it < loop.total(); ++it) {
    ++ran;
    if (loop.last(it)) break;
  }
  EXPECT_EQ(ran, 1);  // iteration 0 is looked at
  CappedLoop later(0, 100, 0, 8);
  EXPECT_FALSE(later.last(1));
  EXPECT_FALSE(later.last(7));
  EXPECT_TRUE(later.last(8));
  EXPECT_EQ(later.iters(), 9);
}

TEST(FittedBwIters, LargeWindowsRunAtLeastTenIterations) {
  EXPECT_EQ(fitted_bw_iters(8 << 20, 64, 0), 10);  // 512 MiB a window: the floor, not the budget's 0.5
  EXPECT_EQ(fitted_bw_iters(1 << 20, 64, 0), 10);  // 64 MiB: the floor, not 4
  EXPECT_EQ(fitted_bw_iters(65536, 64, 0), 64);    // the 256 MiB budget
  EXPECT_EQ(fitted_bw_iters(8, 64, 0), 78);        // 5000 messages
  EXPECT_EQ(fitted_bw_iters(65536, 1, 0), 4096);   // verbs: one message an iteration
  EXPECT_EQ(fitted_bw_iters(1 << 20, 64, 3), 3);   // asked for
}

}  // namespace
}  // namespace ibgpu
