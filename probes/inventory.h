#pragma once
// Collects what a host has (core/inventory.h): GPUs, RDMA devices and ports, CPUs, library versions.
#include <map>
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

// Pieces, exposed for tests.
CpuInfo read_cpu_info(const Sysfs& sysfs);
int count_cpu_list(const std::string& list);  // "0-3,8-11" -> 8
std::map<std::string, std::string> behaviour_env(const char* const* environ_block);
std::string decode_nccl_version(int code);  // 22803 -> "2.28.3"

}  // namespace ibgpu
