#include "core/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/statistics.h"

namespace ibgpu {
namespace {

void expect_invalid(const std::function<void()>& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

std::vector<double> one_to(int n) {
  std::vector<double> v;
  for (int i = n; i >= 1; --i) v.push_back(i);  // descending: summarize must sort
  return v;
}

TEST(Summarize, OneToHundred) {
  const Stats s = summarize(one_to(100));
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.p50, 50);
  EXPECT_DOUBLE_EQ(s.p90, 90);
  EXPECT_DOUBLE_EQ(s.p99, 99);
  EXPECT_DOUBLE_EQ(s.p999, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(833.25));  // population variance of 1..n is (n^2-1)/12
}

TEST(Summarize, NearestRankOnExactMultiples) {
  // p * n is a whole number here; a floating ceil(0.999 * 1000) must not slip to rank 1000.
  const Stats s = summarize(one_to(1000));
  EXPECT_DOUBLE_EQ(s.p50, 500);
  EXPECT_DOUBLE_EQ(s.p90, 900);
  EXPECT_DOUBLE_EQ(s.p99, 990);
  EXPECT_DOUBLE_EQ(s.p999, 999);
}

TEST(Summarize, NearestRankRoundsUp) {
  const Stats s = summarize(one_to(10));
  EXPECT_DOUBLE_EQ(s.p50, 5);   // ceil(5) = 5
  EXPECT_DOUBLE_EQ(s.p90, 9);   // ceil(9) = 9
  EXPECT_DOUBLE_EQ(s.p99, 10);  // ceil(9.9) = 10
  EXPECT_DOUBLE_EQ(s.p999, 10);
  const Stats odd = summarize({3, 1, 2});
  EXPECT_DOUBLE_EQ(odd.p50, 2);  // ceil(1.5) = 2
}

TEST(Summarize, SubMicrosecondLatencies) {
  // Integer temporaries (perftest) would report stddev 0 and mean 0 here.
  const Stats s = summarize({0.45, 0.41, 0.49, 0.43, 0.47});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.min, 0.41);
  EXPECT_DOUBLE_EQ(s.max, 0.49);
  EXPECT_DOUBLE_EQ(s.p50, 0.45);
  EXPECT_DOUBLE_EQ(s.p90, 0.49);
  EXPECT_NEAR(s.mean, 0.45, 1e-15);
  EXPECT_NEAR(s.stddev, std::sqrt(0.0008), 1e-15);  // deviations +-0.02, +-0.04
}

TEST(Summarize, TightSpreadAroundLargeValue) {
  // Sum-of-squares minus mean^2 loses everything here; two passes keep it.
  const Stats s = summarize({1e9 + 1, 1e9 - 1, 1e9 + 1, 1e9 - 1});
  EXPECT_DOUBLE_EQ(s.mean, 1e9);
  EXPECT_DOUBLE_EQ(s.stddev, 1);
}

TEST(Summarize, SingleSample) {
  const Stats s = summarize({2.5});
  EXPECT_EQ(s.n, 1u);
  for (const double v : {s.min, s.p50, s.p90, s.p99, s.p999, s.max, s.mean}) EXPECT_DOUBLE_EQ(v, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
}

TEST(Summarize, Empty) {
  const Stats s = summarize({});
  EXPECT_EQ(s.n, 0u);
  for (const double v : {s.min, s.p50, s.p90, s.p99, s.p999, s.max, s.mean, s.stddev}) EXPECT_EQ(v, 0);
}

TEST(SummarizeLatency, DropsTwoLargest) {
  const Stats s = summarize_latency({200, 1, 5, 100, 3, 2, 4});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.0));
}

TEST(SummarizeLatency, DropsOneOfTiedLargest) {
  const Stats s = summarize_latency({7, 7, 7, 1});
  EXPECT_EQ(s.n, 2u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 7);
}

TEST(SummarizeLatency, KeepsAtLeastOne) {
  const Stats two = summarize_latency({9, 4});
  EXPECT_EQ(two.n, 1u);
  EXPECT_DOUBLE_EQ(two.max, 4);
  const Stats three = summarize_latency({9, 4, 6});
  EXPECT_EQ(three.n, 1u);
  EXPECT_DOUBLE_EQ(three.p50, 4);
  EXPECT_EQ(summarize_latency({9}).n, 1u);
  EXPECT_EQ(summarize_latency({}).n, 0u);
  EXPECT_EQ(summarize_latency({1, 2, 3}, 100).n, 1u);
}

TEST(SummarizeLatency, DropZeroKeepsAll) {
  const Stats s = summarize_latency(one_to(100), 0);
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.max, 100);
}

TEST(Rates, DecimalUnits) {
  EXPECT_DOUBLE_EQ(gbytes_per_s(25e9, 1), 25);
  EXPECT_DOUBLE_EQ(gbytes_per_s(65536.0 * 5000, 0.5), 0.65536);
  EXPECT_DOUBLE_EQ(gbits_per_s(25e9, 1), 200);
  EXPECT_DOUBLE_EQ(gbits_per_s(1e9, 2), 4);
  EXPECT_DOUBLE_EQ(mpps(5000, 0.001), 5);
}

TEST(Rates, NonPositiveDurationGivesZero) {
  EXPECT_EQ(gbytes_per_s(1e9, 0), 0);
  EXPECT_EQ(gbits_per_s(1e9, -1), 0);
  EXPECT_EQ(mpps(10, 0), 0);
}

TEST(ParseSize, PlainAndBinaryMultiples) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("8M"), 8388608u);
  EXPECT_EQ(parse_size("1G"), 1073741824u);
  EXPECT_EQ(parse_size("3000"), 3000u);
}

