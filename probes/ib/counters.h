#pragma once
// The `ib.port.counters` probe: every port's error counters read before and
// after the network probes, and their deltas and rates over that interval.
// On PAM4 links (HDR, NDR) a few symbol errors are normal: judge rates and
// deltas across the run, not "any error > 0" since the last reboot.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "probes/ib/ports.h"
#include "probes/sysfs.h"

namespace ibgpu {

// The counters whose deltas are recorded (the port's error counters).
const std::vector<std::string>& port_error_counters();

struct PortCounters {
  std::string port;  // "mlx5_0:1"
  std::map<std::string, std::uint64_t> counters;
};

struct CounterSnapshot {
  double taken_s = 0;  // steady-clock seconds: only differences mean anything
  std::vector<PortCounters> ports;
};

CounterSnapshot snapshot_counters(const std::vector<Hca>& hcas, double taken_s);
CounterSnapshot snapshot_counters(const Sysfs& sysfs, double taken_s);

// Pure: one result per port present in both snapshots, with `<counter>_delta`
// and `<counter>_per_hour` metrics and `interval_s` in params. A counter that
// went backwards (reset, or a port re-enumerated) has null metrics and is
// listed in params.reset. A port missing from either snapshot is an error.
std::vector<ProbeResult> counter_deltas(const std::string& host, const CounterSnapshot& before,
                                        const CounterSnapshot& after);

}  // namespace ibgpu
