// The sizes a command accepts: a pair probe up to 1G, the all-reduce up to 16G.
#include <gtest/gtest.h>

#include "app/network.h"
#include "core/errors.h"

namespace ibgpu {
namespace {

constexpr std::size_t G = std::size_t{1} << 30;

TEST(Sizes, PairProbesStopAtOneGAndTheAllReduceAtSixteen) {
  EXPECT_NO_THROW(validate_sizes({8, G}, "bandwidth"));
  EXPECT_THROW(validate_sizes({8, 2 * G}, "bandwidth"), UsageError);
  EXPECT_NO_THROW(validate_sizes({8, 4 * G, 16 * G}, "all-reduce", kMaxAllReduceSize));
  try {
    validate_sizes({32 * G}, "all-reduce", kMaxAllReduceSize);
    ADD_FAILURE() << "32G accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "all-reduce size 34359738368 does not fit: use 1 byte to 16G");
  }
  EXPECT_THROW(validate_sizes({0}, "latency"), UsageError);
  EXPECT_THROW(validate_sizes({}, "latency"), UsageError);
}

}  // namespace
}  // namespace ibgpu
