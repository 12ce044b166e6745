#pragma once
// GPU-to-HCA affinity from the PCI tree in sysfs: for each GPU the nearest
// RDMA device (same PCIe switch > same NUMA node > other), so the network
// probes can put each GPU's traffic on its own rail.
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "probes/sysfs.h"

namespace ibgpu {

// Where a PCI function sits: its host bridge ("pci0000:15") and the chain of
// functions from the root port down to itself, as /sys/devices shows them.
struct PciPlace {
  std::string address;            // 0000:17:00.0
  std::string host_bridge;        // pci0000:15
  std::vector<std::string> path;  // 0000:15:01.0, 0000:16:00.0, 0000:17:00.0
  std::optional<int> numa_node;
};

// "00000000:17:00.0" (NVML) or "0000:17:00.0" -> "0000:17:00.0", lower case.
std::string normalize_pci_address(const std::string& address);

// Resolves the symlink `rel` (e.g. bus/pci/devices/0000:17:00.0 or
// class/infiniband/mlx5_0/device) to its place; nullopt when it is not a PCI device.
std::optional<PciPlace> read_pci_place(const Sysfs& sysfs, const std::string& rel);

// Pure: same_switch when both hang below a common bridge (they share the root
// port), same_numa when their NUMA nodes are known and equal, else other.
PciProximity pci_proximity(const PciPlace& a, const PciPlace& b);

// For each GPU (in index order) the nearest HCA; ties go to the longer shared
// PCI path, then to an HCA no earlier GPU took, then to the first in natural
// order. Without PCIe switches (a GB200 tray: each device on a root port of
// its own) a NUMA node's two GPUs then get its two HCAs, not both the first.
std::vector<GpuHcaAffinity> gpu_hca_affinity(const Sysfs& sysfs, const std::vector<GpuInfo>& gpus,
                                             const std::vector<Hca>& hcas);

// The GPUs the PCI bus shows, as the affinity takes them when NVML lists none:
// indexed in bus order (NVML's order too), named by their PCI address.
std::vector<GpuInfo> gpus_on_the_bus(const std::vector<PciGpu>& pci_gpus);

// The HCA a GPU's traffic should use ("" when unknown): for rail selection.
std::string nearest_hca(const std::vector<GpuHcaAffinity>& topology, int gpu);

// Sets each HCA's `rail`: where some GPU was placed (in any of `placements`:
// NVML's GPUs, the PCI bus's), the HCAs a GPU is nearest to; where none was,
// every HCA. A GPU NVML lost but the bus still shows keeps its rail a rail.
void mark_rails(std::vector<Hca>& hcas, const std::vector<std::vector<GpuHcaAffinity>>& placements);

// The visible GPUs, as positions in `count` GPUs in bus order: CUDA_VISIBLE_DEVICES
// when it lists indices ("2,3"), else all (also for UUIDs, which need the driver).
std::vector<int> visible_gpus(int count, const char* cuda_visible_devices);

// The rail plan of a host's `local_ranks` ranks: rank r drives visible GPU r
// (wrapping when there are more ranks than GPUs) and uses the first active
// port of that GPU's nearest HCA. The compute HCAs are those some GPU is
// nearest to: a storage or in-band HCA, nearest to no GPU, is never a rail.
// Two GPUs that share an HCA, and a GPU with no HCA near it (other than the
// same switch or NUMA node), carry a note. Empty without GPUs.
std::vector<RailAssignment> rail_plan(const std::vector<GpuHcaAffinity>& topology, const std::vector<Hca>& hcas,
                                      int local_ranks, const char* cuda_visible_devices);

// The plan from sysfs alone (GPUs from the PCI bus, no driver needed), as
// each rank computes its own rail.
std::vector<RailAssignment> read_rail_plan(const Sysfs& sysfs, int local_ranks, const char* cuda_visible_devices);

}  // namespace ibgpu
