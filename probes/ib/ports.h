#pragma once
// RDMA devices and ports as the kernel shows them under
// <sysfs-root>/class/infiniband/<dev>/ports/<n>/.
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "probes/sysfs.h"

namespace ibgpu {

// Every RDMA device under the root's class/infiniband; empty when there is none.
std::vector<Hca> read_hcas(const Sysfs& sysfs);
// Why read_hcas found nothing: "no RDMA device under <root>/class/infiniband".
std::string no_rdma_device_text(const Sysfs& sysfs);
IbPort read_port(const Sysfs& sysfs, const std::string& device, int port);

}  // namespace ibgpu
