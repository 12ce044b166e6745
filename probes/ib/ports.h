#pragma once
// RDMA devices and ports as the kernel shows them under
// <sysfs-root>/class/infiniband/<dev>/ports/<n>/.
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "probes/sysfs.h"

namespace ibgpu {

// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}.
std::optional<CodedState> parse_coded_state(const std::string& text);

// "400 Gb/sec (4X NDR)" -> {400, 4, "NDR"}; "10 Gb/sec (1X QDR)"; "100 Gb/sec (2X HDR)".
std::optional<LinkRate> parse_rate(const std::string& text);

// Every RDMA device under the root's class/infiniband; empty when there is none.
std::vector<Hca> read_hcas(const Sysfs& sysfs);
// Why read_hcas found nothing: "no RDMA device under <root>/class/infiniband".
std::string no_rdma_device_text(const Sysfs& sysfs);
IbPort read_port(const Sysfs& sysfs, const std::string& device, int port);

}  // namespace ibgpu
