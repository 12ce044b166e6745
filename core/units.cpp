#include "core/units.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/text.h"

namespace ibgpu {

namespace {

double rate(double amount, double seconds, double unit) { return seconds > 0 ? amount / seconds / unit : 0.0; }

// K, M, G, each optionally followed by B or iB; a bare B is bytes. Returns 0 for anything else.
std::size_t multiplier(const std::string& suffix) {
  std::string rest = lower(suffix);
  std::size_t factor = 1;
  if (!rest.empty()) {
    const auto unit = std::string_view("kmg").find(rest.front());
    if (unit != std::string_view::npos) {
      factor = std::size_t{1} << (10 * (unit + 1));
      rest.erase(0, 1);
    }
  }
  if (rest.empty() || rest == "b" || (factor > 1 && rest == "ib")) return factor;
  return 0;
}

[[noreturn]] void bad_size(const std::string& text, const std::string& why) {
  throw std::invalid_argument("invalid size '" + text + "': " + why);
}

}  // namespace

double gbytes_per_s(double bytes, double seconds) { return rate(bytes, seconds, 1e9); }
double gbits_per_s(double bytes, double seconds) { return rate(bytes * 8, seconds, 1e9); }
double mpps(double messages, double seconds) { return rate(messages, seconds, 1e6); }

std::size_t parse_size(const std::string& text) {
  const std::string token(trim(text));
  if (token.empty()) bad_size(text, "empty");
  std::size_t value = 0;
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec == std::errc::result_out_of_range) bad_size(text, "too large");
  if (ec != std::errc{}) bad_size(text, "expected a byte count such as 4096, 64K, 8M or 1G");
  const std::size_t factor = multiplier(std::string(ptr, end));
  if (factor == 0) bad_size(text, "unknown unit '" + std::string(ptr, end) + "' (use K, M or G)");
  if (value > std::numeric_limits<std::size_t>::max() / factor) bad_size(text, "too large");
  return value * factor;
}

std::vector<std::size_t> parse_sizes(const std::string& list) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (true) {
    const auto comma = list.find(',', start);
    sizes.push_back(parse_size(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

std::vector<std::size_t> size_sweep(std::size_t min, std::size_t max, std::size_t factor) {
  if (min == 0) throw std::invalid_argument("size sweep: minimum size must be at least 1 byte");
  if (min > max)
    throw std::invalid_argument("size sweep: minimum " + format_size(min) + " is above maximum " + format_size(max));
  if (factor < 2) throw std::invalid_argument("size sweep: factor must be at least 2");
  std::vector<std::size_t> sizes;
  for (std::size_t s = min;; s *= factor) {
    sizes.push_back(s);
    if (s == max) break;
    // Comparing against max / factor keeps s * factor from overflowing near SIZE_MAX.
    if (s > max / factor) {
      sizes.push_back(max);
      break;
    }
  }
  return sizes;
}

std::string format_size(std::size_t bytes) {
  constexpr std::array<std::pair<char, unsigned>, 3> kUnits{{{'G', 30}, {'M', 20}, {'K', 10}}};
  if (bytes != 0)
    for (const auto& [unit, shift] : kUnits) {
      const std::size_t factor = std::size_t{1} << shift;
      if (bytes % factor == 0) return std::to_string(bytes / factor) + unit;
    }
  return std::to_string(bytes);
}

std::string format_sizes(const std::vector<std::size_t>& sizes) {
  std::string text;
  for (std::size_t size : sizes) text += (text.empty() ? "" : ",") + format_size(size);
  return text;
}

std::string duration_text(double seconds) {
  char text[48];
  const long s = std::lround(seconds);
  if (seconds < 120)
    std::snprintf(text, sizeof text, "%.3g s", seconds);
  else if (s < 3600)
    std::snprintf(text, sizeof text, s % 60 ? "%ldm %lds" : "%ldm", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, (s % 3600) / 60 ? "%ldh %ldm" : "%ldh", s / 3600, (s % 3600) / 60);
  return text;
}

std::string rfc3339(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  return std::string(text, std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc));
}

}  // namespace ibgpu
