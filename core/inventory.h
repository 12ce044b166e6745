#pragma once
// What a host has, as data: GPUs, RDMA devices and ports, the GPU-HCA
// affinity, CPUs, library versions. The probes that read them live in
// probes/ (gpu/nvml.h, ib/ports.h, topology.h, inventory.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

// A PCIe link as the kernel reports it (current_link_speed, ..._width,
// max_link_speed, ..._width); a value is nullopt where the file is missing or
// says "Unknown". A link trained below its maximum is slower than it should be.
struct PciLink {
  std::optional<double> speed_GTps, max_speed_GTps;  // 32.0 GT/s is Gen5, 16.0 Gen4
  std::optional<int> width, max_width;               // lanes: 16
  bool narrower() const { return width && max_width && *width < *max_width; }
  bool slower() const { return speed_GTps && max_speed_GTps && *speed_GTps < *max_speed_GTps; }
};

// An NVIDIA GPU as the PCI bus shows it (vendor 0x10de, display or 3D
// controller), found without any driver: what NVML must list too.
struct PciGpu {
  std::string pci_address;  // 0000:1b:00.0
  std::string device_id;    // 0x2330 (H100 SXM5)
  std::optional<int> numa_node;
  PciLink link;
};

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;  // 00000000:17:00.0 as NVML prints it
  std::optional<double> memory_total_GiB;
  std::string serial;  // the board's serial number (NVML; empty where it has none, e.g. a GeForce)
};

// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}.
struct CodedState {
  int code = 0;
  std::string name;
};

// "400 Gb/sec (4X NDR)" -> {400, 4, "NDR"}; "10 Gb/sec (1X QDR)"; "100 Gb/sec (2X HDR)".
struct LinkRate {
  double gbps = 0;
  std::optional<int> lanes;
  std::string speed;  // NDR, HDR, EDR, ... empty when the kernel prints none
};

// The kernel's text of a port's state and rate (sysfs), read by the probes and again from a saved
// report's rate_text; nullopt for text not in that shape.
// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}.
std::optional<CodedState> parse_coded_state(const std::string& text);
// "400 Gb/sec (4X NDR)" -> {400, 4, "NDR"}; "10 Gb/sec (1X QDR)"; "100 Gb/sec (2X HDR)".
std::optional<LinkRate> parse_rate(const std::string& text);

struct IbPort {
  int port = 0;
  std::optional<CodedState> state;       // 4: ACTIVE
  std::optional<CodedState> phys_state;  // 5: LinkUp
  std::string rate_text;                 // as the kernel wrote it
  std::optional<LinkRate> rate;
  std::string link_layer;  // InfiniBand | Ethernet
  std::optional<std::string> lid;
  std::map<std::string, std::uint64_t> counters;  // counters/<name>

  bool active() const { return state && state->code == 4; }
};

struct Hca {
  std::string name;  // mlx5_0
  std::string node_guid;
  std::string fw_ver;
  std::string board_id;
  std::string hca_type;
  std::string pci_address;  // 0000:17:00.0, from the `device` link
  std::optional<int> numa_node;
  PciLink link;  // the HCA's PCIe link
  std::vector<IbPort> ports;
  // Carries GPU traffic: some GPU on the PCI bus is nearest to it (a compute
  // HCA); a storage or in-band HCA, nearest to no GPU, is not a rail. On a
  // host where no GPU was placed every HCA is one (probes/topology.h mark_rails).
  bool rail = true;
};

enum class PciProximity { same_switch = 0, same_numa = 1, other = 2 };  // nearest first
const char* to_string(PciProximity p);
std::optional<PciProximity> pci_proximity_from_string(const std::string& text);

struct GpuHcaAffinity {
  int gpu = 0;  // NVML index
  std::string gpu_pci;
  std::optional<int> gpu_numa_node;
  std::string hca;  // nearest RDMA device, "" when none could be placed
  std::string hca_pci;
  std::optional<PciProximity> proximity;  // nullopt when the GPU or every HCA could not be placed
};

// One rank's rail (the rail plan): the GPU it drives (its local rank among the
// visible GPUs) and that GPU's nearest compute HCA port, named the same way on
// every host of a kind, so pairs meet rail to rail.
struct RailAssignment {
  int local_rank = 0;
  std::string gpu_pci;  // 0000:1b:00.0
  std::string port;     // mlx5_0:1; "" when no compute HCA could be placed near the GPU
  std::optional<PciProximity> proximity;
  std::string note;  // "shares mlx5_0:1 with local rank 1", "no HCA near the GPU"; "" when fine
};

struct CpuInfo {
  std::string model;
  int logical_cpus = 0;
  int numa_nodes = 0;
};

struct HostInventory {
  std::string name;
  std::vector<int> ranks;        // filled in when results are gathered
  std::vector<GpuInfo> gpus;     // as NVML lists them
  std::vector<PciGpu> pci_gpus;  // as the PCI bus shows them, driver or not
  std::vector<Hca> hcas;
  std::vector<GpuHcaAffinity> topology;  // nearest HCA per GPU
  std::vector<RailAssignment> rails;     // the rail plan, by local rank; empty on a host without GPUs
  CpuInfo cpu;
  std::map<std::string, std::string> versions;  // rdma_core, openmpi, nccl, nvidia_driver, kernel, ...
  std::map<std::string, std::string> env;       // only NCCL_*, UCX_*, OMPI_MCA_*: never the whole environment
  std::string leaf;  // the leaf switch --topology places it under; empty without one, or when it places it nowhere
  // What each of its ranks was given to use, by rank: CUDA_VISIBLE_DEVICES where it was set (filled
  // in when results are gathered, like ranks).
  std::map<int, std::string> cuda_visible_devices = {};
};

// "gpu3" for NVML index 3: how GPUs are named in scopes, entity ids and the admission's lists;
// and the index such a name carries (nullopt for any other text).
std::string gpu_name(int index);
std::optional<int> gpu_index(std::string_view name);
// "mlx5_0:1": how ports are named in scopes and entity ids (after "host/").
std::string port_name(const Hca& hca, const IbPort& port);

// The parts of a host the pool admits or excludes one by one: its GPUs ("gpu3", as NVML lists
// them) and the ports of its rail HCAs ("mlx5_0:1").
struct AdmittedParts {
  std::vector<std::string> gpus, rails;
};
AdmittedParts admitted_parts(const HostInventory& host);

}  // namespace ibgpu
