#include "probes/collective/pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/collective/float16.h"

namespace ibgpu {
namespace {

using Bytes = std::vector<unsigned char>;

double decode(DType type, const Bytes& data, std::size_t i) {
  const unsigned char* p = data.data() + i * dtype_size(type);
  switch (type) {
    case DType::f32: {
      float f;
      std::memcpy(&f, p, sizeof f);
      return f;
    }
    case DType::f64: {
      double d;
      std::memcpy(&d, p, sizeof d);
      return d;
    }
    case DType::i32: {
      std::int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::f16:
    case DType::bf16: {
      std::uint16_t h;
      std::memcpy(&h, p, sizeof h);
      return type == DType::f16 ? half_to_float(h) : bfloat16_to_float(h);
    }
  }
  return 0;
}

// `value` rounded to `type` as a reduction that stores each partial sum would.
Bytes encode(DType type, double value) {
  Bytes out(dtype_size(type));
  switch (type) {
    case DType::f32: {
      const auto f = static_cast<float>(value);
      std::memcpy(out.data(), &f, sizeof f);
      break;
    }
    case DType::f64:
      std::memcpy(out.data(), &value, sizeof value);
      break;
    case DType::i32: {
      const auto v = static_cast<std::int32_t>(static_cast<std::int64_t>(value));
      std::memcpy(out.data(), &v, sizeof v);
      break;
    }
    case DType::f16:
    case DType::bf16: {
      const auto f = static_cast<float>(value);
      const std::uint16_t h = type == DType::f16 ? float_to_half(f) : float_to_bfloat16(f);
      std::memcpy(out.data(), &h, sizeof h);
      break;
    }
  }
  return out;
}

Bytes element(DType type, const Bytes& data, std::size_t i) {
  const auto* p = data.data() + i * dtype_size(type);
  return Bytes(p, p + dtype_size(type));
}

Bytes fill(DType type, int rank, int nranks, std::size_t count, std::size_t first = 0) {
  Bytes out(count * dtype_size(type));
  fill_pattern(type, rank, nranks, count, out.data(), first);
  return out;
}

Bytes expected(DType type, int nranks, std::size_t count, std::size_t first = 0) {
  Bytes out(count * dtype_size(type));
  expected_sum(type, nranks, count, out.data(), first);
  return out;
}

// The pattern as pattern.h states it, computed independently (128-bit product, divisions).
double reference_value(DType type, int rank, int nranks, std::uint64_t i) {
  const auto m = static_cast<std::uint64_t>(max_pattern_ranks(type)) / static_cast<std::uint64_t>(nranks);
  const auto b = static_cast<std::uint64_t>(static_cast<unsigned __int128>(i) * 2654435761u % m);
  const double v = static_cast<double>(1 + (b + static_cast<std::uint64_t>(rank)) % m);
  const int e = static_cast<int>(i % 7);
  const double scaled = type == DType::i32 ? std::ldexp(v, e) : std::ldexp(v, e - 3);
  return i % 3 == 2 ? -scaled : scaled;
}

std::string name(DType type, int nranks) { return std::string(to_string(type)) + " x " + std::to_string(nranks); }

TEST(Pattern, RankLimits) {
  EXPECT_EQ(max_pattern_ranks(DType::bf16), 256);
  EXPECT_EQ(max_pattern_ranks(DType::f16), 2048);
  EXPECT_EQ(max_pattern_ranks(DType::f32), 1 << 24);
  EXPECT_EQ(max_pattern_ranks(DType::f64), 1 << 24);
  EXPECT_EQ(max_pattern_ranks(DType::i32), 1 << 24);
  for (DType type : kAllDTypes) {
    EXPECT_NO_THROW(check_pattern_fits(type, 1));
    EXPECT_NO_THROW(check_pattern_fits(type, static_cast<int>(max_pattern_ranks(type))));
    EXPECT_THROW(check_pattern_fits(type, static_cast<int>(max_pattern_ranks(type)) + 1), std::invalid_argument);
    EXPECT_THROW(check_pattern_fits(type, 0), std::invalid_argument);
  }
  try {
    check_pattern_fits(DType::bf16, 257);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "exact bfloat16 sums cannot be checked over 257 ranks (at most 256); use float, or skip the check");
  }
  unsigned char buffer[8];
  EXPECT_THROW(fill_pattern(DType::bf16, 0, 257, 1, buffer), std::invalid_argument);
  EXPECT_THROW(expected_sum(DType::f16, 4096, 1, buffer), std::invalid_argument);
  EXPECT_THROW(fill_pattern(DType::f32, 4, 4, 1, buffer), std::invalid_argument);
  EXPECT_THROW(fill_pattern(DType::f32, -1, 4, 1, buffer), std::invalid_argument);
}

std::vector<int> rank_counts(DType type) {
  std::vector<int> counts{1, 2, 3, 5, 7, 8, 16, 17, 31, 64};
  if (type == DType::bf16) counts.insert(counts.end(), {100, 255, 256});
  if (type == DType::f16) counts.insert(counts.end(), {45, 46, 1000, 2048});
  return counts;
}

// Every rank's input follows the documented formula; every partial sum over
// the ranks, forward, backward or as a tree, rounded to the type at each step,
// ends bit-exactly at expected_sum; all values are normal, finite and non-zero.
void expect_exact_sums(DType type, int nranks, std::size_t count, std::size_t first) {
  SCOPED_TRACE(name(type, nranks) + " from element " + std::to_string(first));
  std::vector<Bytes> inputs;
  for (int r = 0; r < nranks; ++r) inputs.push_back(fill(type, r, nranks, count, first));
  const Bytes want = expected(type, nranks, count, first);
  const double smallest = type == DType::f16 ? std::ldexp(1.0, -14) : 1e-30;
  for (std::size_t i = 0; i < count; ++i) {
    double exact = 0;
    for (int r = 0; r < nranks; ++r) {
      const double v = decode(type, inputs[static_cast<std::size_t>(r)], i);
      ASSERT_EQ(v, reference_value(type, r, nranks, first + i)) << "rank " << r << " element " << first + i;
      ASSERT_TRUE(std::isfinite(v) && std::fabs(v) >= smallest) << v;
      exact += v;
    }
    ASSERT_EQ(decode(type, want, i), exact) << "element " << first + i;
    ASSERT_TRUE(std::isfinite(exact) && exact != 0);

    double forward = 0, backward = 0;
    for (int r = 0; r < nranks; ++r) {
      forward = decode(type, encode(type, forward + decode(type, inputs[static_cast<std::size_t>(r)], i)), 0);
      backward =
          decode(type, encode(type, backward + decode(type, inputs[static_cast<std::size_t>(nranks - 1 - r)], i)), 0);
    }
    std::vector<double> level;
    for (int r = 0; r < nranks; ++r) level.push_back(decode(type, inputs[static_cast<std::size_t>(r)], i));
    while (level.size() > 1) {
      std::vector<double> next;
      for (std::size_t k = 0; k < level.size(); k += 2)
        next.push_back(k + 1 < level.size() ? decode(type, encode(type, level[k] + level[k + 1]), 0) : level[k]);
      level = std::move(next);
    }
    ASSERT_EQ(encode(type, forward), element(type, want, i)) << "element " << first + i;
    ASSERT_EQ(encode(type, backward), element(type, want, i)) << "element " << first + i;
    ASSERT_EQ(encode(type, level.front()), element(type, want, i)) << "element " << first + i;
  }
  EXPECT_EQ(count_wrong(type, want.data(), nranks, count, first), 0u);
}

TEST(Pattern, SumsAreExactForEveryTypeAndRankCount) {
  for (DType type : kAllDTypes)
    for (int nranks : rank_counts(type)) {
      const std::size_t count = nranks > 256 ? 150 : 1500;
      expect_exact_sums(type, nranks, count, 0);
      expect_exact_sums(type, nranks, count / 3, (std::size_t{1} << 40) + 12345);  // far into a 16 TiB message
    }
}

TEST(Pattern, LargestRankCountSumsExactly) {
  // float at 2^24 ranks: every rank holds 1 * sign * 2^e; the sum is 2^24 times that.
  const int n = 1 << 24;
  for (DType type : {DType::f32, DType::f64, DType::i32}) {
    const Bytes want = expected(type, n, 70);
    for (std::size_t i = 0; i < 70; ++i) EXPECT_EQ(decode(type, want, i), n * reference_value(type, 0, n, i)) << i;
  }
}

TEST(Pattern, Int32SumsStayInRange) {
  // One rank has the largest values: up to 2^24 * 2^6 = 2^30.
  const Bytes want = expected(DType::i32, 1, 100000);
  double largest = 0;
  for (std::size_t i = 0; i < 100000; ++i) {
    const double v = decode(DType::i32, want, i);
    EXPECT_EQ(v, reference_value(DType::i32, 0, 1, i));
    largest = std::max(largest, std::fabs(v));
  }
  EXPECT_LE(largest, std::ldexp(1.0, 30));
  EXPECT_GT(largest, std::ldexp(1.0, 29));  // the range is really used
}

TEST(Pattern, HalfSumsStayFinite) {
  // Two ranks have the largest half values: sums up to 2^11 * 2^3 = 16384 < 65504.
  const Bytes want = expected(DType::f16, 2, 50000);
  double largest = 0;
  for (std::size_t i = 0; i < 50000; ++i) largest = std::max(largest, std::fabs(decode(DType::f16, want, i)));
  EXPECT_LE(largest, 16384);
  EXPECT_GT(largest, 8192);
}

TEST(Pattern, RanksDifferAtEveryElementWhileValuesAllow) {
  for (DType type : kAllDTypes)
    for (int nranks : {2, 3, 8, 16}) {  // m = B / nranks >= nranks for every type here
      std::vector<Bytes> inputs;
      for (int r = 0; r < nranks; ++r) inputs.push_back(fill(type, r, nranks, 500));
      for (std::size_t i = 0; i < 500; ++i)
        for (int a = 0; a < nranks; ++a)
          for (int b = a + 1; b < nranks; ++b)
            ASSERT_NE(element(type, inputs[static_cast<std::size_t>(a)], i),
                      element(type, inputs[static_cast<std::size_t>(b)], i))
                << name(type, nranks) << " element " << i;
    }
}

TEST(Pattern, NeighbouringElementsAlmostNeverMatch) {
  for (DType type : kAllDTypes)
    for (int nranks : {1, 4, 64}) {
      const Bytes want = expected(type, nranks, 10000);
      int equal = 0;
      for (std::size_t i = 1; i < 10000; ++i) equal += element(type, want, i) == element(type, want, i - 1);
      EXPECT_LT(equal, 100) << name(type, nranks);  // under 1%: a chunk shifted by one element shows
    }
}

TEST(Pattern, ChunksMatchTheWhole) {
  for (DType type : kAllDTypes) {
    const Bytes whole = fill(type, 3, 7, 2000);
    const Bytes sum = expected(type, 7, 2000);
    for (std::size_t first : {1u, 7u, 21u, 999u, 1500u}) {
      const Bytes part = fill(type, 3, 7, 2000 - first, first);
      const Bytes part_sum = expected(type, 7, 2000 - first, first);
      const std::size_t offset = first * dtype_size(type);
      EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + static_cast<std::ptrdiff_t>(offset)))
          << to_string(type) << " from " << first;
      EXPECT_TRUE(std::equal(part_sum.begin(), part_sum.end(), sum.begin() + static_cast<std::ptrdiff_t>(offset)))
          << to_string(type) << " from " << first;
    }
  }
}

