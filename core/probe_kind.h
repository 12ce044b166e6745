#pragma once
// The probe catalogue: every kind of result ibgpu makes, in one table, with
// what judging and rendering need to know of it. A result names its kind by
// id (ProbeResult::kind()); nothing else reads meaning into an id's text.
// Where a kind's probe can run is the probes' own answer: probes/catalogue.h.
#include <span>
#include <string_view>

namespace ibgpu {

// The ids, for the code that makes the results.
inline constexpr const char* kInventoryGpuProbe = "inventory.gpu";
inline constexpr const char* kInventoryRdmaProbe = "inventory.rdma";
inline constexpr const char* kGpuHealthProbe = "gpu.nvml.health";
inline constexpr const char* kGpuCopyBwProbe = "gpu.cuda.copy_bw";
inline constexpr const char* kGpuMemBwProbe = "gpu.cuda.mem_bw";
inline constexpr const char* kGpuComputeProbe = "gpu.cuda.compute";
inline constexpr const char* kPortCountersProbe = "ib.port.counters";
inline constexpr const char* kKernelLogProbe = "node.kernel_log";
inline constexpr const char* kKernelLogXidProbe = "node.kernel_log.xid";    // one per GPU with XIDs
inline constexpr const char* kKernelLogLinkProbe = "node.kernel_log.link";  // one per device with link drops
inline constexpr const char* kMpiBwProbe = "net.mpi.bw";
inline constexpr const char* kMpiLatProbe = "net.mpi.lat";
inline constexpr const char* kWriteBwId = "net.verbs.write_bw";
inline constexpr const char* kWriteLatId = "net.verbs.write_lat";
inline constexpr const char* kSendLatId = "net.verbs.send_lat";
inline constexpr const char* kNetPairsProbe = "net.pairs";  // the pair step as a whole (why it did not run)
inline constexpr const char* kNcclAllReduceProbe = "collective.nccl.all_reduce";
inline constexpr const char* kMpiAllReduceProbe = "collective.mpi.all_reduce";
inline constexpr const char* kGatherProbe = "cluster.gather";  // a rank rank 0 could not hear from
inline constexpr const char* kRankProbe = "cluster.rank";      // a rank that could not run its part

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
  bool all_reduce() const { return stage == ProbeStage::collective; }
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
