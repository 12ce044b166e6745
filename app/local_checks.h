#pragma once
// The local phase of `ibgpu check`, on the first rank of each host: GPU and
// kernel-log checks before any traffic, and the RDMA port counters read
// before and after the network probes so their deltas cover the run.
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "probes/ib/counters.h"
#include "probes/sysfs.h"

namespace ibgpu {

// gpu.nvml.health, gpu.cuda.* and node.kernel_log for the described host.
std::vector<ProbeResult> run_local_checks(const HostInventory& host);

// Reads the port counters now and, on finish(), again: the ib.port.counters results.
class PortCounterWatch {
 public:
  PortCounterWatch(const Sysfs& sysfs, const HostInventory& host);
  std::vector<ProbeResult> finish() const;

 private:
  const Sysfs& sysfs_;
  std::string host_;
  CounterSnapshot before_;
};

}  // namespace ibgpu