TEST(CountWrong, BitExact) {
  for (DType type : kAllDTypes) {
    SCOPED_TRACE(to_string(type));
    const Bytes want = expected(type, 5, 1000);
    Bytes got = want;
    EXPECT_EQ(count_wrong(type, got.data(), want.data(), 1000), 0u);
    EXPECT_EQ(count_wrong(type, got.data(), 5, 1000), 0u);
    flip_lowest_bit(type, got.data(), 0);
    flip_lowest_bit(type, got.data(), 500);
    flip_lowest_bit(type, got.data(), 999);
    EXPECT_EQ(count_wrong(type, got.data(), want.data(), 1000), 3u);
    EXPECT_EQ(count_wrong(type, got.data(), 5, 1000), 3u);
    EXPECT_EQ(count_wrong(type, got.data(), 5, 500), 1u);  // a prefix
    flip_lowest_bit(type, got.data(), 500);                // flipped back
    EXPECT_EQ(count_wrong(type, got.data(), 5, 1000), 2u);
    // The sum over another number of ranks is wrong almost everywhere.
    EXPECT_GT(count_wrong(type, want.data(), 6, 1000), 900u);
  }
}

TEST(CountWrong, HighestBitAndPoisonAreCaught) {
  for (DType type : kAllDTypes) {
    const Bytes want = expected(type, 3, 64);
    Bytes got = want;
    got[10 * dtype_size(type) + dtype_size(type) - 1] ^= 0x80u;  // the sign bit
    EXPECT_EQ(count_wrong(type, got.data(), 3, 64), 1u) << to_string(type);
    Bytes poison(want.size(), 0xff);  // what an all-reduce that wrote nothing leaves behind
    EXPECT_EQ(count_wrong(type, poison.data(), 3, 64), 64u) << to_string(type);
    Bytes zeros(want.size(), 0);
    EXPECT_EQ(count_wrong(type, zeros.data(), 3, 64), 64u) << to_string(type);
  }
}

