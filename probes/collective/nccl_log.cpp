#include "probes/collective/nccl_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/probe_kind.h"
#include "core/text.h"

namespace ibgpu {

namespace {

// The number after `key` in `line` ("nNodes 2" -> 2).
std::optional<int> number_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  int value = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

// "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ..." -> mlx5_0:1, mlx5_1:1; the merged
// form " [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB}" -> each port of the group.
std::vector<std::string> ib_devices(std::string_view list) {
  std::vector<std::string> out;
  list = list.substr(0, list.find(';'));
  std::size_t i = 0;
  while ((i = list.find(']', i)) != std::string_view::npos) {
    ++i;
    while (i < list.size() && (list[i] == ' ' || list[i] == '=' || list[i] == '{')) ++i;
    if (i < list.size() && list[i] == '[') continue;  // "[0]={[0] mlx5_0:1/IB": the group's first port next
    const auto end = list.find_first_of("/ ,}", i);
    const std::string_view name = list.substr(i, end == std::string_view::npos ? end : end - i);
    if (name.find(':') != std::string_view::npos && name != "RO") out.emplace_back(name);
  }
  return out;
}

// "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]ib0:192.168.0.1<0>" -> eth0, ib0.
std::vector<std::string> socket_interfaces(std::string_view list) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while ((i = list.find(']', i)) != std::string_view::npos) {
    ++i;
    const auto colon = list.find(':', i);
    if (colon == std::string_view::npos) break;
    out.emplace_back(list.substr(i, colon - i));
  }
  return out;
}

// "via NET/IB/0/GDRDMA" -> NET/IB (and GDR); "via P2P/IPC/read" -> P2P/IPC; "via P2P/direct pointer"
// -> P2P/direct pointer; "via SHM/direct/direct" -> SHM.
void count_channel(NcclTransportLog& log, std::string_view via) {
  via = trim(via);
  const auto first = via.find('/');
  if (first == std::string_view::npos) return;
  const std::string_view kind = via.substr(0, first);
  std::string_view rest = via.substr(first + 1);
  std::string key(kind);
  if (kind != "SHM") {
    const auto next = rest.find('/');
    key += "/" + std::string(rest.substr(0, next));
  }
  ++log.channels[key];
  if (kind == "NET") {
    ++log.net_channels;
    if (via.find("/GDRDMA") != std::string_view::npos) ++log.gdr_channels;
  }
}

void parse_line(NcclTransportLog& log, std::string_view line) {
  constexpr std::string_view kWarn = "NCCL WARN ";
  if (const auto warn = line.find(kWarn); warn != std::string_view::npos) {
    auto& w = log.warnings;
    w.emplace_back(trim(line.substr(warn + kWarn.size())).substr(0, NcclTransportLog::kMaxWarningChars));
    if (w.size() > NcclTransportLog::kMaxWarnings) w.erase(w.begin());
    return;
  }
  constexpr std::string_view kInfo = "NCCL INFO ";
  const auto at = line.find(kInfo);
  if (at == std::string_view::npos) return;
  line = trim(line.substr(at + kInfo.size()));
  ++log.lines;
  if (line.starts_with("Using network ")) {
    log.network = std::string(trim(line.substr(14)));
  } else if (line.starts_with("NET/IB : Using")) {
    log.net_devices = ib_devices(line.substr(14));
  } else if (line.starts_with("NET/IB : No device found")) {
    log.net_devices.clear();
  } else if (line.starts_with("NET/Socket : Using")) {
    log.net_devices = socket_interfaces(line.substr(18));
  } else if (line.starts_with("Channel ")) {
    if (const auto via = line.find(" via "); via != std::string_view::npos) count_channel(log, line.substr(via + 5));
  } else if (line.find("comm ") != std::string_view::npos && line.find(" nNodes ") != std::string_view::npos) {
    log.nodes = number_after(line, " nNodes ");
    if (const auto mnnvl = number_after(line, " MNNVL ")) log.mnnvl = *mnnvl != 0;
  } else if (line.starts_with("NVLS multicast support is ")) {
    log.nvls = !line.substr(26).starts_with("not ");
  }
}

}  // namespace

