#include "core/probe_kind.h"

#include <array>

namespace ibgpu {

namespace {

constexpr std::string_view kInventoryGpuMetrics[]{metrics::gpu_count};
constexpr std::string_view kInventoryRdmaMetrics[]{metrics::hca_count, metrics::port_count, metrics::active_port_count};
constexpr std::string_view kGpuHealthMetrics[]{metrics::ecc_enabled,
                                               metrics::ecc_uncorrected_volatile,
                                               metrics::ecc_uncorrected_aggregate,
                                               metrics::retired_pages_dbe,
                                               metrics::retired_pages_sbe,
                                               metrics::retired_pages_pending,
                                               metrics::remapped_rows_correctable,
                                               metrics::remapped_rows_uncorrectable,
                                               metrics::remap_pending,
                                               metrics::remap_failed,
                                               metrics::temp_C,
                                               metrics::clocks_event_reasons,
                                               metrics::thermal_slowdown,
                                               metrics::power_slowdown,
                                               metrics::pstate,
                                               metrics::pcie_gen,
                                               metrics::pcie_gen_max,
                                               metrics::pcie_width,
                                               metrics::pcie_width_max,
                                               metrics::nvlink_links,
                                               metrics::nvlink_links_up,
                                               metrics::nvlink_speed_MBps_min,
                                               metrics::nvlink_recoveries,
                                               metrics::nvlink_errors,
                                               metrics::fabric_registered,
                                               metrics::fabric_health,
                                               metrics::persistence_mode};
constexpr std::string_view kCopyMetrics[]{metrics::h2d_GBps, metrics::d2h_GBps};
constexpr std::string_view kMemBwMetrics[]{metrics::mem_bw_GBps};
constexpr std::string_view kComputeMetrics[]{metrics::checked, metrics::wrong, metrics::time_s};
constexpr std::string_view kLoopbackMetrics[]{metrics::checked, metrics::wrong};
constexpr std::string_view kRailBytesMetrics[]{metrics::payload_bytes, metrics::port_bytes, metrics::port_share};
constexpr std::string_view kCounterMetrics[]{"<counter>_delta", "<counter>_per_hour"};
constexpr std::string_view kKernelLogMetrics[]{metrics::lines, metrics::xid_events, metrics::link_down_events};
constexpr std::string_view kXidMetrics[]{metrics::xid_events, metrics::xid_hardware_events, metrics::xid_last};
constexpr std::string_view kLinkDropMetrics[]{metrics::link_down_events};
constexpr std::string_view kImexMetrics[]{metrics::imex_channel0, metrics::imex_daemon, metrics::imex_nodes};
constexpr std::string_view kNcclTransportMetrics[]{metrics::nccl_nodes,        metrics::nccl_net_devices,
                                                   metrics::nccl_net_channels, metrics::nccl_gdr_channels,
                                                   metrics::nccl_mnnvl,        metrics::nccl_nvls};
constexpr std::string_view kBwMetrics[]{metrics::bw_avg_GBps, metrics::bw_avg_Gbps, metrics::bw_peak_GBps,
                                        metrics::msg_rate_Mpps};
constexpr std::string_view kLatMetrics[]{metrics::lat_us};
constexpr std::string_view kAllReduceMetrics[]{
    metrics::time_us,     metrics::time_us_min,    metrics::time_us_avg,
    metrics::time_us_max, metrics::slowest_rank,   metrics::algbw_GBps,
    metrics::busbw_GBps,  metrics::wrong_elements, metrics::wrong_elements_total,
    metrics::wrong_ranks};
constexpr std::span<const std::string_view> kNone{};

using S = ProbeStage;
using P = ProbeSubject;
using Q = Quantity;
using T = Transport;

constexpr std::array kCatalogue{
    ProbeKind{kInventoryGpuProbe, S::inventory, P::node, Q::none, T::nvml, kInventoryGpuMetrics,
              "the GPUs NVML lists on the host"},
    ProbeKind{kInventoryRdmaProbe, S::inventory, P::node, Q::none, T::sysfs, kInventoryRdmaMetrics,
              "the RDMA devices and ports in sysfs"},
    ProbeKind{kGpuHealthProbe, S::local, P::gpu, Q::health, T::nvml, kGpuHealthMetrics,
              "per GPU: ECC, retired pages, remapped rows, temperature, clock events, PCIe link, NVLink, persistence"},
    ProbeKind{kGpuCopyBwProbe, S::local, P::gpu, Q::bandwidth, T::cuda, kCopyMetrics,
              "per GPU: host<->device copy bandwidth from pinned memory"},
    ProbeKind{kGpuMemBwProbe, S::local, P::gpu, Q::bandwidth, T::cuda, kMemBwMetrics,
              "per GPU: device memory bandwidth with a copy kernel"},
    ProbeKind{kGpuComputeProbe, S::local, P::gpu, Q::none, T::cuda, kComputeMetrics,
              "per GPU: an integer computation checked element by element"},
    ProbeKind{kPortCountersProbe, S::local, P::hca_port, Q::health, T::sysfs, kCounterMetrics,
              "per RDMA port: error counters before and after the network probes, as deltas and hourly rates"},
    ProbeKind{kKernelLogProbe, S::local, P::node, Q::none, T::kernel_log, kKernelLogMetrics,
              "GPU XIDs and RDMA link drops in the kernel log since boot"},
    // The two below name a PCI address or an RDMA device, not a GPU or a port:
    // local health finds the GPU or the ports they speak for.
    ProbeKind{kKernelLogXidProbe, S::local, P::node, Q::health, T::kernel_log, kXidMetrics,
              "per GPU (by PCI address): its XIDs in the kernel log"},
    ProbeKind{kKernelLogLinkProbe, S::local, P::node, Q::health, T::kernel_log, kLinkDropMetrics,
              "per RDMA device: its link drops in the kernel log"},
    ProbeKind{kImexProbe, S::local, P::node, Q::health, T::none, kImexMetrics,
              "IMEX on an NVL72 tray: the channel0 device, the nvidia-imex daemon and its node list"},
    ProbeKind{kNetPairsProbe, S::network, P::run, Q::none, T::none, kNone,
              "the pairwise network step as a whole, when it could not run"},
    ProbeKind{kWriteBwId, S::network, P::link, Q::bandwidth, T::verbs, kBwMetrics,
              "RDMA write bandwidth between two hosts, rail to rail (perftest's ib_write_bw method)"},
    ProbeKind{kWriteLatId, S::network, P::link, Q::latency, T::verbs, kLatMetrics,
              "RDMA write ping-pong latency between two hosts (perftest's ib_write_lat method)"},
    ProbeKind{kSendLatId, S::network, P::link, Q::latency, T::verbs, kLatMetrics,
              "RDMA send/receive ping-pong latency between two hosts"},
    ProbeKind{kVerbsLoopbackProbe, S::local, P::hca_port, Q::none, T::verbs, kLoopbackMetrics,
              "per RDMA port, after a verbs pair on it ended in an error: the port writing to itself, the control "
              "that tells the port's fault from the link's, the path's or ibgpu's"},
    ProbeKind{kRailBytesProbe, S::local, P::hca_port, Q::health, T::verbs, kRailBytesMetrics,
              "per RDMA port and verbs bandwidth pair: the bytes its own port counted (sent by the writer, received "
              "by the reader) against the bytes the probe moved, and what the host's other ports counted meanwhile: "
              "a rail whose bytes left through another port is masked, whatever bandwidth it read"},
    ProbeKind{kMpiBwProbe, S::network, P::link, Q::bandwidth, T::mpi, kBwMetrics,
              "MPI point-to-point bandwidth between two hosts (a window of non-blocking sends, OSU's method)"},
    ProbeKind{kMpiLatProbe, S::network, P::link, Q::latency, T::mpi, kLatMetrics,
              "MPI ping-pong latency between two hosts"},
    ProbeKind{kNcclAllReduceProbe, S::collective, P::group, Q::bandwidth, T::nccl, kAllReduceMetrics,
              "NCCL sum all-reduce over a group of GPUs: nccl-tests' algbw/busbw and a bit-exact check"},
    ProbeKind{kMpiAllReduceProbe, S::collective, P::group, Q::bandwidth, T::mpi, kAllReduceMetrics,
              "MPI sum all-reduce of host memory over a group of ranks: algbw/busbw and a bit-exact check"},
    ProbeKind{kNcclTransportProbe, S::collective, P::node, Q::health, T::nccl, kNcclTransportMetrics,
              "per rank and all-reduce group across hosts: the network, devices and channels NCCL's own log says it "
              "used"},
    ProbeKind{kGatherProbe, S::run, P::run, Q::none, T::mpi, kNone,
              "a rank whose results did not reach rank 0 in time"},
    ProbeKind{kRankProbe, S::run, P::run, Q::none, T::none, kNone, "a rank that could not run its part"},
};

// Kinds for ids this build does not know, by family.
constexpr ProbeKind kForeignGpu{"gpu.", S::local, P::gpu, Q::none, T::none, kNone, "a GPU check of another build"};
constexpr ProbeKind kForeignPort{
    "ib.port.", S::local, P::hca_port, Q::none, T::none, kNone, "a port check of another build"};
constexpr ProbeKind kForeignNode{"node.", S::local, P::node, Q::none, T::none, kNone, "a node check of another build"};
constexpr ProbeKind kForeignPair{
    "net.", S::network, P::link, Q::none, T::none, kNone, "a network probe of another build"};
constexpr ProbeKind kForeignCollective{
    "collective.", S::collective, P::group, Q::none, T::none, kNone, "a collective of another build"};
constexpr ProbeKind kForeign{"", S::run, P::run, Q::none, T::none, kNone, "a result of another build"};

}  // namespace

std::span<const ProbeKind> probe_catalogue() { return kCatalogue; }

const ProbeKind& probe_kind(std::string_view id) {
  for (const auto& kind : kCatalogue)
    if (kind.id == id) return kind;
  for (const ProbeKind* family : {&kForeignGpu, &kForeignPort, &kForeignNode, &kForeignPair, &kForeignCollective})
    if (id.starts_with(family->id)) return *family;
  return kForeign;
}

const char* to_string(ProbeStage stage) {
  switch (stage) {
    case ProbeStage::inventory:
      return "inventory";
    case ProbeStage::local:
      return "local";
    case ProbeStage::network:
      return "network";
    case ProbeStage::collective:
      return "collective";
    case ProbeStage::run:
      return "run";
  }
  return "run";
}

const char* to_string(ProbeSubject subject) {
  switch (subject) {
    case ProbeSubject::node:
      return "node";
    case ProbeSubject::gpu:
      return "gpu";
    case ProbeSubject::hca_port:
      return "hca_port";
    case ProbeSubject::link:
      return "link";
    case ProbeSubject::group:
      return "group";
    case ProbeSubject::run:
      return "run";
  }
  return "run";
}

const char* to_string(Quantity quantity) {
  switch (quantity) {
    case Quantity::none:
      return "none";
    case Quantity::bandwidth:
      return "bandwidth";
    case Quantity::latency:
      return "latency";
    case Quantity::health:
      return "health";
  }
  return "none";
}

const char* to_string(Transport transport) {
  switch (transport) {
    case Transport::none:
      return "none";
    case Transport::verbs:
      return "verbs";
    case Transport::mpi:
      return "mpi";
    case Transport::nccl:
      return "nccl";
    case Transport::cuda:
      return "cuda";
    case Transport::sysfs:
      return "sysfs";
    case Transport::nvml:
      return "nvml";
    case Transport::kernel_log:
      return "kernel_log";
  }
  return "none";
}

}  // namespace ibgpu
