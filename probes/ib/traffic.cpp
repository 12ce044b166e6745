#include "probes/ib/traffic.h"

#include <algorithm>

#include "core/probe_kind.h"
#include "probes/ib/ports.h"

namespace ibgpu {

namespace {

constexpr std::uint64_t kStopped32 = 0xffffffffull;  // a 32-bit PMA data counter saturates here

// counters/<name> in bytes: the PMA counts 4-byte words.
std::optional<std::uint64_t> pma_bytes(const Sysfs& sysfs, const std::string& base, const char* name) {
  const auto words = sysfs.read_int(base + "counters/" + name);
  if (!words || *words < 0 || static_cast<std::uint64_t>(*words) == kStopped32) return std::nullopt;
  return static_cast<std::uint64_t>(*words) * 4;
}

std::optional<std::uint64_t> netdev_bytes(const Sysfs& sysfs, const std::string& netdev, const char* name) {
  const auto bytes = sysfs.read_int("class/net/" + netdev + "/statistics/" + name);
  if (!bytes || *bytes < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*bytes);
}

PortBytes read_one(const Sysfs& sysfs, const std::string& device, const std::string& port) {
  const std::string base = "class/infiniband/" + device + "/ports/" + port + "/";
  PortBytes out;
  out.port = device + ":" + port;
  if (sysfs.exists(base + "counters/port_xmit_data")) {
    out.source = "port counters";
    out.tx = pma_bytes(sysfs, base, "port_xmit_data");
    out.rx = pma_bytes(sysfs, base, "port_rcv_data");
    return out;
  }
  // The netdev every RoCE GID of the port hangs off: entry 0 is the port's own link-local GID.
  const auto netdev = sysfs.read(base + "gid_attrs/ndevs/0");
  if (!netdev || netdev->empty() || netdev->find('/') != std::string::npos) return out;
  out.source = "netdev " + *netdev;
  out.tx = netdev_bytes(sysfs, *netdev, "tx_bytes");
  out.rx = netdev_bytes(sysfs, *netdev, "rx_bytes");
  return out;
}

const PortBytes* find_port(const std::vector<PortBytes>& ports, const std::string& name) {
  const auto it = std::find_if(ports.begin(), ports.end(), [&](const PortBytes& p) { return p.port == name; });
  return it == ports.end() ? nullptr : &*it;
}

// What a port counted in the side's direction between the reads; nullopt when unreadable or reset.
std::optional<std::uint64_t> moved(const PortBytes& before, const PortBytes& after, RailSide side) {
  const auto& b = side == RailSide::writer ? before.tx : before.rx;
  const auto& a = side == RailSide::writer ? after.tx : after.rx;
  if (!b || !a || *a < *b) return std::nullopt;
  return *a - *b;
}

}  // namespace

std::vector<PortBytes> read_port_bytes(const Sysfs& sysfs) {
  std::vector<PortBytes> out;
  for (const auto& device : sysfs.list("class/infiniband"))
    for (const auto& port : sysfs.list("class/infiniband/" + device + "/ports"))
      out.push_back(read_one(sysfs, device, port));
  return out;
}

ProbeResult rail_bytes_result(const RailBytesTarget& target, const std::vector<PortBytes>& before,
                              const std::vector<PortBytes>& after) {
  ProbeResult r;
  r.id = kRailBytesProbe;
  r.scope = Scope{{target.host}, {target.rank}, {target.port}};
  const bool writer = target.side == RailSide::writer;
  r.params = {{"side", writer ? "writer" : "reader"}, {"counted", writer ? "sent" : "received"}, {"peer", target.peer}};
  nlohmann::json ports = nlohmann::json::object();
  for (const PortBytes& a : after)
    if (const PortBytes* b = find_port(before, a.port))
      if (const auto bytes = moved(*b, a, target.side)) ports[a.port] = *bytes;
  r.params["ports"] = ports;
  const PortBytes* own_before = find_port(before, target.port);
  const PortBytes* own_after = find_port(after, target.port);
  if (own_after) r.params["source"] = own_after->source;
  const auto own = own_before && own_after ? moved(*own_before, *own_after, target.side) : std::nullopt;
  if (!own) {
    r.status = ProbeStatus::skipped;
    r.reason = !own_after || own_after->source.empty()
                   ? target.port + " has no byte counters (no counters/port_xmit_data, no netdev statistics)"
                   : target.port + "'s byte counters (" + own_after->source + ") could not be read or went back";
    return r;
  }
  const double payload = static_cast<double>(target.payload);
  r.metrics[metrics::payload_bytes] = Metric::of(payload);
  r.metrics[metrics::port_bytes] = Metric::of(static_cast<double>(*own));
  r.metrics[metrics::port_share] = Metric::of(payload > 0 ? static_cast<double>(*own) / payload : 0.0);
  return r;
}

}  // namespace ibgpu
