#pragma once
// Units: rates and message sizes, computed by the probes and written and read by the CLI and the
// reports (their statistics: core/statistics.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/deadline.h"
#include "core/result.h"

namespace ibgpu {

// Rates in decimal units (1e9 bytes, 1e9 bits, 1e6 messages), as perftest and nccl-tests report.
// A non-positive duration has no meaningful rate and gives 0.
double gbytes_per_s(double bytes, double seconds);
double gbits_per_s(double bytes, double seconds);
double mpps(double messages, double seconds);

// "64K", "8MiB", "1g", "8B", "4096": binary multiples (K = 1024), case-insensitive.
// Throws std::invalid_argument naming the token.
std::size_t parse_size(const std::string& text);
// "8,64K,8M": in the order given. Throws on any bad or empty token.
std::vector<std::size_t> parse_sizes(const std::string& list);
// min, min*factor, ... and max itself even when it is not on the ladder.
// Throws std::invalid_argument if min == 0, min > max or factor < 2.
std::vector<std::size_t> size_sweep(std::size_t min, std::size_t max, std::size_t factor = 2);
// The largest exact binary unit: 8 -> "8", 65536 -> "64K", 3000 -> "3000". parse_size reads it back.
std::string format_size(std::size_t bytes);
// A list as --sizes takes it: {1M, 16M} -> "1M,16M".
std::string format_sizes(const std::vector<std::size_t>& sizes);

// A length of time as messages, notes and tables print it, the one format: under two minutes in
// seconds to three figures ("0.25 s", "45 s", "60 s"), then minutes ("4m 5s", "30m"), then hours
// ("1h 30m", "2h").
std::string duration_text(double seconds);
inline std::string duration_text(Seconds length) { return duration_text(length.count()); }

// A moment as reports write it, in UTC: "2026-12-05T11:02:00Z".
std::string rfc3339(std::int64_t unix_seconds);

}  // namespace ibgpu
