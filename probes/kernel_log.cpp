#include "probes/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <regex>

namespace ibgpu {

namespace {

// A /dev/kmsg record: "priority,sequence,microseconds,flags[,...];message".
constexpr std::size_t kMaxLine = 4096;
const std::regex kKmsgPrefix(R"(^\d+,\d+,\d+,[^;]*;)");
// NVRM: Xid (PCI:0000:17:00): 79, pid=..., GPU has fallen off the bus.
const std::regex kXid(R"(NVRM: Xid \(PCI:([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\): (\d+))");
const std::regex kPciAddress(R"(\b([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b)");
const std::regex kRdmaDevice(R"(\b(mlx[0-9]_[0-9]+)\b)");
// mlx5_core 0000:17:00.0 ens1np0: Link down
// mlx5_core 0000:17:00.0: mlx5_0: Port 1 link state changed to DOWN
// infiniband mlx5_0: Port 1 ... down
const std::regex kLinkDown(R"((\bLink down\b)|(link state changed.*\bDOWN\b)|(\bPort \d+\b.*\bdown\b))",
                           std::regex::icase);
const std::regex kRdmaContext(R"(mlx[0-9]|infiniband|\bib[0-9]|rdma)", std::regex::icase);

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void parse_line(const std::string& raw, KernelLogFindings& out) {
  // A kernel log record is at most about 1 KiB; std::regex recurses per character, so a longer
  // line (a corrupt or hostile log) is not searched at all.
  if (raw.size() > kMaxLine) return;
  std::string line = raw;
  std::smatch m;
  if (std::regex_search(line, m, kKmsgPrefix)) line = m.suffix().str();
  if (std::regex_search(line, m, kXid)) {
    std::string pci = lower(m[1].str());
    if (pci.size() > 10) pci = pci.substr(pci.size() - 10);  // 8-digit domain -> 4
    // The number as written; one that does not fit an int is no XID the driver logs.
    int xid = 0;
    const std::string digits = m[2].str();
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), xid);
    if (ec == std::errc{} && ptr == digits.data() + digits.size()) out.xids.push_back(XidEvent{pci, xid, line});
    return;
  }
  if (!std::regex_search(line, kRdmaContext) || !std::regex_search(line, kLinkDown)) return;
  std::string device;
  if (std::regex_search(line, m, kPciAddress)) {
    device = lower(m[1].str());
  } else if (std::regex_search(line, m, kRdmaDevice)) {
    device = m[1].str();
  }
  out.link_downs.push_back(LinkDownEvent{device, line});
}

}  // namespace

KernelLogFindings parse_kernel_log(std::string_view text) {
  KernelLogFindings out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    // Continuation lines of a kmsg record carry its dictionary (" SUBSYSTEM=pci").
    if (line.empty() || line.front() == ' ') continue;
    ++out.lines;
    parse_line(std::string(line), out);
  }
  return out;
}

bool is_hardware_xid(int xid) {
  static constexpr std::array<int, 13> hardware{48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140};
  return std::find(hardware.begin(), hardware.end(), xid) != hardware.end();
}

std::vector<ProbeResult> kernel_log_results(const std::string& host, const KernelLogFindings& findings,
                                            const std::string& source) {
  std::vector<ProbeResult> out;
  ProbeResult summary;
  summary.id = kKernelLogProbe;
  summary.scope = Scope{{host}, {}, {}};
  summary.params = {{"source", source}};
  summary.metrics[metrics::lines] = Metric::of(static_cast<double>(findings.lines));
  summary.metrics[metrics::xid_events] = Metric::of(static_cast<double>(findings.xids.size()));
  summary.metrics[metrics::link_down_events] = Metric::of(static_cast<double>(findings.link_downs.size()));
  out.push_back(std::move(summary));

  std::map<std::string, std::vector<const XidEvent*>> by_gpu;
  for (const auto& x : findings.xids) by_gpu[x.pci].push_back(&x);
  for (const auto& [pci, events] : by_gpu) {
    ProbeResult r;
    r.id = kKernelLogXidProbe;
    r.scope = Scope{{host}, {}, {pci}};
    nlohmann::json codes = nlohmann::json::array();
    double hardware = 0;
    for (const auto* e : events) {
      codes.push_back(e->xid);
      hardware += is_hardware_xid(e->xid) ? 1 : 0;
    }
    r.params = {{"xids", codes}, {"last_line", events.back()->line}};
    r.metrics[metrics::xid_events] = Metric::of(static_cast<double>(events.size()));
    r.metrics[metrics::xid_hardware_events] = Metric::of(hardware);
    r.metrics[metrics::xid_last] = Metric::of(events.back()->xid);
    out.push_back(std::move(r));
  }

  std::map<std::string, std::vector<const LinkDownEvent*>> by_device;
  for (const auto& e : findings.link_downs) by_device[e.device].push_back(&e);
  for (const auto& [device, events] : by_device) {
    ProbeResult r;
    r.id = kKernelLogLinkProbe;
    r.scope = Scope{{host}, {}, {}};
    if (!device.empty()) r.scope.devices.push_back(device);
    r.params = {{"last_line", events.back()->line}};
    r.metrics[metrics::link_down_events] = Metric::of(static_cast<double>(events.size()));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ProbeResult> check_kernel_log(const std::string& host, const std::string& kmsg_path) {
  const Scope scope{{host}, {}, {}};
  const int fd = ::open(kmsg_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {skipped(kKernelLogProbe, scope, "cannot read " + kmsg_path + ": " + std::strerror(errno))};
  std::string text;
  std::array<char, 8192> record{};  // one read returns one record
  std::string failure;
  for (;;) {
    const ssize_t n = ::read(fd, record.data(), record.size());
    if (n > 0) {
      text.append(record.data(), static_cast<std::size_t>(n));
      if (text.back() != '\n') text.push_back('\n');
      continue;
    }
    if (n < 0 && errno == EPIPE) continue;  // records overwritten while reading: go on with the next
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) failure = std::strerror(errno);
    break;
  }
  ::close(fd);
  if (!failure.empty() && text.empty())
    return {skipped(kKernelLogProbe, scope, "cannot read " + kmsg_path + ": " + failure)};
  return kernel_log_results(host, parse_kernel_log(text), kmsg_path);
}

}  // namespace ibgpu
