#pragma once
// What changed between two saved runs, per entity: state changes, entities
// that appeared or vanished, and judged measurements (bandwidth, latency,
// bus bandwidth, GPU copy and memory bandwidth) that moved by more than a
// relative threshold. Pure.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/report.h"

namespace ibgpu {

struct Change {
  enum class Kind { state, appeared, vanished, metric };
  Kind kind = Kind::state;
  std::string entity;              // "link node1<->node2", "node node3", or a measurement's subject
  std::string what;                // the state change's reasons, or the measurement kind
  std::string old_text, new_text;  // states, or numbers as text
  std::optional<double> old_value, new_value;
  std::optional<double> relative;  // (new - old) / |old| for metrics; null when old is 0
};

const char* to_string(Change::Kind kind);

struct Comparison {
  std::string old_run, new_run;  // run ids
  double threshold = 0.1;
  std::vector<Change> changes;  // states first (in the new run's order), then vanished, then metrics
};

// Measurements are matched by probe id, size and shape, hosts and devices;
// re-tests of one are reduced to their median first.
Comparison compare_reports(const Report& old_run, const Report& new_run, double threshold);

void print_comparison(const Comparison& c, std::ostream& out);
nlohmann::json to_json(const Comparison& c);

}  // namespace ibgpu