TEST(CountWrong, ChunkedAgreesWithWhole) {
  const Bytes want = expected(DType::f32, 9, 10000);
  Bytes got = want;
  for (std::size_t i : {0u, 4095u, 4096u, 4097u, 8191u, 9999u}) flip_lowest_bit(DType::f32, got.data(), i);
  EXPECT_EQ(count_wrong(DType::f32, got.data(), 9, 10000), 6u);
  EXPECT_EQ(count_wrong(DType::f32, got.data() + 4096 * 4, 9, 5904, 4096), 4u);
}

TEST(FaultHooks, NegatedInputMakesThatElementWrongOnEveryRank) {
  for (DType type : kAllDTypes) {
    SCOPED_TRACE(to_string(type));
    const int n = 4;
    std::vector<Bytes> inputs;
    for (int r = 0; r < n; ++r) inputs.push_back(fill(type, r, n, 100));
    negate_element(type, inputs[2].data(), 50);
    EXPECT_EQ(decode(type, inputs[2], 50), -reference_value(type, 2, n, 50));
    Bytes sum(100 * dtype_size(type));
    for (std::size_t i = 0; i < 100; ++i) {
      double s = 0;
      for (const auto& in : inputs) s = decode(type, encode(type, s + decode(type, in, i)), 0);
      const Bytes e = encode(type, s);
      std::memcpy(sum.data() + i * dtype_size(type), e.data(), e.size());
    }
    EXPECT_EQ(count_wrong(type, sum.data(), n, 100), 1u);
    EXPECT_EQ(count_wrong(type, sum.data() + 50 * dtype_size(type), n, 1, 50), 1u);
  }
}

TEST(FaultHooks, FlippedLowestBitIsOneUlp) {
  const Bytes want = expected(DType::f32, 2, 10);
  Bytes got = want;
  flip_lowest_bit(DType::f32, got.data(), 4);
  const double a = decode(DType::f32, want, 4), b = decode(DType::f32, got, 4);
  EXPECT_EQ(std::nextafter(static_cast<float>(a), static_cast<float>(b)), static_cast<float>(b));
}

}  // namespace
}  // namespace ibgpu
