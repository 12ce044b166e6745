#include "probes/collective/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

namespace ibgpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

bool half_is_nan(std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool bf16_is_nan(std::uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

TEST(Half, KnownEncodings) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(0.5f), 0x3800);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);               // largest finite
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(kInf), 0x7c00);
  EXPECT_EQ(float_to_half(-kInf), 0xfc00);
  EXPECT_EQ(float_to_half(0.1f), 0x2e66);
  EXPECT_EQ(float_to_half(1.0f / 3), 0x3555);
  EXPECT_EQ(float_to_half(2048.0f), 0x6800);
  EXPECT_EQ(float_to_half(-16384.0f), 0xf400);
  EXPECT_FLOAT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_FLOAT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_FLOAT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_FLOAT_EQ(half_to_float(0x83ff), -std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_to_float(0xfc00), -kInf);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
}

TEST(Half, OverflowUnderflowAndTies) {
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);  // below the midpoint to 2^16
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // the midpoint rounds to even: inf
  EXPECT_EQ(float_to_half(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(float_to_half(2049.0f), 0x6800);                // tie between 2048 and 2050: even
  EXPECT_EQ(float_to_half(2051.0f), 0x6802);                // tie between 2050 and 2052: even
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: ties to 0
  EXPECT_EQ(float_to_half(std::ldexp(1.0001f, -25)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units: ties to 2
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(float_to_half(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_half(std::ldexp(2047.0f, -25)), 0x0400);  // the largest subnormal rounds up into the normals
}

TEST(Half, NanStaysNan) {
  EXPECT_TRUE(half_is_nan(float_to_half(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0x7f800001u))));  // payload only in the low bits
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0xffc00000u))));
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(half_to_float(0xfc01)));
}

TEST(Bfloat16, KnownEncodings) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_bfloat16(3.14159265f), 0x4049);
  EXPECT_EQ(float_to_bfloat16(256.0f), 0x4380);
  EXPECT_EQ(float_to_bfloat16(0.0f), 0x0000);
  EXPECT_EQ(float_to_bfloat16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bfloat16(kInf), 0x7f80);
  EXPECT_EQ(float_to_bfloat16(-kInf), 0xff80);
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);        // tie: even (down)
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(3.0f, -8)), 0x3f82);        // tie: even (up)
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);  // rounds past the largest finite
  EXPECT_EQ(float_to_bfloat16(257.0f), 0x4380);                             // 257 is not representable: ties to 256
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_FLOAT_EQ(bfloat16_to_float(0x3f80), 1.0f);
  EXPECT_FLOAT_EQ(bfloat16_to_float(0xc000), -2.0f);
  EXPECT_FLOAT_EQ(bfloat16_to_float(0x7f7f), 3.3895314e38f);
}

TEST(Bfloat16, NanStaysNan) {
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0x7f800001u))));  // would round to inf
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0xff80ffffu))));
  EXPECT_TRUE(std::isnan(bfloat16_to_float(0x7fc0)));
}

// Every one of the 65536 encodings survives the trip through float.
void expect_round_trips(const std::function<float(std::uint16_t)>& decode,
                        const std::function<std::uint16_t(float)>& encode,
                        const std::function<bool(std::uint16_t)>& is_nan) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const float f = decode(h);
    if (is_nan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << bits;
      ASSERT_TRUE(is_nan(encode(f))) << std::hex << bits;
    } else {
      ASSERT_EQ(encode(f), h) << std::hex << bits;
    }
  }
}

TEST(Half, EveryEncodingRoundTrips) { expect_round_trips(half_to_float, float_to_half, half_is_nan); }
TEST(Bfloat16, EveryEncodingRoundTrips) { expect_round_trips(bfloat16_to_float, float_to_bfloat16, bf16_is_nan); }

// Between every two neighbouring finite encodings a and a+1 (same sign), the
// exact midpoint rounds to the even one, and the floats just off it round to
// the nearer one. `last` is the largest finite positive encoding; rounding
// past it into infinity is covered by the overflow tests.
void expect_nearest_even(const std::function<float(std::uint16_t)>& decode,
                         const std::function<std::uint16_t(float)>& encode, std::uint16_t last) {
  for (std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}}) {
    for (std::uint32_t a = 0; a < last; ++a) {
      const auto lo = static_cast<std::uint16_t>(sign | a);
      const auto hi = static_cast<std::uint16_t>(sign | (a + 1));
      const double mid_d = (static_cast<double>(decode(lo)) + static_cast<double>(decode(hi))) / 2;
      const auto mid = static_cast<float>(mid_d);
      ASSERT_EQ(static_cast<double>(mid), mid_d) << "midpoint not exact in float: " << std::hex << lo;
      const std::uint16_t even = (a & 1u) ? hi : lo;
      ASSERT_EQ(encode(mid), even) << std::hex << lo;
      const float away = sign ? -kInf : kInf;  // away from zero: toward hi
      ASSERT_EQ(encode(std::nextafter(mid, away)), hi) << std::hex << lo;
      ASSERT_EQ(encode(std::nextafter(mid, -away)), lo) << std::hex << lo;
    }
  }
}

TEST(Half, RoundsToNearestEvenEverywhere) { expect_nearest_even(half_to_float, float_to_half, 0x7bff); }
TEST(Bfloat16, RoundsToNearestEvenEverywhere) { expect_nearest_even(bfloat16_to_float, float_to_bfloat16, 0x7f7f); }

}  // namespace
}  // namespace ibgpu
