#include "probes/imex.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "core/probe_kind.h"
#include "core/text.h"
#include "probes/sysfs.h"

namespace ibgpu {

namespace {

std::string channel0_problem(const std::filesystem::path& path, int major, std::optional<unsigned>& mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return "no " + path.string() + " (created by hand, e.g. mknod, and gone after a reboot)";
  mode = st.st_mode & 07777u;
  if (!S_ISCHR(st.st_mode)) return path.string() + " is not a character device";
  const int found_major = static_cast<int>(major(st.st_rdev)), found_minor = static_cast<int>(minor(st.st_rdev));
  if (found_major != major || found_minor != 0)
    return path.string() + " is device " + std::to_string(found_major) + ":" + std::to_string(found_minor) +
           ", where the driver's IMEX channel 0 is " + std::to_string(major) +
           ":0 (made before the driver was reloaded?)";
  return {};
}

// The first process named nvidia-imex, from /proc/<pid>/comm.
std::optional<long> find_daemon(const Sysfs& files) {
  for (const std::string& entry : files.list("proc")) {
    long pid = 0;
    const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), pid);
    if (ec != std::errc{} || end != entry.data() + entry.size()) continue;
    if (files.read("proc/" + entry + "/comm") == kImexDaemon) return pid;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> character_device_major(std::string_view proc_devices, std::string_view name) {
  // "Character devices:" comes first, then "Block devices:"; a line is "<major> <name>".
  std::optional<int> found;
  bool character = false;
  for_each_line(proc_devices, [&](std::string_view line) {
    if (line.ends_with(':')) {
      character = line == "Character devices:";
      return false;
    }
    const auto space = line.find(' ');
    if (!character || space == std::string_view::npos || trim(line.substr(space)) != name) return false;
    int major = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + space, major);
    if (ec == std::errc{} && end == line.data() + space) found = major;
    return found.has_value();
  });
  return found;
}

int count_imex_nodes(std::string_view nodes_config) {
  int count = 0;
  for_each_line(nodes_config, [&](std::string_view line) {
    if (!line.empty() && !line.starts_with('#')) ++count;
    return false;
  });
  return count;
}

ImexState read_imex(const std::filesystem::path& root) {
  const Sysfs files(root);  // bounded reads of files under a root: /proc's among them
  ImexState state;
  if (const auto devices = files.read("proc/devices"))
    state.channel_major = character_device_major(*devices, kImexChannelDevice);
  if (!state.channel_major) return state;
  state.channel0_problem = channel0_problem(files.path(kImexChannel0), *state.channel_major, state.channel0_mode);
  state.daemon_pid = find_daemon(files);
  if (const auto config = files.read(kImexNodesConfig)) state.nodes_configured = count_imex_nodes(*config);
  return state;
}

ProbeResult imex_result(const std::string& host, const ImexState& state) {
  Scope scope{{host}, {}, {}};
  if (!state.channel_major)
    return skipped(kImexProbe, std::move(scope),
                   std::string("the NVIDIA driver registers no IMEX channel device (no ") + kImexChannelDevice +
                       " in /proc/devices): no IMEX on this node");
  ProbeResult r;
  r.id = kImexProbe;
  r.scope = std::move(scope);
  r.metrics[metrics::imex_channel0] = Metric::of(state.channel0_problem.empty() ? 1.0 : 0.0);
  r.metrics[metrics::imex_daemon] = Metric::of(state.daemon_pid ? 1.0 : 0.0);
  r.metrics[metrics::imex_nodes] =
      state.nodes_configured ? Metric::of(static_cast<double>(*state.nodes_configured)) : Metric::missing();
  r.params["channel_major"] = *state.channel_major;
  if (!state.channel0_problem.empty()) r.params["channel0_problem"] = state.channel0_problem;
  if (state.channel0_mode) {
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", *state.channel0_mode);
    r.params["channel0_mode"] = octal;
  }
  if (state.daemon_pid) r.params["daemon_pid"] = *state.daemon_pid;
  r.params["not_read"] =
      "the IMEX daemon's own state (peers connected, quorum): nvidia-imex-ctl's, over its command port";
  return r;
}

std::vector<ProbeResult> check_imex(const std::string& host, const std::filesystem::path& root) {
  return {imex_result(host, read_imex(root))};
}

}  // namespace ibgpu
