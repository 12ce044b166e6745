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
