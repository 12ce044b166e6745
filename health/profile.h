#pragma once
// What a node of a given kind should have and reach. The `generic` profile
// expects nothing in particular: whatever exists is checked, fleet-relative
// rules catch the outliers, and what cannot be checked is unknown.
//
// Profiles are TOML files (profiles/*.toml, see profile_file.h); the
// thresholds a run applied are recorded in its report (to_json).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/probe_kind.h"
#include "core/verdict.h"

namespace ibgpu {

// What a host of this kind has (TOML table [node]). Unset: not checked.
struct NodeExpectations {
  std::optional<int> expect_gpus;          // per host; 0 declares a CPU-only node
  std::optional<int> expect_active_ports;  // per host; 0 declares a node without RDMA
  std::optional<double> port_rate_gbps;    // link rate each active port should train to
  std::optional<int> port_width;           // lanes (4 for 4X)
  // A GPU and its nearest rail are one unit (rail-aligned pools): a GPU left
  // out of the pool takes its rail with it, which would carry no traffic of its.
  bool exclude_rail_with_gpu = false;
};

// IB error counter rates over the run, per hour, above which a port is
// degraded (TOML table [counters]). PAM4 links (HDR, NDR) see a trickle of
// symbol errors that FEC corrects: judge a rate, not "any error". Any
// link_downed increase during the run is failed.
struct CounterLimits {
  double symbol_error_per_hour_degraded = 120;
  double link_error_recovery_per_hour_degraded = 6;
  double port_rcv_errors_per_hour_degraded = 120;
  double local_link_integrity_errors_per_hour_degraded = 6;
  double excessive_buffer_overrun_errors_per_hour_degraded = 6;
  // Link drops in the kernel log since boot; one or two are what a boot or a
  // cable reseat leaves behind.
  int link_down_events_degraded = 3;
};

// One metric's limits. For bandwidths they are floors (below `failed` is
// failed, below `degraded` is degraded); for latencies they are ceilings.
struct Limit {
  std::optional<double> failed;
  std::optional<double> degraded;
  bool empty() const { return !failed && !degraded; }
};

enum class LimitSense { floor, ceiling };

struct NetworkLimits {
  // Bandwidth limits apply at this message size and above: small messages
  // measure per-message overhead, not the link.
  std::size_t bw_min_size_B = std::size_t{8} << 20;
  Limit verbs_bw_GBps;  // per rail, RDMA write
  Limit mpi_bw_GBps;    // per pair over MPI
  Limit lat_p50_us;     // ceilings, every latency size
  Limit lat_p99_us;
};

// The floors belong to one backend and a size range: NCCL over NVLink and RDMA
// is held to them; the MPI host backend, and sizes below min_size_B, are
// recorded and not judged by them (the fleet rule still compares like with like).
struct AllReduceLimits {
  Transport backend = Transport::nccl;            // the backend the floors are written for (nccl | mpi)
  std::size_t min_size_B = std::size_t{1} << 30;  // judge busbw at large messages only
  Limit node_busbw_GBps;                          // all GPUs of one node
  Limit rail_busbw_GBps;                          // across nodes (one rail or the whole fabric)
  // Across nodes of one NVLink domain (an NVL72 rack): NCCL takes NVLink between them, not the
  // rails (health/nvlink_domains.h), so such a group is held to this floor instead.
  Limit domain_busbw_GBps;
  // The network NCCL takes across hosts, as its log names it ("IB": IB or RoCE through NCCL's IB
  // transport, or an IB plugin such as HPC-X's "IBext_v8"); another (Socket) is a finding, as is a
  // rail NCCL does not list (health/nccl_transport.h). Empty: recorded, not judged.
  std::string network;
  bool has_floor() const { return !node_busbw_GBps.empty() || !rail_busbw_GBps.empty() || !domain_busbw_GBps.empty(); }
};

struct GpuLimits {
  Limit copy_bw_GBps;                     // gpu.cuda.copy_bw (host<->device)
  Limit mem_bw_GBps;                      // gpu.cuda.mem_bw (device memory)
  std::optional<double> temp_degraded_C;  // NVML temperature at or above: degraded (unset: not judged)
  std::optional<double> temp_failed_C;    // at or above: failed
  bool require_persistence_mode = false;  // persistence mode off is degraded when set
  // NVLink, per GPU (unset: not judged against the profile; a GPU with some links down still is).
  std::optional<int> nvlink_links;          // links each GPU has: fewer, or none up, is failed
  std::optional<double> nvlink_speed_MBps;  // each link up runs at this speed: a slower one is degraded
  // The GPUs register with an NVLink fabric (NVL72 trays): a GPU not registered, or registered with
  // an error or an unhealthy fabric, is failed; limited capacity is degraded; no answer is unknown.
  bool nvlink_fabric = false;
  // IMEX (NVL72 trays; probes/imex.h): the channel0 device as the driver registers it (without it,
  // CUDA's fabric memory calls fail: failed); the nvidia-imex daemon running with a node list
  // (failed where not: a site that starts IMEX per job, from its prolog, leaves this false).
  bool imex_channel = false;
  bool imex_service = false;
  // NVLink error counters since the driver loaded or they were reset, per GPU over its links up: at
  // or above, degraded (unset: recorded, not judged; a count since boot says nothing of the last
  // hour unless the counters are reset, e.g. at boot or in a prolog).
  std::optional<int> nvlink_recoveries_degraded;
  std::optional<int> nvlink_errors_degraded;
};

// Rules relative to the fleet: each measurement against the run's own good
// quartile of the same measurement (probe id, message size, shape, metric),
// with a limit the run's measured noise may widen (health/fleet.h). They catch
// a link below its peers but above the floors, and never flag a uniformly
// slower cluster.
struct FleetRules {
  bool enabled = true;
  double bw_fraction = 0.85;        // bandwidth under this fraction of the reference is an outlier
  double bw_fraction_widest = 0.5;  // ... however noisy the run: the noise widens the limit to this at most
  // A bandwidth under this fraction of the reference is failed, not degraded: however deep a
  // shortfall from its peers, a node without an absolute floor would otherwise be admitted
  // (a host at a fifth of its peers). 0: no failed level. Below bw_fraction_widest, so no
  // run's noise reaches it.
  double bw_fraction_failed = 0.4;
  double lat_multiple = 2.0;  // latency over this multiple of the reference is an outlier
  int min_fleet_size = 3;     // fewer first-pass measurements of a kind: no fleet rule (the
                              // fewest in which one host's pairs can be told from the others')
};

// How sure a finding from measurements must be to drain a node (health/confidence.h).
struct ConfidenceRules {
  // A failed finding on weak evidence (noise alone reads that far out once in 20 runs or more)
  // fails its entity only when true; otherwise it is degraded: admitted, flagged, not drained.
  bool drain_weak = false;
  // One measurement's noise (a sigma in log space: 0.05 is 5%) where the run has too few
  // measurements of a kind to show its own (eight or more do).
  double default_noise = 0.05;
};

// How a burn-in folds its rounds (health/burn_in.h): an entity not healthy in
// some rounds and healthy in others is flaky; a figure that falls steadily over
// the run beyond its own noise drifts.
struct BurnInRules {
  HealthState flaky_state = HealthState::failed;  // a link that collapsed for 40 s of 120 is not fit for a pool
  int flaky_min_rounds = 2;                       // degraded rounds that make it flaky (one failed round does)
  // A bandwidth that dropped in one round only (drop_fraction): seen once.
  HealthState seen_once_state = HealthState::degraded;
  // A round's bandwidth under this fraction of its other rounds' is a drop (seen once, or flaky in
  // flaky_min_rounds): a fifth. On this project's loaded test hosts a clean link read 0.6 of its
  // other rounds at worst, and 0.34 beside a host at a twentieth in the same round.
  double drop_fraction = 0.2;
  HealthState drift_state = HealthState::degraded;
  double drift_fraction = 0.10;  // the least fall over the run (a tenth of its figure) that is a drift
  int drift_min_rounds = 8;      // fewer rounds with the figure: no trend is judged
};

// What `check --history DIR` decides from a node's earlier checks (health/history.h). A check is
// bad when its state is degraded or failed, clean when healthy; unknown checks are not counted.
inline constexpr int kHistoryMaxWindow = 100;  // the store keeps twice as many checks of a node
struct HistoryRules {
  int window = 6;  // the node's last judged checks looked at, this one included
  // Bad in this many of them, in two spells or more: not admitted (HISTORY_FLAPPING), however this
  // check went. One spell (bad check after bad check until a repair) is no flap.
  int flapping_bad = 3;
  // A bad check after at least this many clean ones, with none bad in the window, whose findings are
  // all measurements between hosts (a pair or an all-reduce), is admitted degraded with a watch
  // (HISTORY_TRANSIENT). 0: never.
  int transient_clean = 2;
  double lemon_days = 7;  // bad again within this many days of coming back from a drain: a lemon. 0: off
};

struct Profile {
  std::string name = "generic";
  std::string description = "no hardware expectations: checks what is present, unknown for what cannot run";
  std::string source = "built-in";  // the file it came from
  NodeExpectations node = {};
  CounterLimits counters = {};
  NetworkLimits network = {};
  AllReduceLimits allreduce = {};
  GpuLimits gpu = {};
  FleetRules fleet = {};
  ConfidenceRules confidence = {};
  BurnInRules burn_in = {};
  HistoryRules history = {};
};

Profile generic_profile();
// The generic profile with every size counting (no minimum message size for bandwidth or the
// all-reduce): for comparing runs and keeping baselines, which serve whatever sizes were measured.
Profile every_size_profile();
nlohmann::json to_json(const Profile& profile);

}  // namespace ibgpu
