#include "probes/ib/counters.h"

#include <algorithm>

namespace ibgpu {

const std::vector<std::string>& port_error_counters() {
  static const std::vector<std::string> names{"symbol_error",
                                              "link_error_recovery",
                                              "link_downed",
                                              "port_rcv_errors",
                                              "port_rcv_remote_physical_errors",
                                              "port_xmit_discards",
                                              "local_link_integrity_errors",
                                              "excessive_buffer_overrun_errors",
                                              "port_xmit_wait",
                                              "VL15_dropped"};
  return names;
}

CounterSnapshot snapshot_counters(const std::vector<Hca>& hcas, double taken_s) {
  CounterSnapshot snap;
  snap.taken_s = taken_s;
  for (const auto& hca : hcas)
    for (const auto& port : hca.ports) snap.ports.push_back(PortCounters{port_name(hca, port), port.counters});
  return snap;
}

CounterSnapshot snapshot_counters(const Sysfs& sysfs, double taken_s) {
  return snapshot_counters(read_hcas(sysfs), taken_s);
}

std::vector<ProbeResult> counter_deltas(const std::string& host, const CounterSnapshot& before,
                                        const CounterSnapshot& after) {
  std::vector<ProbeResult> out;
  const double interval_s = after.taken_s - before.taken_s;
  auto find = [](const CounterSnapshot& s, const std::string& port) -> const PortCounters* {
    auto it = std::find_if(s.ports.begin(), s.ports.end(), [&](const PortCounters& p) { return p.port == port; });
    return it == s.ports.end() ? nullptr : &*it;
  };
  std::vector<std::string> ports;
  for (const auto& p : before.ports) ports.push_back(p.port);
  for (const auto& p : after.ports)
    if (!find(before, p.port)) ports.push_back(p.port);

  for (const auto& port : ports) {
    ProbeResult r;
    r.id = kPortCountersProbe;
    r.scope = Scope{{host}, {}, {port}};
    r.params = {{"interval_s", interval_s}};
    const PortCounters* b = find(before, port);
    const PortCounters* a = find(after, port);
    if (!a || !b) {
      r.status = ProbeStatus::error;
      r.error = std::string("port ") + (a ? "appeared" : "disappeared") + " between the counter reads";
      out.push_back(std::move(r));
      continue;
    }
    if (interval_s <= 0) {
      r.status = ProbeStatus::error;
      r.error = "counter reads are not ordered in time";
      out.push_back(std::move(r));
      continue;
    }
    nlohmann::json reset = nlohmann::json::array();
    for (const auto& name : port_error_counters()) {
      auto bi = b->counters.find(name);
      auto ai = a->counters.find(name);
      if (bi == b->counters.end() || ai == a->counters.end()) continue;  // not exposed by this driver
      if (ai->second < bi->second) {
        reset.push_back(name);
        r.metrics[name + "_delta"] = Metric::missing();
        r.metrics[name + "_per_hour"] = Metric::missing();
        continue;
      }
      const double delta = static_cast<double>(ai->second - bi->second);
      r.metrics[name + "_delta"] = Metric::of(delta);
      r.metrics[name + "_per_hour"] = Metric::of(delta * 3600.0 / interval_s);
    }
    if (!reset.empty()) r.params["reset"] = reset;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ibgpu
