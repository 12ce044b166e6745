#pragma once
// What a host has: GPUs, RDMA devices and ports, CPUs, library versions.
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/gpu/nvml.h"
#include "probes/ib/ports.h"
#include "probes/sysfs.h"
#include "probes/topology.h"

namespace ibgpu {

struct CpuInfo {
  std::string model;
  int logical_cpus = 0;
  int numa_nodes = 0;
};

struct HostInventory {
  std::string name;
  std::vector<int> ranks;  // filled in when results are gathered
  std::vector<GpuInfo> gpus;
  std::vector<Hca> hcas;
  std::vector<GpuHcaAffinity> topology;  // nearest HCA per GPU
  CpuInfo cpu;
  std::map<std::string, std::string> versions;  // rdma_core, openmpi, nccl, nvidia_driver, kernel, ...
  std::map<std::string, std::string> env;       // only NCCL_*, UCX_*, OMPI_MCA_*: never the whole environment
};

struct InventoryOutcome {
  HostInventory host;
  std::vector<ProbeResult> probes;  // inventory.gpu and inventory.rdma, with reasons when skipped
};

InventoryOutcome collect_inventory(const Sysfs& sysfs, const std::string& host_name);

// Pieces, exposed for tests.
CpuInfo read_cpu_info(const Sysfs& sysfs);
int count_cpu_list(const std::string& list);  // "0-3,8-11" -> 8
std::map<std::string, std::string> behaviour_env(const char* const* environ_block);
std::string decode_nccl_version(int code);  // 22803 -> "2.28.3"

}  // namespace ibgpu
