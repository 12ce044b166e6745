#pragma once
// The `node.imex` probe: what a job on an NVL72 tray needs of IMEX, the service that lets GPUs of
// different trays map each other's memory over NVLink, read as a job could read it itself (no
// privilege, no daemon call):
//  - the IMEX channel device the driver registers (`nvidia-caps-imex-channels` in /proc/devices),
//    and the default channel, /dev/nvidia-caps-imex-channels/channel0, a character device of that
//    major number and minor 0. NVIDIA's IMEX guide has the administrator create it (mknod); it is
//    gone after a reboot, and without it CUDA's fabric memory calls fail with a permission error;
//  - the IMEX daemon: a process named nvidia-imex, and the node list it starts from
//    (/etc/nvidia-imex/nodes_config.cfg, one address a line).
// The daemon's own state (its peers connected, its quorum) is answered by nvidia-imex-ctl over the
// daemon's command port, which a site may leave closed: not read here, and the result says so.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ibgpu {

inline constexpr const char* kImexChannelDevice = "nvidia-caps-imex-channels";
inline constexpr const char* kImexChannel0 = "dev/nvidia-caps-imex-channels/channel0";  // under the root
inline constexpr const char* kImexNodesConfig = "etc/nvidia-imex/nodes_config.cfg";
inline constexpr const char* kImexDaemon = "nvidia-imex";

// What was read; every path under the root ("/" on a node, a saved tree in tests).
struct ImexState {
  std::optional<int> channel_major;       // from /proc/devices; none: the driver registers no IMEX channels
  std::string channel0_problem;           // empty: channel0 is the device it should be; else what is wrong
  std::optional<unsigned> channel0_mode;  // its permission bits, where it exists
  std::optional<long> daemon_pid;         // the first nvidia-imex process; none: not running
  std::optional<int> nodes_configured;    // addresses in nodes_config.cfg; none: no such file
};

// Pure: the major number /proc/devices gives the named character device, if it lists one.
std::optional<int> character_device_major(std::string_view proc_devices, std::string_view name);

// Pure: the addresses of an IMEX nodes_config.cfg (lines neither empty nor comments).
int count_imex_nodes(std::string_view nodes_config);

ImexState read_imex(const std::filesystem::path& root);

// Pure: the result. `skipped` (by the node) where the driver registers no IMEX channel device;
// else metrics imex_channel0, imex_daemon (1 or 0) and imex_nodes (missing without the file), and
// params saying what was read and what was not.
ProbeResult imex_result(const std::string& host, const ImexState& state);

std::vector<ProbeResult> check_imex(const std::string& host, const std::filesystem::path& root = "/");

}  // namespace ibgpu