TEST(ParseSize, SuffixSpellings) {
  for (const char* text : {"64K", "64k", "64KB", "64kb", "64KiB", "64kib", "64Kib"})
    EXPECT_EQ(parse_size(text), 65536u) << text;
  for (const char* text : {"2m", "2MB", "2MiB", "2mIb"}) EXPECT_EQ(parse_size(text), 2u << 20) << text;
  for (const char* text : {"1g", "1GB", "1GiB"}) EXPECT_EQ(parse_size(text), 1u << 30) << text;
  EXPECT_EQ(parse_size("8B"), 8u);
  EXPECT_EQ(parse_size("8b"), 8u);
  EXPECT_EQ(parse_size(" 64K "), 65536u);
}

TEST(ParseSize, RejectsBadTokensByName) {
  expect_invalid([] { parse_size(""); }, "''");
  expect_invalid([] { parse_size("   "); }, "empty");
  expect_invalid([] { parse_size("abc"); }, "'abc'");
  expect_invalid([] { parse_size("8X"); }, "'8X'");
  expect_invalid([] { parse_size("8X"); }, "unit");
  expect_invalid([] { parse_size("-1"); }, "'-1'");
  expect_invalid([] { parse_size("+1"); }, "'+1'");
  expect_invalid([] { parse_size("K"); }, "'K'");
  expect_invalid([] { parse_size("8iB"); }, "'8iB'");
  expect_invalid([] { parse_size("8KK"); }, "'8KK'");
  expect_invalid([] { parse_size("8 K"); }, "'8 K'");
  expect_invalid([] { parse_size("1.5M"); }, "'1.5M'");
  expect_invalid([] { parse_size("8T"); }, "'8T'");
}

TEST(ParseSize, RejectsOverflow) {
  expect_invalid([] { parse_size("99999999999999999999999"); }, "too large");
  const std::string max_digits = std::to_string(std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(parse_size(max_digits), std::numeric_limits<std::size_t>::max());
  const std::string just_fits = std::to_string(std::numeric_limits<std::size_t>::max() >> 30) + "G";
  EXPECT_EQ(parse_size(just_fits), (std::numeric_limits<std::size_t>::max() >> 30) << 30);
  const std::string one_over = std::to_string((std::numeric_limits<std::size_t>::max() >> 30) + 1) + "G";
  expect_invalid([&] { parse_size(one_over); }, "too large");
}

TEST(ParseSizes, ListInGivenOrder) {
  EXPECT_EQ(parse_sizes("8,64K,8M,1G"), (std::vector<std::size_t>{8, 65536, 8388608, 1073741824}));
  EXPECT_EQ(parse_sizes("4096"), (std::vector<std::size_t>{4096}));
  EXPECT_EQ(parse_sizes("1M, 8 ,1M"), (std::vector<std::size_t>{1 << 20, 8, 1 << 20}));
}

TEST(ParseSizes, RejectsBadOrEmptyTokens) {
  expect_invalid([] { parse_sizes(""); }, "empty");
  expect_invalid([] { parse_sizes("8,64Q"); }, "'64Q'");
  expect_invalid([] { parse_sizes("8,,64K"); }, "empty");
  expect_invalid([] { parse_sizes("8,"); }, "empty");
}

TEST(SizeSweep, DoublingEightToEightMeg) {
  const auto sizes = size_sweep(8, 8 << 20);
  ASSERT_EQ(sizes.size(), 21u);  // 2^3 .. 2^23
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], std::size_t{8} << i);
}

TEST(SizeSweep, MaxIncludedOffTheLadder) {
  EXPECT_EQ(size_sweep(3, 20), (std::vector<std::size_t>{3, 6, 12, 20}));
  EXPECT_EQ(size_sweep(1, 1000, 10), (std::vector<std::size_t>{1, 10, 100, 1000}));
  EXPECT_EQ(size_sweep(1, 999, 10), (std::vector<std::size_t>{1, 10, 100, 999}));
  EXPECT_EQ(size_sweep(64, 64), (std::vector<std::size_t>{64}));
}

TEST(SizeSweep, NoOverflowNearTheTop) {
  const std::size_t top = std::numeric_limits<std::size_t>::max();
  const auto sizes = size_sweep(top / 3, top);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{top / 3, top / 3 * 2, top}));
}

TEST(SizeSweep, RejectsBadArguments) {
  expect_invalid([] { size_sweep(0, 8); }, "minimum");
  expect_invalid([] { size_sweep(16, 8); }, "16");
  expect_invalid([] { size_sweep(1, 8, 1); }, "factor");
  expect_invalid([] { size_sweep(1, 8, 0); }, "factor");
}

TEST(FormatSize, LargestExactUnit) {
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(8), "8");
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(65536), "64K");
  EXPECT_EQ(format_size(8388608), "8M");
  EXPECT_EQ(format_size(1073741824), "1G");
  EXPECT_EQ(format_size(std::size_t{1} << 40), "1024G");
  EXPECT_EQ(format_size(3000), "3000");
  EXPECT_EQ(format_size(1536), "1536");  // 1.5K is not a whole unit
  EXPECT_EQ(format_size(3 << 20 | 1 << 10), "3073K");
}

TEST(FormatSize, RoundTripsThroughParse) {
  for (const std::size_t bytes : size_sweep(1, std::size_t{1} << 34)) EXPECT_EQ(parse_size(format_size(bytes)), bytes);
  for (const std::size_t bytes : {3u, 1000u, 1536u, 3000u, 4097u}) EXPECT_EQ(parse_size(format_size(bytes)), bytes);
}

}  // namespace
}  // namespace ibgpu
