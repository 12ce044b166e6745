#include "probes/collective/host_buffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "cluster/kept_memory.h"

namespace ibgpu {
namespace {

bool zeros(const std::byte* data, std::size_t bytes) {
  return std::all_of(data, data + bytes, [](std::byte b) { return b == std::byte{0}; });
}

// A timed run sums zeros: whatever the check wrote, and whatever a grown buffer held, is zero again
// as far as the next timed run reads, in either buffer (in place, the receive buffer is the input).
TEST(SumBuffers, ATimedRunFindsZerosAfterTheChecksPatternAndAfterGrowing) {
  SumBuffers b;
  b.reserve(4096);
  ASSERT_GE(b.size(), 4096u);
  b.zero(1024);
  EXPECT_TRUE(zeros(b.send.data(), 1024) && zeros(b.recv.data(), 1024));

  // The check's pattern over a larger size than the last timed run, then a smaller timed run.
  b.patterned();
  std::memset(b.send.data(), 0x5a, 4096);
  std::memset(b.recv.data(), 0xff, 4096);
  b.zero(256);
  EXPECT_TRUE(zeros(b.send.data(), 256) && zeros(b.recv.data(), 256));
  b.zero(4096);  // a larger one after it: zeroed again from the start, not only past 256
  EXPECT_TRUE(zeros(b.send.data(), 4096) && zeros(b.recv.data(), 4096));

  // Growing leaves nothing counted as zero: the new memory is not read unzeroed.
  b.reserve(1 << 16);
  ASSERT_GE(b.size(), std::size_t{1} << 16);
  std::memset(b.recv.data(), 0x11, 1 << 16);
  b.zero(1 << 16);
  EXPECT_TRUE(zeros(b.recv.data(), 1 << 16) && zeros(b.send.data(), 1 << 16));
  b.reserve(16);  // smaller: kept as it is
  EXPECT_EQ(b.size(), std::size_t{1} << 16);
}

// Memory MPI may still write into after a timeout is kept until the process exits, not freed.
TEST(SumBuffers, KeptUntilExitWhenGivenUp) {
  const std::size_t kept = kept_until_exit_count();
  SumBuffers b;
  b.reserve(64);
  b.keep_until_exit();
  EXPECT_EQ(kept_until_exit_count(), kept + 2);
  EXPECT_EQ(b.size(), 0u);
  SumBuffers never_reserved;
  never_reserved.keep_until_exit();  // nothing to keep
  EXPECT_EQ(kept_until_exit_count(), kept + 2);
}

}  // namespace
}  // namespace ibgpu
