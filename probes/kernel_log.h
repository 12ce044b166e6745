#pragma once
// The `node.kernel_log` probe: GPU XID errors ("NVRM: Xid") and RDMA link
// drops in the kernel log since boot, read from /dev/kmsg when it is readable.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ibgpu {

struct XidEvent {
  std::string pci;  // "0000:17:00" as NVRM prints it (no function number)
  int xid = 0;
  std::string line;
};

struct LinkDownEvent {
  std::string device;  // PCI address "0000:17:00.0", else the RDMA device name "mlx5_0"
  std::string line;
};

struct KernelLogFindings {
  std::vector<XidEvent> xids;
  std::vector<LinkDownEvent> link_downs;
  std::size_t lines = 0;
};

// Pure. Takes `dmesg` text ("[  12.345] message") or /dev/kmsg records
// ("6,1234,5678,-;message"); continuation lines (" KEY=value") are ignored.
KernelLogFindings parse_kernel_log(std::string_view text);

// XIDs that point at the hardware (memory, bus, NVLink, GSP) rather than at
// an application: 48 DBE, 61/62 internal, 63/64 row remap, 74 NVLink,
// 79 fallen off the bus, 92 high SBE rate, 94/95 contained/uncontained ECC,
// 119/120 GSP, 140 unrecovered ECC.
bool is_hardware_xid(int xid);

// Pure: the summary result plus one result per GPU with XIDs and per device with link drops.
std::vector<ProbeResult> kernel_log_results(const std::string& host, const KernelLogFindings& findings,
                                            const std::string& source);

// Reads /dev/kmsg without blocking; one `skipped` result with the reason when
// it cannot be read (e.g. dmesg_restrict without CAP_SYSLOG).
inline constexpr const char* kKmsgPath = "/dev/kmsg";
std::vector<ProbeResult> check_kernel_log(const std::string& host, const std::string& kmsg_path = kKmsgPath);

}  // namespace ibgpu
