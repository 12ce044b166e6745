#include "probes/net/verbs/bw_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ibgpu::verbs {
namespace {

TEST(SignalInterval, EveryHundredthUpTo8KiBThenEveryWrite) {
  EXPECT_EQ(signal_interval(8, 128), 100);
  EXPECT_EQ(signal_interval(8192, 128), 100);
  EXPECT_EQ(signal_interval(8193, 128), 1);
  EXPECT_EQ(signal_interval(65536, 128), 1);
}

TEST(SignalInterval, NeverWiderThanTheQueue) {
  EXPECT_EQ(signal_interval(8, 16), 16);
  EXPECT_EQ(signal_interval(8, 1), 1);
  EXPECT_EQ(signal_interval(8, 0), 1);
}

TEST(ShouldSignal, EveryNthAndAlwaysTheLast) {
  std::vector<int> signalled;
  for (int i = 0; i < 250; ++i)
    if (should_signal(i, 250, 100)) signalled.push_back(i);
  EXPECT_EQ(signalled, (std::vector<int>{99, 199, 249}));
  EXPECT_TRUE(should_signal(0, 1, 100));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(should_signal(i, 5, 1));
}

// The loop keeps at most `depth` writes past the last completion; it can only
// progress if every such window holds a signalled write.
TEST(ShouldSignal, EveryWindowOfTheQueueDepthHoldsASignal) {
  for (const int depth : {1, 2, 16, 100, 128}) {
    for (const std::size_t size : {std::size_t{8}, std::size_t{65536}}) {
      const int every = signal_interval(size, depth);
      const int count = 1000;
      for (int start = 0; start < count; ++start) {
        bool any = false;
        for (int i = start; i < std::min(count, start + depth); ++i) any = any || should_signal(i, count, every);
        ASSERT_TRUE(any) << "depth " << depth << " size " << size << " window at " << start;
      }
    }
  }
}

TEST(SlotOffset, CyclesThroughTheRegion) {
  EXPECT_EQ(slot_offset(0, 4096, 16384), 0u);
  EXPECT_EQ(slot_offset(3, 4096, 16384), 12288u);
  EXPECT_EQ(slot_offset(4, 4096, 16384), 0u);
  EXPECT_EQ(slot_offset(7, 65536, 65536), 0u);  // one slot: always the start
  EXPECT_EQ(slot_offset(7, 100000, 65536), 0u);
}

TEST(PeakMessageRate, BestStretchOfAtLeastTheMinimum) {
  // 100 messages in the first second, 300 in the next half second, 100 in the last second.
  const std::vector<Progress> marks{{0, 0}, {1.0, 100}, {1.5, 400}, {2.5, 500}};
  EXPECT_DOUBLE_EQ(peak_message_rate(marks, 100, 0), 600.0);
  // Stretches must hold 300 messages: [0,1.5] = 266.7/s, then the rest is too short.
  EXPECT_NEAR(peak_message_rate(marks, 300, 0), 400.0 / 1.5, 1e-9);
  EXPECT_EQ(peak_message_rate({{0, 0}}, 1, 0), 0.0);
  EXPECT_EQ(peak_message_rate({}, 1, 0), 0.0);
}

// Soft-RoCE hands completions over in bursts: 190 of 200 polled within 2 us
// after a slow second. Without a time floor that burst reads as 95 M/s.
TEST(PeakMessageRate, ABurstOfBufferedCompletionsIsNotAPeak) {
  const std::vector<Progress> marks{{0, 0}, {1.0, 10}, {1.000001, 100}, {1.000002, 200}};
  EXPECT_GT(peak_message_rate(marks, 20, 0), 1e7);
  const double elapsed = 1.000002;
  const double peak = peak_message_rate(marks, 20, elapsed / 10);
  EXPECT_LE(peak, 200 / elapsed * 1.0001);  // no better than the average here
  EXPECT_GT(peak, 0.0);
}

}  // namespace
}  // namespace ibgpu::verbs
