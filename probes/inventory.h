#pragma once
// Collects what a host has (core/inventory.h): GPUs, RDMA devices and ports, CPUs, library versions.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "probes/sysfs.h"

namespace ibgpu {

struct InventoryOutcome {
  HostInventory host;
  std::vector<ProbeResult> probes;  // inventory.gpu and inventory.rdma, with reasons when skipped
};

// `local_ranks` and `cuda_visible_devices` shape the rail plan (host.rails):
// the ranks on this host and the GPUs they may use.
InventoryOutcome collect_inventory(const Sysfs& sysfs, const std::string& host_name, int local_ranks = 1,
                                   const char* cuda_visible_devices = nullptr);

// The RDMA devices of this host and their port numbers, as the kernel lists them under
// class/infiniband of the sysfs root and of /sys (which ibverbs reads); nullopt when neither
// has that class (no RDMA stack: nothing can be said about a device's absence).
using RdmaPorts = std::map<std::string, std::vector<int>>;
std::optional<RdmaPorts> list_rdma_ports(const Sysfs& sysfs);
// Empty, or why one of `specs` ("mlx5_0:1", "mlx5_0" for port 1) names a device or a port that
// `ports` lacks, naming what the host has: "--hca nosuch:1: no such RDMA device on host h1
// (it has mlx5_0, mlx5_1)".
std::string missing_hca(const std::vector<std::string>& specs, const RdmaPorts& ports, const std::string& host);
// missing_hca for this host's devices; empty when none are given or the devices cannot be listed.
std::string hca_preflight(const std::vector<std::string>& specs, const Sysfs& sysfs, const std::string& host);

// Pieces, exposed for tests.
CpuInfo read_cpu_info(const Sysfs& sysfs);
int count_cpu_list(const std::string& list);  // "0-3,8-11" -> 8
std::map<std::string, std::string> behaviour_env(const char* const* environ_block);
std::string decode_nccl_version(int code);  // 22803 -> "2.28.3"

}  // namespace ibgpu