NcclTransportLog parse_nccl_log(std::string_view text) {
  NcclTransportLog log;
  for_each_line(text, [&](std::string_view line) {
    parse_line(log, line);
    return false;
  });
  return log;
}

void attach_nccl_warnings(ProbeResult& r, const NcclTransportLog& log) {
  if (log.warnings.empty() || (r.status != ProbeStatus::error && r.status != ProbeStatus::timeout)) return;
  r.params["nccl_warnings"] = log.warnings;
  r.error = r.error.value_or(to_string(r.status)) + " (NCCL warned: " + log.warnings.back() + ")";
}

NcclLogCapture::NcclLogCapture() {
  for (const char* name : {"NCCL_DEBUG", "NCCL_DEBUG_FILE"})
    if (const char* set = std::getenv(name)) {
      why_off_ = std::string(name) + "=" + set + " set by the caller: NCCL's log is the caller's, not read";
      return;
    }
  const std::string dir = std::filesystem::temp_directory_path().string();
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
    std::string name = dir + "/ibgpu-nccl-XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(name.c_str());
  }
  if (fd_ < 0) {
    why_off_ = "no file for NCCL's log in " + dir + ": " + std::strerror(errno);
    return;
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
  ::setenv("NCCL_DEBUG", "INFO", 1);
  ::setenv("NCCL_DEBUG_SUBSYS", "INIT,NET", 1);
  ::setenv("NCCL_DEBUG_FILE", path_.c_str(), 1);
  environment_set_ = true;
}

NcclLogCapture::~NcclLogCapture() {
  give_back_environment();
  if (fd_ >= 0) ::close(fd_);
}

void NcclLogCapture::give_back_environment() {
  if (!environment_set_) return;
  for (const char* name : {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"}) ::unsetenv(name);
  environment_set_ = false;
}

NcclTransportLog NcclLogCapture::take() {
  std::string text;
  char buf[65536];
  ssize_t n = 0;
  while (fd_ >= 0 && text.size() < kMaxRead &&
         (n = ::pread(fd_, buf, sizeof buf, static_cast<off_t>(offset_ + text.size()))) > 0)
    text.append(buf, static_cast<std::size_t>(n));
  if (!text.empty()) give_back_environment();  // NCCL has read them: it wrote
  // Up to the last whole line: NCCL may be writing the next one.
  const auto last = text.rfind('\n');
  text.resize(last == std::string::npos ? 0 : last + 1);
  offset_ += text.size();
  NcclTransportLog log = parse_nccl_log(text);
  // NCCL lists its network devices once a process: a later communicator's log lacks them.
  if (!log.net_devices.empty()) {
    devices_ = log.net_devices;
    network_devices_of_ = log.network;
  } else if (!devices_.empty() && (log.network.empty() || log.network == network_devices_of_)) {
    log.net_devices = devices_;
  }
  return log;
}

ProbeResult nccl_transport_result(const std::string& host, int rank, const std::string& device,
                                  const NcclTransportLog& log) {
  ProbeResult r;
  r.id = kNcclTransportProbe;
  r.scope = Scope{{host}, {rank}, device.empty() ? std::vector<std::string>{} : std::vector<std::string>{device}};
  if (!log.network.empty()) r.params["network"] = log.network;
  r.params["net_devices"] = log.net_devices;
  r.params["channels"] = log.channels;
  auto flag = [](const std::optional<bool>& b) { return b ? Metric::of(*b ? 1.0 : 0.0) : Metric::missing(); };
  r.metrics[metrics::nccl_nodes] = log.nodes ? Metric::of(*log.nodes) : Metric::missing();
  r.metrics[metrics::nccl_net_devices] = Metric::of(static_cast<double>(log.net_devices.size()));
  r.metrics[metrics::nccl_net_channels] = Metric::of(log.net_channels);
  r.metrics[metrics::nccl_gdr_channels] = Metric::of(log.gdr_channels);
  r.metrics[metrics::nccl_mnnvl] = flag(log.mnnvl);
  r.metrics[metrics::nccl_nvls] = flag(log.nvls);
  return r;
}

}  // namespace ibgpu
