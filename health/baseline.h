#pragma once
// A fleet baseline: per measurement kind (the fleet rule's key, see
// health/fleet.h), the median over many saved runs of the values whose
// entities were judged healthy. `check --baseline FILE` lets the fleet rule
// compare against it instead of the run's own median, also where a run has
// too few measurements of a kind for a median of its own. Pure: reading and
// writing the files is the caller's.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/report.h"

namespace ibgpu {

inline constexpr int kBaselineVersion = 1;

struct BaselineKind {
  double median = 0;
  std::size_t n = 0;  // healthy values behind the median
};

struct BaselineRun {
  std::string id;
  std::string started;
};

struct Baseline {
  int baseline_version = kBaselineVersion;
  std::vector<BaselineRun> runs;              // the saved runs it was built from
  std::map<std::string, BaselineKind> kinds;  // "net.verbs.write_bw@8388608:bw_avg_GBps" -> median

  // In the shape the judge takes (health/judge.h).
  std::unordered_map<std::string, double> medians() const;
};

// Every judged measurement of every run, at every message size, counts when
// its own entity was judged healthy in that run and no node, port or GPU it
// touched was judged anything else. Lower median for even counts, as the
// fleet rule computes it.
Baseline build_baseline(const std::vector<Report>& runs);

nlohmann::json to_json(const Baseline& b);
// Throws std::runtime_error for a document that is not a baseline or has a
// newer baseline_version than this build reads.
Baseline baseline_from_json(const nlohmann::json& j);

}  // namespace ibgpu
