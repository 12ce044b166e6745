#include "reports/prometheus_names.h"

#include "core/probe_kind.h"
#include "core/text.h"

namespace ibgpu {

namespace {

struct Row {
  std::string_view key, name;
  double times = 1, per = 1;
  std::string_view help;
};

// Counts and flags keep their names (a gauge named for what it counts, no `_count`); figures in
// decimal multiples become base units. bw_avg_Gbps is bw_avg_GBps in bits: the bytes are exposed.
constexpr Row kRows[] = {
    {metrics::gpu_count, "gpus", 1, 1, "GPUs the host has, as NVML lists them."},
    {metrics::hca_count, "hcas", 1, 1, "RDMA devices (HCAs) the host has."},
    {metrics::port_count, "ports", 1, 1, "RDMA ports the host has."},
    {metrics::active_port_count, "active_ports", 1, 1, "RDMA ports in state ACTIVE."},
    {metrics::ecc_enabled, "ecc_enabled", 1, 1, "1 when ECC is enabled on the GPU."},
    {metrics::ecc_uncorrected_volatile, "ecc_uncorrected_volatile", 1, 1,
     "Uncorrectable ECC errors since the driver loaded."},
    {metrics::ecc_uncorrected_aggregate, "ecc_uncorrected_aggregate", 1, 1,
     "Uncorrectable ECC errors over the GPU's life."},
    {metrics::retired_pages_dbe, "retired_pages_dbe", 1, 1, "Pages retired for double-bit errors."},
    {metrics::retired_pages_sbe, "retired_pages_sbe", 1, 1, "Pages retired for single-bit errors."},
    {metrics::retired_pages_pending, "retired_pages_pending", 1, 1, "1 when a page retirement waits for a reset."},
    {metrics::remapped_rows_correctable, "remapped_rows_correctable", 1, 1, "Rows remapped for correctable errors."},
    {metrics::remapped_rows_uncorrectable, "remapped_rows_uncorrectable", 1, 1,
     "Rows remapped for uncorrectable errors."},
    {metrics::remap_pending, "remap_pending", 1, 1, "1 when a row remap waits for a reset."},
    {metrics::remap_failed, "remap_failed", 1, 1, "1 when a row remap failed."},
    {metrics::temp_C, "temperature_celsius", 1, 1, "GPU temperature."},
    {metrics::clocks_event_reasons, "clocks_event_reasons", 1, 1, "NVML clock event reasons, as a bit mask."},
    {metrics::thermal_slowdown, "thermal_slowdown", 1, 1, "1 when the GPU clocks are held back by temperature."},
    {metrics::power_slowdown, "power_slowdown", 1, 1, "1 when the GPU clocks are held back by power."},
    {metrics::pstate, "pstate", 1, 1, "GPU performance state (0 is the fastest)."},
    {metrics::pcie_gen, "pcie_gen", 1, 1, "PCIe generation the GPU link runs at."},
    {metrics::pcie_gen_max, "pcie_gen_max", 1, 1, "PCIe generation the GPU link can run at."},
    {metrics::pcie_width, "pcie_width", 1, 1, "PCIe lanes the GPU link runs with."},
    {metrics::pcie_width_max, "pcie_width_max", 1, 1, "PCIe lanes the GPU link can run with."},
    {metrics::nvlink_links, "nvlink_links", 1, 1, "NVLink links the GPU has."},
    {metrics::nvlink_links_up, "nvlink_links_up", 1, 1, "NVLink links up."},
    {metrics::nvlink_speed_MBps_min, "nvlink_min_speed_bytes_per_second", 1e6, 1,
     "Speed of the GPU's slowest NVLink up, as NVML reports it."},
    {metrics::nvlink_recoveries, "nvlink_recoveries", 1, 1,
     "NVLink link recoveries (a link that retrained) over the links up, since the driver loaded or the "
     "counters were reset."},
    {metrics::nvlink_errors, "nvlink_errors", 1, 1,
     "NVLink errors over the links up since the driver loaded or the counters were reset: replays and CRC "
     "errors up to Hopper, packets received with errors from NVLink 5."},
    {metrics::fabric_registered, "nvlink_fabric_registered", 1, 1,
     "1 when the GPU registered with the NVLink fabric without error, 0 when not (yet)."},
    {metrics::fabric_health, "nvlink_fabric_health", 1, 1,
     "NVML's NVLink fabric health summary: 1 healthy, 2 unhealthy, 3 limited capacity."},
    {metrics::persistence_mode, "persistence_mode", 1, 1, "1 when persistence mode is on."},
    {metrics::h2d_GBps, "host_to_device_bandwidth_bytes_per_second", 1e9, 1, "Host to device copy bandwidth."},
    {metrics::d2h_GBps, "device_to_host_bandwidth_bytes_per_second", 1e9, 1, "Device to host copy bandwidth."},
    {metrics::mem_bw_GBps, "memory_bandwidth_bytes_per_second", 1e9, 1,
     "GPU memory bandwidth measured by a copy kernel."},
    {metrics::checked, "checked", 1, 1, "Elements the compute check verified."},
    {metrics::wrong, "wrong", 1, 1, "Elements the compute check found wrong."},
    {metrics::time_s, "time_seconds", 1, 1, "Time the compute check took."},
    {metrics::payload_bytes, "rail_payload_bytes", 1, 1, "Bytes a verbs bandwidth pair wrote (warmup included)."},
    {metrics::port_bytes, "rail_port_bytes", 1, 1,
     "Bytes the pair's own port counted meanwhile: sent by the writer, received by the reader."},
    {metrics::port_share, "rail_port_share", 1, 1,
     "The own port's bytes over the bytes written: below 1 when the rail's bytes left through another port."},
    {metrics::lines, "kernel_log_lines", 1, 1, "Kernel log lines read."},
    {metrics::xid_events, "xid_events", 1, 1, "GPU XID events in the kernel log."},
    {metrics::link_down_events, "link_down_events", 1, 1, "Link down events in the kernel log."},
    {metrics::xid_hardware_events, "xid_hardware_events", 1, 1, "XID events that point at the hardware."},
    {metrics::xid_last, "xid_last", 1, 1, "The last XID code seen."},
    {metrics::imex_channel0, "imex_channel0", 1, 1,
     "1 when /dev/nvidia-caps-imex-channels/channel0 is the device the driver registers, 0 when not."},
    {metrics::imex_daemon, "imex_daemon", 1, 1, "1 when an nvidia-imex process runs."},
    {metrics::imex_nodes, "imex_nodes", 1, 1, "Addresses in the IMEX daemon's node list (nodes_config.cfg)."},
    {metrics::nccl_nodes, "nccl_nodes", 1, 1, "Nodes NCCL counted in the rank's communicator (its nNodes)."},
    {metrics::nccl_net_devices, "nccl_net_devices", 1, 1,
     "Network devices NCCL listed for the rank's process: IB ports, or socket interfaces."},
    {metrics::nccl_net_channels, "nccl_net_channels", 1, 1, "The rank's NCCL connections over the network."},
    {metrics::nccl_gdr_channels, "nccl_gdrdma_channels", 1, 1,
     "The rank's NCCL network connections with GPUDirect RDMA."},
    {metrics::nccl_mnnvl, "nccl_mnnvl", 1, 1, "1 when NCCL used multi-node NVLink for the rank's communicator."},
    {metrics::nccl_nvls, "nccl_nvls", 1, 1, "1 when NCCL found NVLink SHARP (NVLS multicast) on the rank's GPU."},
    {metrics::bw_avg_GBps, "bandwidth_bytes_per_second", 1e9, 1,
     "Bandwidth between two hosts, averaged over the measurement."},
    {metrics::bw_avg_Gbps, "", 1, 1, ""},
    {metrics::bw_peak_GBps, "peak_bandwidth_bytes_per_second", 1e9, 1, "Peak bandwidth between two hosts."},
    {metrics::msg_rate_Mpps, "messages_per_second", 1e6, 1, "Messages per second between two hosts."},
    {metrics::lat_us, "latency_seconds", 1, 1e6, "Latency between two hosts."},
    {metrics::time_us, "time_seconds", 1, 1e6, "All-reduce time on this rank."},
    {metrics::time_us_min, "time_min_seconds", 1, 1e6, "All-reduce time, fastest rank."},
    {metrics::time_us_avg, "time_avg_seconds", 1, 1e6, "All-reduce time, mean over the ranks."},
    {metrics::time_us_max, "time_max_seconds", 1, 1e6, "All-reduce time, slowest rank."},
    {metrics::slowest_rank, "slowest_rank", 1, 1, "The rank the all-reduce waited on most."},
    {metrics::algbw_GBps, "algorithm_bandwidth_bytes_per_second", 1e9, 1,
     "All-reduce algorithm bandwidth (bytes / time), as nccl-tests reports it."},
    {metrics::busbw_GBps, "bus_bandwidth_bytes_per_second", 1e9, 1,
     "All-reduce bus bandwidth, as nccl-tests reports it."},
    {metrics::wrong_elements, "wrong_elements", 1, 1, "Elements of the all-reduce result found wrong on this rank."},
    {metrics::wrong_elements_total, "wrong_elements_all_ranks", 1, 1,
     "Elements of the all-reduce result found wrong, all ranks together."},
    {metrics::wrong_ranks, "wrong_ranks", 1, 1, "Ranks with a wrong all-reduce result."},
};

}  // namespace

std::optional<ExposedMetric> exposed_metric(std::string_view key) {
  for (const Row& row : kRows)
    if (row.key == key) return ExposedMetric{std::string(row.name), row.times, row.per, std::string(row.help)};
  // A port counter's, named in probes/ib/counters.cpp from the counter's sysfs name.
  constexpr std::string_view kDelta = "_delta", kPerHour = "_per_hour";
  if (key.ends_with(kDelta) && key.size() > kDelta.size())
    return ExposedMetric{
        lower(key), 1, 1,
        "Increase of the port counter " + std::string(key.substr(0, key.size() - kDelta.size())) + " during the run."};
  if (key.ends_with(kPerHour) && key.size() > kPerHour.size())
    return ExposedMetric{
        lower(key.substr(0, key.size() - kPerHour.size())) + "_per_second", 1, 3600,
        "Rate of the port counter " + std::string(key.substr(0, key.size() - kPerHour.size())) + " during the run."};
  return std::nullopt;
}

}  // namespace ibgpu
