#pragma once
// Pure judging of a node's own hardware before any traffic: GPUs (NVML
// values, CUDA probes, XIDs) and RDMA ports (state, rate, width, error
// counters over the run, link drops). No MPI, no I/O.
#include <optional>
#include <vector>

#include "health/verdict.h"
#include "probes/inventory.h"
#include "probes/result.h"

namespace ibgpu {

struct LocalLimits {
  std::optional<int> expect_gpus;          // per host; fewer is GPU_MISSING (failed)
  std::optional<int> expect_active_ports;  // per host; fewer is IB_PORTS_MISSING (failed)
  std::optional<double> port_rate_gbps;    // e.g. 400 for 4X NDR; a slower port is degraded
  std::optional<int> port_width;           // lanes, e.g. 4; fewer is degraded

  // Error counter rates over the run, per hour, above which a port is degraded.
  // PAM4 links (HDR, NDR) see a trickle of symbol errors that FEC corrects:
  // judge a rate, not "any error". Any link_downed increase during the run is failed.
  double symbol_error_per_hour_degraded = 120;
  double link_error_recovery_per_hour_degraded = 6;
  double port_rcv_errors_per_hour_degraded = 120;
  double local_link_integrity_errors_per_hour_degraded = 6;
  double excessive_buffer_overrun_errors_per_hour_degraded = 6;
  // Link drops in the kernel log since boot; one or two are what a boot or a
  // cable reseat leaves behind.
  int link_down_events_degraded = 3;

  std::optional<double> gpu_temp_degraded_C;  // e.g. 85
  std::optional<double> gpu_temp_failed_C;    // e.g. 95
  bool require_persistence_mode = false;      // persistence off is degraded when set
  std::optional<double> gpu_copy_min_GBps;    // host<->device floor (degraded below)
  std::optional<double> gpu_mem_bw_min_GBps;  // device memory floor (degraded below)
};

// Verdicts for `gpu` ("host/gpuN"), `hca_port` ("host/mlx5_0:1") and, for
// device counts and host-wide local checks, `node` entities. A local check
// that was skipped makes its entity unknown, never healthy.
std::vector<Verdict> judge_local_health(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                                        const LocalLimits& limits);

// The same verdicts written into the caller's book (the judge's), in the same
// order: a fleet has tens of thousands of them, not worth copying from one
// book into another.
class VerdictBook;
void judge_local_health(VerdictBook& book, const std::vector<HostInventory>& hosts,
                        const std::vector<ProbeResult>& probes, const LocalLimits& limits);

// Local probes are judged here entirely; the general judge leaves them alone.
bool is_local_probe(const ProbeResult& probe);

}  // namespace ibgpu
