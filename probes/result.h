#pragma once
// What every probe returns: plain data, no I/O. Probes never print and never
// exit; a broken link is a result with status `error` or `timeout`.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// By name; lookups take any string-like key (no temporary std::string per lookup).
using Metrics = std::map<std::string, Metric, std::less<>>;

struct Scope {
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  std::vector<std::string> devices;
};

struct ProbeResult {
  std::string id;  // e.g. "inventory.gpu", "net.mpi.bw"
  ProbeStatus status = ProbeStatus::ok;
  Scope scope;
  nlohmann::json params = nlohmann::json::object();
  Metrics metrics;
  std::optional<std::string> reason;  // why skipped
  std::optional<std::string> error;   // what went wrong (failed, error, timeout)
};

inline ProbeResult skipped(std::string id, Scope scope, std::string reason) {
  ProbeResult r;
  r.id = std::move(id);
  r.status = ProbeStatus::skipped;
  r.scope = std::move(scope);
  r.reason = std::move(reason);
  return r;
}

}  // namespace ibgpu
