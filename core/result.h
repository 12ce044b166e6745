#pragma once
// What every probe returns: plain data, no I/O. Probes never print and never
// exit; a broken link is a result with status `error` or `timeout`.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/probe_kind.h"

namespace ibgpu {

enum class ProbeStatus { ok, failed, skipped, timeout, error };

const char* to_string(ProbeStatus status);
std::optional<ProbeStatus> probe_status_from_string(const std::string& text);

// Distribution of a sampled metric. Computed in double precision (see stats.h).
struct Stats {
  std::size_t n = 0;
  double min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0, mean = 0, stddev = 0;
};

// A metric is a single value, a sampled distribution, or missing (null).
struct Metric {
  std::optional<double> value;
  std::optional<Stats> summary;

  static Metric of(double v) { return Metric{v, std::nullopt}; }
  static Metric of(const Stats& s) { return Metric{std::nullopt, s}; }
  static Metric missing() { return Metric{}; }
  // The representative number: the value, else the median of the summary.
  std::optional<double> typical() const;
};

// Metrics by name, in name order, in one contiguous array. A result has a
// handful to a few dozen; a fleet's report has hundreds of thousands of
// results, and judging and rendering walk them all: a tree of nodes per
// result made every walk wait on memory. Lookups take any string-like key.
class Metrics {
 public:
  using value_type = std::pair<std::string, Metric>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  Metrics() = default;
  // Like a map's: the first of equal names is kept.
  Metrics(std::initializer_list<value_type> items) {
    for (const auto& item : items) emplace(item.first, item.second);
  }

  // The named metric, inserted missing in its place when new.
  Metric& operator[](std::string_view name) {
    auto it = lower_bound(name);
    if (it == items_.end() || it->first != name) it = items_.insert(it, value_type(std::string(name), Metric{}));
    return it->second;
  }
  // Inserts unless the name is there; true when inserted.
  std::pair<iterator, bool> emplace(std::string_view name, const Metric& m) {
    auto it = lower_bound(name);
    if (it != items_.end() && it->first == name) return {it, false};
    return {items_.insert(it, value_type(std::string(name), m)), true};
  }
  const_iterator find(std::string_view name) const {
    auto it = lower_bound(name);
    return it != items_.end() && it->first == name ? it : items_.end();
  }
  iterator find(std::string_view name) {
    auto it = lower_bound(name);
    return it != items_.end() && it->first == name ? it : items_.end();
  }
  const Metric& at(std::string_view name) const {
    auto it = find(name);
    if (it == items_.end()) throw std::out_of_range("no metric " + std::string(name));
    return it->second;
  }
  bool contains(std::string_view name) const { return find(name) != end(); }
  std::size_t count(std::string_view name) const { return contains(name) ? 1 : 0; }

  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }
  void reserve(std::size_t n) { items_.reserve(n); }

 private:
  iterator lower_bound(std::string_view name) {
    return std::lower_bound(items_.begin(), items_.end(), name,
                            [](const value_type& item, std::string_view n) { return item.first < n; });
  }
  const_iterator lower_bound(std::string_view name) const {
    return std::lower_bound(items_.begin(), items_.end(), name,
                            [](const value_type& item, std::string_view n) { return item.first < n; });
  }
  std::vector<value_type> items_;  // sorted by name, names unique
};

struct Scope {
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  std::vector<std::string> devices;
};

// Who kept a skipped check from running: the node (no library, no device) or
// ibgpu itself (its time cap, the budget, a stop signal). The first is evidence
// missing because of the node; the second is ibgpu's gap, never the node's
// (health/decision.h).
enum class SkippedBy { node, ibgpu };
const char* to_string(SkippedBy by);

struct ProbeResult {
  std::string id;  // e.g. "inventory.gpu", "net.mpi.bw"
  ProbeStatus status = ProbeStatus::ok;
  Scope scope;
  nlohmann::json params = nlohmann::json::object();
  Metrics metrics;
  std::optional<std::string> reason;  // why skipped
  SkippedBy skipped_by = SkippedBy::node;
  std::optional<std::string> error;  // what went wrong (failed, error, timeout)
  // When the result was in, RFC 3339 UTC (a pair's when its measurements ended, another's when its
  // step did); empty where unknown (a report of an older ibgpu, the simulator's).
  std::string time = {};

  // Its entry in the probe catalogue, found by id.
  const ProbeKind& kind() const { return probe_kind(id); }
};

// The result's metric of that name, or null.
inline const Metric* find_metric(const ProbeResult& p, std::string_view name) {
  const auto it = p.metrics.find(name);
  return it == p.metrics.end() ? nullptr : &it->second;
}

// The typical value of the result's metric of that name, if it has one.
inline std::optional<double> typical(const ProbeResult& p, std::string_view name) {
  const Metric* m = find_metric(p, name);
  return m ? m->typical() : std::nullopt;
}

// The result's string param of that name; empty where it has none or another type.
std::string string_param(const ProbeResult& p, std::string_view key);

// The message size the result was measured at (params.size_B): any
// non-negative integer (a result built in memory holds a signed one, a parsed
// report an unsigned one), else nullopt.
std::optional<std::uint64_t> message_size(const ProbeResult& p);

// A network probe between two hosts.
inline bool is_pair_probe(const ProbeResult& p) { return p.kind().pair() && p.scope.hosts.size() == 2; }
inline bool is_allreduce_probe(const ProbeResult& p) { return p.kind().all_reduce(); }

// "cuda:3" / "GPU3" / "gpu3" -> "gpu3"; anything else unchanged.
std::string gpu_name(const std::string& device);

// A judged number in messages: four significant digits ("47.5", "1.235e+04").
std::string format_value(double v);

inline ProbeResult skipped(std::string id, Scope scope, std::string reason, SkippedBy by = SkippedBy::node) {
  ProbeResult r;
  r.id = std::move(id);
  r.status = ProbeStatus::skipped;
  r.scope = std::move(scope);
  r.reason = std::move(reason);
  r.skipped_by = by;
  return r;
}

}  // namespace ibgpu
