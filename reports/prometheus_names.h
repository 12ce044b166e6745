#pragma once
// How each metric a probe records is named in the Prometheus exposition: Prometheus' own rules
// (`promtool check metrics`) want base units (seconds, bytes per second, celsius), no abbreviated
// unit in a name, and no `_total`, `_count` or `_sum` on a gauge. One row per metric of the probe
// catalogue (core/probe_kind.h), beside the factor from the unit the probe records to the base one.
#include <optional>
#include <string>
#include <string_view>

namespace ibgpu {

struct ExposedMetric {
  std::string name;  // after the family's prefix ("ibgpu_link_"): "latency_seconds"; empty: not exposed
  // The exposed value is the recorded one * times / per (lat_us: per 1e6): dividing by an exact
  // power of ten, not multiplying by an inexact 1e-6, gives 2.125e-06 for 2.125, not 2.1249999999999998e-06.
  double times = 1, per = 1;
  std::string help;  // what it is, the same in every run (a Pushgateway refuses a push whose HELP differs)
  double of(double recorded) const { return recorded * times / per; }
};

// The exposition of a recorded metric key: a catalogue metric's row, or a port counter's
// "<counter>_delta" (the increase during the run, as recorded) and "<counter>_per_hour" (exposed
// per second), the counter's name in lower case. nullopt for a key none of those know (a newer
// build's metric): the reporter writes it as recorded.
std::optional<ExposedMetric> exposed_metric(std::string_view key);

}  // namespace ibgpu
