#pragma once
// The probe catalogue: every kind of result ibgpu makes, in one table, with
// what judging and rendering need to know of it. A result names its kind by
// id (ProbeResult::kind()); nothing else reads meaning into an id's text.
// Where a kind's probe can run is the probes' own answer: probes/catalogue.h.
#include <span>
#include <string_view>

namespace ibgpu {

// Every metric name a probe writes, spelled once: the catalogue lists them per kind (kCatalogue),
// the probes write them, the judge and the reports read them (a port counter's
// "<counter>_delta" and "<counter>_per_hour" are built from the counter's sysfs name).
namespace metrics {
inline constexpr char gpu_count[] = "gpu_count";
inline constexpr char hca_count[] = "hca_count";
inline constexpr char port_count[] = "port_count";
inline constexpr char active_port_count[] = "active_port_count";
inline constexpr char ecc_enabled[] = "ecc_enabled";
inline constexpr char ecc_uncorrected_volatile[] = "ecc_uncorrected_volatile";
inline constexpr char ecc_uncorrected_aggregate[] = "ecc_uncorrected_aggregate";
inline constexpr char retired_pages_dbe[] = "retired_pages_dbe";
inline constexpr char retired_pages_sbe[] = "retired_pages_sbe";
inline constexpr char retired_pages_pending[] = "retired_pages_pending";
inline constexpr char remapped_rows_correctable[] = "remapped_rows_correctable";
inline constexpr char remapped_rows_uncorrectable[] = "remapped_rows_uncorrectable";
inline constexpr char remap_pending[] = "remap_pending";
inline constexpr char remap_failed[] = "remap_failed";
inline constexpr char temp_C[] = "temp_C";
inline constexpr char clocks_event_reasons[] = "clocks_event_reasons";
inline constexpr char thermal_slowdown[] = "thermal_slowdown";
inline constexpr char power_slowdown[] = "power_slowdown";
inline constexpr char pstate[] = "pstate";
inline constexpr char pcie_gen[] = "pcie_gen";
inline constexpr char pcie_gen_max[] = "pcie_gen_max";
inline constexpr char pcie_width[] = "pcie_width";
inline constexpr char pcie_width_max[] = "pcie_width_max";
inline constexpr char nvlink_links[] = "nvlink_links";
inline constexpr char nvlink_links_up[] = "nvlink_links_up";
inline constexpr char nvlink_speed_MBps_min[] = "nvlink_speed_MBps_min";
inline constexpr char nvlink_recoveries[] = "nvlink_recoveries";
inline constexpr char nvlink_errors[] = "nvlink_errors";
inline constexpr char fabric_registered[] = "fabric_registered";
inline constexpr char fabric_health[] = "fabric_health";
inline constexpr char persistence_mode[] = "persistence_mode";
inline constexpr char h2d_GBps[] = "h2d_GBps";
inline constexpr char d2h_GBps[] = "d2h_GBps";
inline constexpr char mem_bw_GBps[] = "mem_bw_GBps";
inline constexpr char checked[] = "checked";
inline constexpr char wrong[] = "wrong";
// net.verbs.rail_bytes: the bytes a pair probe moved, and what its own port counted of them.
inline constexpr char payload_bytes[] = "payload_bytes";
inline constexpr char port_bytes[] = "port_bytes";
inline constexpr char port_share[] = "port_share";
inline constexpr char time_s[] = "time_s";
inline constexpr char lines[] = "lines";
inline constexpr char xid_events[] = "xid_events";
inline constexpr char link_down_events[] = "link_down_events";
inline constexpr char xid_hardware_events[] = "xid_hardware_events";
inline constexpr char xid_last[] = "xid_last";
// node.imex: 1 where the IMEX channel0 device is as the driver registers it, 1 where the daemon runs;
// the addresses in its nodes_config.cfg.
inline constexpr char imex_channel0[] = "imex_channel0";
inline constexpr char imex_daemon[] = "imex_daemon";
inline constexpr char imex_nodes[] = "imex_nodes";
// collective.nccl.transport: what NCCL's own log says a rank's communicator used.
inline constexpr char nccl_nodes[] = "nccl_nodes";
inline constexpr char nccl_net_devices[] = "nccl_net_devices";
inline constexpr char nccl_net_channels[] = "nccl_net_channels";
inline constexpr char nccl_gdr_channels[] = "nccl_gdr_channels";
inline constexpr char nccl_mnnvl[] = "nccl_mnnvl";
inline constexpr char nccl_nvls[] = "nccl_nvls";
inline constexpr char bw_avg_GBps[] = "bw_avg_GBps";
inline constexpr char bw_avg_Gbps[] = "bw_avg_Gbps";
inline constexpr char bw_peak_GBps[] = "bw_peak_GBps";
inline constexpr char msg_rate_Mpps[] = "msg_rate_Mpps";
inline constexpr char lat_us[] = "lat_us";
// The judged parts of a latency's summary (health/thresholds.cpp): its median and its tail.
inline constexpr char lat_us_p50[] = "lat_us.p50";
inline constexpr char lat_us_p99[] = "lat_us.p99";
inline constexpr char time_us[] = "time_us";
inline constexpr char time_us_min[] = "time_us_min";
inline constexpr char time_us_avg[] = "time_us_avg";
inline constexpr char time_us_max[] = "time_us_max";
inline constexpr char slowest_rank[] = "slowest_rank";
inline constexpr char algbw_GBps[] = "algbw_GBps";
inline constexpr char busbw_GBps[] = "busbw_GBps";
inline constexpr char wrong_elements[] = "wrong_elements";
inline constexpr char wrong_elements_total[] = "wrong_elements_total";
inline constexpr char wrong_ranks[] = "wrong_ranks";
}  // namespace metrics

// The values of metrics::fabric_health: NVML's NVLink fabric health summary, as NVML numbers it.
enum class FabricHealth { healthy = 1, unhealthy = 2, limited_capacity = 3 };

// The ids, for the code that makes the results.
inline constexpr const char* kInventoryGpuProbe = "inventory.gpu";
inline constexpr const char* kInventoryRdmaProbe = "inventory.rdma";
inline constexpr const char* kGpuHealthProbe = "gpu.nvml.health";
inline constexpr const char* kGpuCopyBwProbe = "gpu.cuda.copy_bw";
inline constexpr const char* kGpuMemBwProbe = "gpu.cuda.mem_bw";
inline constexpr const char* kGpuComputeProbe = "gpu.cuda.compute";
inline constexpr const char* kPortCountersProbe = "ib.port.counters";
inline constexpr const char* kKernelLogProbe = "node.kernel_log";
inline constexpr const char* kKernelLogXidProbe = "node.kernel_log.xid";  // one per GPU with XIDs
inline constexpr const char* kImexProbe = "node.imex";
inline constexpr const char* kKernelLogLinkProbe = "node.kernel_log.link";  // one per device with link drops
inline constexpr const char* kMpiBwProbe = "net.mpi.bw";
inline constexpr const char* kMpiLatProbe = "net.mpi.lat";
inline constexpr const char* kWriteBwId = "net.verbs.write_bw";
inline constexpr const char* kWriteLatId = "net.verbs.write_lat";
inline constexpr const char* kSendLatId = "net.verbs.send_lat";
// The control of a verbs pair that ended in an error: its port writing to itself (probes/net/verbs/loopback.h).
inline constexpr const char* kVerbsLoopbackProbe = "net.verbs.loopback";
// Each end of a verbs bandwidth pair: the bytes its own port counted against the bytes the probe
// moved (probes/ib/traffic.h). A rail whose bytes left through another port is masked.
inline constexpr const char* kRailBytesProbe = "net.verbs.rail_bytes";
inline constexpr const char* kNetPairsProbe = "net.pairs";  // the pair step as a whole (why it did not run)
inline constexpr const char* kNcclAllReduceProbe = "collective.nccl.all_reduce";
inline constexpr const char* kMpiAllReduceProbe = "collective.mpi.all_reduce";
inline constexpr const char* kNcclTransportProbe = "collective.nccl.transport";  // one per rank and group
inline constexpr const char* kGatherProbe = "cluster.gather";                    // a rank rank 0 could not hear from
inline constexpr const char* kRankProbe = "cluster.rank";                        // a rank that could not run its part

// When in a check a kind runs, and so which part of the judge reads it.
enum class ProbeStage {
  inventory,   // what the host has (its absence is judged against the profile's expectations)
  local,       // the node's own hardware, judged by health/local_health
  network,     // between two hosts
  collective,  // across a group of ranks
  run,         // the run itself: lost ranks, steps not run
};

// What one result speaks for.
enum class ProbeSubject { node, gpu, hca_port, link, group, run };

// Which kind of number a result is judged by, if any.
enum class Quantity { none, bandwidth, latency, health };

enum class Transport { none, verbs, mpi, nccl, cuda, sysfs, nvml, kernel_log };

struct ProbeKind {
  std::string_view id;
  ProbeStage stage;
  ProbeSubject subject;
  Quantity quantity;
  Transport transport;
  std::span<const std::string_view> metrics;  // the names it records ("<counter>_delta": one per counter)
  std::string_view description;

  bool pair() const { return stage == ProbeStage::network && subject == ProbeSubject::link; }
  bool all_reduce() const { return stage == ProbeStage::collective && subject == ProbeSubject::group; }
};

// Every kind, in the order a check runs them.
std::span<const ProbeKind> probe_catalogue();

// The kind of that id. A report from another build may hold ids this one does
// not know: they get the traits of their family (the id's first part: "gpu.",
// "ib.port.", "node.", "net.", "collective.") with no judged number, so their
// status is still judged where a known sibling's would be.
const ProbeKind& probe_kind(std::string_view id);

const char* to_string(ProbeStage stage);
const char* to_string(ProbeSubject subject);
const char* to_string(Quantity quantity);
const char* to_string(Transport transport);

}  // namespace ibgpu
