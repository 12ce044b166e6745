#pragma once
// Input ibgpu reads back (saved reports, baselines, JSON Lines streams, profiles) is bounded: it
// runs as root on production nodes, and `ibgpu report /dev/zero` must be an error, not a host
// out of memory. Each reader states its limits here; a breach throws InputError, which the
// commands turn into a usage error (exit 64).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A saved fleet report of 4096 nodes x 8 rails is about 170 MB; one is about 8 levels deep.
inline constexpr std::size_t kReportMaxBytes = std::size_t{1} << 30;
inline constexpr std::size_t kJsonMaxDepth = 64;
inline constexpr std::size_t kProfileMaxBytes = std::size_t{256} << 10;
inline constexpr std::size_t kProfileMaxLine = 1000;  // toml++ recurses once per part of a dotted key
// Slurm's topology.conf (--topology): a 10,000-node cluster's is a few hundred KiB, a switch's line a
// few KiB; hostlist expressions expand to at most kTopologyMaxNames hosts and switches in all.
inline constexpr std::size_t kTopologyMaxBytes = std::size_t{16} << 20;
inline constexpr std::size_t kTopologyMaxLine = std::size_t{64} << 10;
inline constexpr std::size_t kTopologyMaxNames = 1000000;
// The cabling as ibnetdiscover prints it (--cabling): each cable twice, about 150 bytes a line: a
// 10,000-node fabric of 8 rails is about 25 MB.
inline constexpr std::size_t kCablingMaxBytes = std::size_t{128} << 20;

// The whole of a regular file of at most max_bytes, or InputError naming the path and
// why (a device, a FIFO, /proc: not regular; the size). Never opens what is not a regular file.
std::string read_bounded_file(const std::string& path, std::size_t max_bytes);

// All of what can be read from the open descriptor `fd` (stdin for `ibgpu report -`), at most
// max_bytes, or InputError naming `origin`: a stream that goes on past the limit is refused at the
// limit, never read to its end.
std::string read_bounded_stream(int fd, std::size_t max_bytes, const std::string& origin);

// Throws InputError when JSON text nests arrays and objects deeper than max_depth (before a
// parser or a recursive walk gets to it). Strings are skipped, escapes included.
void check_json_depth(std::string_view text, std::size_t max_depth, const std::string& origin);

// An integer of a saved file as T. nlohmann converts any number to any arithmetic type, and a
// double out of T's range (schema_version -1e300) is undefined behaviour, 2^64-1 read as int is
// -1: here it must be an integer that fits, else InputError.
template <class T>
T exact_integer(const nlohmann::json& j, const char* key) {
  static_assert(std::is_integral_v<T>);
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (v <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(v);
  } else if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if ((std::is_signed_v<T> || v >= 0) &&
        (!std::is_signed_v<T> || v >= static_cast<std::int64_t>(std::numeric_limits<T>::min())) &&
        static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)) <=
            static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      return static_cast<T>(v);
  } else {
    throw InputError(std::string("'") + key + "' must be an integer, not " + j.type_name());
  }
  throw InputError(std::string("'") + key + "' = " + j.dump() + " is out of range");
}

// An optional integer member: `fallback` when absent, else exact_integer.
template <class T>
T integer_or(const nlohmann::json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  return it == j.end() ? fallback : exact_integer<T>(*it, key);
}

// An optional array of integers (empty when absent), each exact.
template <class T>
std::vector<T> integers_or_empty(const nlohmann::json& j, const char* key) {
  std::vector<T> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array()) throw InputError(std::string("'") + key + "' must be an array, not " + it->type_name());
  for (const auto& v : *it) out.push_back(exact_integer<T>(v, key));
  return out;
}

// An optional object of integers (empty when absent), each exact.
template <class T>
std::map<std::string, T> integer_map_or_empty(const nlohmann::json& j, const char* key) {
  std::map<std::string, T> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_object()) throw InputError(std::string("'") + key + "' must be an object, not " + it->type_name());
  for (const auto& [name, v] : it->items()) out[name] = exact_integer<T>(v, key);
  return out;
}

}  // namespace ibgpu
