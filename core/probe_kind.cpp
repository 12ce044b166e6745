#include "core/probe_kind.h"

#include <array>

namespace ibgpu {

namespace {

constexpr std::string_view kInventoryGpuMetrics[]{"gpu_count"};
constexpr std::string_view kInventoryRdmaMetrics[]{"hca_count", "port_count", "active_port_count"};
constexpr std::string_view kGpuHealthMetrics[]{"ecc_enabled",
                                               "ecc_uncorrected_volatile",
                                               "ecc_uncorrected_aggregate",
                                               "retired_pages_dbe",
                                               "retired_pages_sbe",
                                               "retired_pages_pending",
                                               "remapped_rows_correctable",
                                               "remapped_rows_uncorrectable",
                                               "remap_pending",
                                               "remap_failed",
                                               "temp_C",
                                               "clocks_event_reasons",
                                               "thermal_slowdown",
                                               "power_slowdown",
                                               "pstate",
                                               "pcie_gen",
                                               "pcie_gen_max",
                                               "pcie_width",
                                               "pcie_width_max",
                                               "nvlink_links",
                                               "nvlink_links_up",
                                               "persistence_mode"};
constexpr std::string_view kCopyMetrics[]{"h2d_GBps", "d2h_GBps"};
constexpr std::string_view kMemBwMetrics[]{"mem_bw_GBps"};
constexpr std::string_view kComputeMetrics[]{"checked", "wrong", "time_s"};
constexpr std::string_view kCounterMetrics[]{"<counter>_delta", "<counter>_per_hour"};
constexpr std::string_view kKernelLogMetrics[]{"lines", "xid_events", "link_down_events"};
constexpr std::string_view kXidMetrics[]{"xid_events", "xid_hardware_events", "xid_last"};
constexpr std::string_view kLinkDropMetrics[]{"link_down_events"};
constexpr std::string_view kBwMetrics[]{"bw_avg_GBps", "bw_avg_Gbps", "bw_peak_GBps", "msg_rate_Mpps"};
constexpr std::string_view kLatMetrics[]{"lat_us"};
constexpr std::string_view kAllReduceMetrics[]{
    "time_us",    "time_us_min", "time_us_avg",    "time_us_max",          "slowest_rank",
    "algbw_GBps", "busbw_GBps",  "wrong_elements", "wrong_elements_total", "wrong_ranks"};
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
    ProbeKind{kNetPairsProbe, S::network, P::run, Q::none, T::none, kNone,
              "the pairwise network step as a whole, when it could not run"},
    ProbeKind{kWriteBwId, S::network, P::link, Q::bandwidth, T::verbs, kBwMetrics,
              "RDMA write bandwidth between two hosts, rail to rail (perftest's ib_write_bw method)"},
    ProbeKind{kWriteLatId, S::network, P::link, Q::latency, T::verbs, kLatMetrics,
              "RDMA write ping-pong latency between two hosts (perftest's ib_write_lat method)"},
    ProbeKind{kSendLatId, S::network, P::link, Q::latency, T::verbs, kLatMetrics,
              "RDMA send/receive ping-pong latency between two hosts"},
    ProbeKind{kMpiBwProbe, S::network, P::link, Q::bandwidth, T::mpi, kBwMetrics,
              "MPI point-to-point bandwidth between two hosts (a window of non-blocking sends, OSU's method)"},
    ProbeKind{kMpiLatProbe, S::network, P::link, Q::latency, T::mpi, kLatMetrics,
              "MPI ping-pong latency between two hosts"},
    ProbeKind{kNcclAllReduceProbe, S::collective, P::group, Q::bandwidth, T::nccl, kAllReduceMetrics,
              "NCCL sum all-reduce over a group of GPUs: nccl-tests' algbw/busbw and a bit-exact check"},
    ProbeKind{kMpiAllReduceProbe, S::collective, P::group, Q::bandwidth, T::mpi, kAllReduceMetrics,
              "MPI sum all-reduce of host memory over a group of ranks: algbw/busbw and a bit-exact check"},
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
