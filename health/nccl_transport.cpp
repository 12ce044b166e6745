#include "health/nccl_transport.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/probe_kind.h"
#include "core/reason_codes.h"
#include "core/text.h"

namespace ibgpu {

namespace {

// The devices NCCL listed in a record (params.net_devices).
std::vector<std::string> net_devices(const ProbeResult& p) {
  std::vector<std::string> out;
  if (const auto it = p.params.find("net_devices"); it != p.params.end() && it->is_array())
    for (const auto& d : *it)
      if (d.is_string()) out.push_back(d.get<std::string>());
  return out;
}

// Where a record was made: "rank 5, rail all-reduce (local rank 1)".
std::string where(const ProbeResult& p) {
  std::string text = p.scope.ranks.empty() ? std::string("a rank") : "rank " + std::to_string(p.scope.ranks[0]);
  const std::string placement = string_param(p, "placement"), group = string_param(p, "group");
  if (!placement.empty()) text += ", " + placement + " all-reduce";
  if (!group.empty()) text += " (" + group + ")";
  return text;
}

}  // namespace

void judge_nccl_transport(VerdictBook& book, const std::vector<HostInventory>& hosts,
                          const std::vector<ProbeResult>& probes, const Profile& profile) {
  const std::string& expected = profile.allreduce.network;
  if (expected.empty()) return;
  // Per host: the first record of another network, and every device NCCL listed with the expected one.
  struct Seen {
    const ProbeResult* other = nullptr;
    std::set<std::string> devices;
    bool expected = false;
  };
  std::map<std::string, Seen> seen;
  for (const auto& p : probes) {
    if (p.id != kNcclTransportProbe || p.status != ProbeStatus::ok || p.scope.hosts.size() != 1) continue;
    const std::string network = string_param(p, "network");
    if (network.empty()) continue;  // the log did not say (not read in time): nothing to judge
    Seen& s = seen[p.scope.hosts[0]];
    if (!network.starts_with(expected)) {  // "IB" takes "IBext_v8", HPC-X's IB plugin
      if (!s.other) s.other = &p;
      continue;
    }
    s.expected = true;
    for (auto& d : net_devices(p)) s.devices.insert(std::move(d));
  }
  for (const auto& host : hosts) {
    const auto it = seen.find(host.name);
    if (it == seen.end()) continue;
    const Seen& s = it->second;
    if (s.other) {
      const ProbeResult& p = *s.other;
      const std::vector<std::string> devices = net_devices(p);
      Reason r{ReasonCode::ALLREDUCE_TRANSPORT_UNEXPECTED,
               "NCCL took network " + string_param(p, "network") + " across hosts (" + where(p) + "), not " + expected +
                   " as the profile expects" + (devices.empty() ? "" : ": over " + join(devices, ", ")),
               metrics::nccl_net_devices,
               static_cast<double>(devices.size()),
               {}};
      r.probe = p.id;
      book.add(Entity::node(host.name), HealthState::failed, std::move(r));
    }
    if (!s.expected) continue;
    const std::string listed = join(std::vector<std::string>(s.devices.begin(), s.devices.end()), ", ");
    for (const auto& hca : host.hcas) {
      if (!hca.rail) continue;
      for (const auto& port : hca.ports) {
        const std::string name = port_name(hca, port);
        if (!port.active() || s.devices.count(name)) continue;
        Reason r{ReasonCode::ALLREDUCE_TRANSPORT_UNEXPECTED,
                 "NCCL's " + expected + " devices on this host (" + (listed.empty() ? "none" : listed) +
                     ") leave this rail out: its all-reduce traffic does not cross it",
                 metrics::nccl_net_devices,
                 static_cast<double>(s.devices.size()),
                 {}};
        r.probe = kNcclTransportProbe;
        book.add(Entity::port(host.name, name), HealthState::degraded, std::move(r));
      }
    }
  }
}

}  // namespace ibgpu
