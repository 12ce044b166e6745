#include "probes/ib/ports.h"

#include <cctype>
#include <charconv>
#include <string_view>

#include "probes/pci.h"

namespace ibgpu {

namespace {

// sysfs values are one short line; anything longer is not a port attribute (and a
// backtracking regex once overflowed the stack on a 100,000-character one).
constexpr std::size_t kMaxAttribute = 256;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int> to_int(const std::string& s) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// Leading decimal digits of `s` as an int (removed from `s`); nullopt without any or out of range.
std::optional<int> take_int(std::string_view& s) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr == s.data() || s.front() == '-' || s.front() == '+') return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  return v;
}

bool take(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  s.remove_prefix(word.size());
  return true;
}

}  // namespace

std::optional<CodedState> parse_coded_state(const std::string& text) {
  // "4: ACTIVE", "5: LinkUp"
  if (text.size() > kMaxAttribute) return std::nullopt;
  std::string_view s = trim(text);
  const auto code = take_int(s);
  if (!code) return std::nullopt;
  s = trim(s);
  if (!take(s, ":")) return std::nullopt;
  s = trim(s);
  if (s.empty()) return std::nullopt;
  return CodedState{*code, std::string(s)};
}

std::optional<LinkRate> parse_rate(const std::string& text) {
  // "400 Gb/sec (4X NDR)", "25 Gb/sec (1X EDR)", "2.5 Gb/sec (1X SDR)", "100 Gb/sec"
  if (text.size() > kMaxAttribute) return std::nullopt;
  std::string_view s = trim(text);
  std::size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0 || digits > 6) return std::nullopt;  // no link is a million Gb/s
  std::size_t end = digits;
  if (end < s.size() && s[end] == '.') {
    ++end;
    const std::size_t fraction = end;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end == fraction || end - fraction > 6) return std::nullopt;
  }
  LinkRate rate;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + end, rate.gbps);
  if (ec != std::errc{} || ptr != s.data() + end) return std::nullopt;
  s.remove_prefix(end);
  s = trim(s);
  if (!take(s, "Gb/sec")) return std::nullopt;
  s = trim(s);
  if (s.empty()) return rate;
  if (!take(s, "(")) return std::nullopt;
  s = trim(s);
  rate.lanes = take_int(s);
  if (!rate.lanes || !take(s, "X")) return std::nullopt;
  s = trim(s);
  std::size_t speed = 0;
  while (speed < s.size() && std::isalnum(static_cast<unsigned char>(s[speed]))) ++speed;
  rate.speed = std::string(s.substr(0, speed));
  s = trim(s.substr(speed));
  if (s != ")") return std::nullopt;
  return rate;
}

IbPort read_port(const Sysfs& sysfs, const std::string& device, int port) {
  const std::string base = "class/infiniband/" + device + "/ports/" + std::to_string(port) + "/";
  IbPort p;
  p.port = port;
  if (auto s = sysfs.read(base + "state")) p.state = parse_coded_state(*s);
  if (auto s = sysfs.read(base + "phys_state")) p.phys_state = parse_coded_state(*s);
  if (auto s = sysfs.read(base + "rate")) {
    p.rate_text = *s;
    p.rate = parse_rate(*s);
  }
  p.link_layer = sysfs.read(base + "link_layer").value_or("");
  p.lid = sysfs.read(base + "lid");
  for (const auto& name : sysfs.list(base + "counters")) {
    // Some counters are unreadable without privileges or unsupported (EINVAL): leave them out.
    if (auto v = sysfs.read_int(base + "counters/" + name); v && *v >= 0)
      p.counters[name] = static_cast<std::uint64_t>(*v);
  }
  return p;
}

std::string no_rdma_device_text(const Sysfs& sysfs) {
  return "no RDMA device under " + sysfs.path("class/infiniband").string();
}

std::vector<Hca> read_hcas(const Sysfs& sysfs) {
  std::vector<Hca> hcas;
  for (const auto& name : sysfs.list("class/infiniband")) {
    const std::string base = "class/infiniband/" + name + "/";
    Hca hca;
    hca.name = name;
    hca.node_guid = sysfs.read(base + "node_guid").value_or("");
    hca.fw_ver = sysfs.read(base + "fw_ver").value_or("");
    hca.board_id = sysfs.read(base + "board_id").value_or("");
    hca.hca_type = sysfs.read(base + "hca_type").value_or("");
    hca.pci_address = sysfs.link_name(base + "device").value_or("");
    // numa_node is -1 when the platform does not say.
    if (auto numa = sysfs.read_int(base + "device/numa_node"); numa && *numa >= 0)
      hca.numa_node = static_cast<int>(*numa);
    hca.link = read_pci_link(sysfs, base + "device");
    for (const auto& port : sysfs.list(base + "ports"))
      if (auto n = to_int(port)) hca.ports.push_back(read_port(sysfs, name, *n));
    hcas.push_back(std::move(hca));
  }
  return hcas;
}

}  // namespace ibgpu
