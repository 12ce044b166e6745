#pragma once
// What changed between two saved runs (health/compare.h makes it,
// reports/compare.h renders it): state changes, entities that appeared or
// vanished, and judged measurements that moved by more than a threshold.
#include <optional>
#include <string>
#include <vector>

namespace ibgpu {

struct Change {
  enum class Kind { state, appeared, vanished, metric };
  Kind kind = Kind::state;
  std::string entity;              // "link node1<->node2", "node node3", or a measurement's subject
  std::string what;                // the state change's reasons, or the measurement kind
  std::string old_text, new_text;  // states ("-" for none); empty for a metric, whose numbers follow
  std::optional<double> old_value, new_value;
  std::optional<double> relative;  // (new - old) / |old| for metrics; null when old is 0
};

const char* to_string(Change::Kind kind);

struct Comparison {
  std::string old_run, new_run;  // run ids
  double threshold = 0.1;
  std::vector<Change> changes;  // states first (in the new run's order), then vanished, then metrics
};

}  // namespace ibgpu
