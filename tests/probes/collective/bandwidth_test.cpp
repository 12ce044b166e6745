#include "probes/collective/bandwidth.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ibgpu {
namespace {

TEST(BusBwFactor, AllReduce) {
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 1), 0);  // nothing crosses a link
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 2), 1);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 64), 126.0 / 64);
  for (int n = 1; n <= 64; ++n) EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, n), 2.0 * (n - 1) / n) << n;
}

TEST(BusBwFactor, GatherScatterAndAllToAll) {
  for (Collective c : {Collective::reduce_scatter, Collective::all_gather, Collective::all_to_all}) {
    EXPECT_DOUBLE_EQ(busbw_factor(c, 1), 0);
    EXPECT_DOUBLE_EQ(busbw_factor(c, 2), 0.5);
    EXPECT_DOUBLE_EQ(busbw_factor(c, 8), 0.875);
    for (int n = 1; n <= 64; ++n) EXPECT_DOUBLE_EQ(busbw_factor(c, n), (n - 1.0) / n) << n;
  }
}

TEST(BusBwFactor, RootedAndPointToPointAreOne) {
  for (Collective c : {Collective::broadcast, Collective::reduce, Collective::send_recv})
    for (int n = 1; n <= 64; ++n) EXPECT_DOUBLE_EQ(busbw_factor(c, n), 1) << n;
}

TEST(BusBwFactor, RefusesNoRanks) {
  EXPECT_THROW(busbw_factor(Collective::all_reduce, 0), std::invalid_argument);
  EXPECT_THROW(busbw_factor(Collective::broadcast, -3), std::invalid_argument);
}

TEST(AlgBw, DecimalGigabytes) {
  EXPECT_DOUBLE_EQ(algbw_GBps(1e9, 1), 1);
  EXPECT_DOUBLE_EQ(algbw_GBps(1 << 30, 1), 1.073741824);
  EXPECT_DOUBLE_EQ(algbw_GBps(4e9, 0.5), 8);
  EXPECT_DOUBLE_EQ(algbw_GBps(1e9, 0), 0);
  EXPECT_DOUBLE_EQ(algbw_GBps(1e9, -1), 0);
  EXPECT_DOUBLE_EQ(algbw_GBps(0, 1), 0);
}

TEST(BusBw, NccltestsExample) {
  // 8 ranks all-reduce 1 GB in 10 ms: algbw 100 GB/s, busbw 175 GB/s.
  EXPECT_DOUBLE_EQ(algbw_GBps(1e9, 0.01), 100);
  EXPECT_DOUBLE_EQ(busbw_GBps(Collective::all_reduce, 1e9, 0.01, 8), 175);
  EXPECT_DOUBLE_EQ(busbw_GBps(Collective::all_gather, 1e9, 0.01, 8), 87.5);
  EXPECT_DOUBLE_EQ(busbw_GBps(Collective::broadcast, 1e9, 0.01, 8), 100);
  EXPECT_DOUBLE_EQ(busbw_GBps(Collective::all_reduce, 1e9, 0.01, 1), 0);
}

TEST(RankTimes, MinAvgMaxAndSlowest) {
  const RankTimes t = aggregate_rank_times({0.002, 0.001, 0.004, 0.001});
  EXPECT_DOUBLE_EQ(t.min_s, 0.001);
  EXPECT_DOUBLE_EQ(t.max_s, 0.004);
  EXPECT_DOUBLE_EQ(t.avg_s, 0.002);
  EXPECT_EQ(t.slowest_rank, 2);
}

TEST(RankTimes, SingleRank) {
  const RankTimes t = aggregate_rank_times({3.5});
  EXPECT_DOUBLE_EQ(t.min_s, 3.5);
  EXPECT_DOUBLE_EQ(t.avg_s, 3.5);
  EXPECT_DOUBLE_EQ(t.max_s, 3.5);
  EXPECT_EQ(t.slowest_rank, 0);
}

TEST(RankTimes, TiesNameTheFirstSlowestRank) {
  EXPECT_EQ(aggregate_rank_times({1, 5, 2, 5, 5}).slowest_rank, 1);
  EXPECT_EQ(aggregate_rank_times({7, 7, 7}).slowest_rank, 0);
}

TEST(RankTimes, SixtyFourRanksOneSlow) {
  std::vector<double> t(64, 1e-3);
  t[37] = 3e-3;
  const RankTimes r = aggregate_rank_times(t);
  EXPECT_EQ(r.slowest_rank, 37);
  EXPECT_DOUBLE_EQ(r.min_s, 1e-3);
  EXPECT_DOUBLE_EQ(r.max_s, 3e-3);
  EXPECT_NEAR(r.avg_s, (63 * 1e-3 + 3e-3) / 64, 1e-15);
}

TEST(RankTimes, RefusesNoRanks) { EXPECT_THROW(aggregate_rank_times({}), std::invalid_argument); }

}  // namespace
}  // namespace ibgpu
