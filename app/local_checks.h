#pragma once
// The local phase of `ibgpu check`, on the first rank of each host: GPU and
// kernel-log checks before any traffic, and the RDMA port counters read
// before and after the network probes so their deltas cover the run.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "probes/ib/counters.h"
#include "probes/sysfs.h"

namespace ibgpu {

class LiveChannel;  // app/live_events.h

// The local checks a run leaves out (`--skip`): catalogue ids of the local
// stage, or a family of them ("gpu.cuda": the three CUDA probes). A check left
// out does not run at all (a Slurm health check on a node with jobs must not
// load its GPUs) and is not judged: the run's notes say what was not covered.
struct LocalSkips {
  std::vector<std::string> names;  // as given
  bool skips(std::string_view probe_id) const;
  // "gpu.cuda (gpu.cuda.copy_bw, gpu.cuda.mem_bw, gpu.cuda.compute)": for the run's note.
  std::string text() const;
};
// Throws UsageError for a name that is no local check or family of them.
LocalSkips parse_local_skips(const std::vector<std::string>& names);

// gpu.nvml.health, gpu.cuda.*, node.kernel_log and node.imex (its files under `imex_root`) for
// the described host, except what `skip` leaves out.
std::vector<ProbeResult> run_local_checks(const HostInventory& host, const LocalSkips& skip, LiveChannel& live,
                                          const std::string& imex_root = "/");

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
