#include "health/work_orders.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/probe_kind.h"
#include "core/reason_codes.h"

namespace ibgpu {

namespace {

// The port error counters that speak of the cable and its ends (probes/ib/counters.h reads
// them), worst first: what each says, and the act it calls for. port_xmit_wait (congestion) and
// VL15_dropped (management traffic) are no cable's.
struct CounterAct {
  std::string_view counter;
  std::string_view act;
};
constexpr std::array kCounterActs{
    CounterAct{"link_downed", "reseat both ends; if the link drops again, replace the cable, then the transceiver"},
    CounterAct{"symbol_error", "replace the cable (bit errors on the wire); if they follow the port, the transceiver"},
    CounterAct{"link_error_recovery", "replace the cable (the link retrains); if it follows the port, the transceiver"},
    CounterAct{"local_link_integrity_errors", "replace the cable (errors on the wire)"},
    CounterAct{"port_rcv_errors", "replace the cable (malformed packets received)"},
    CounterAct{"port_rcv_remote_physical_errors", "inspect the far end (it forwarded bad packets)"},
    CounterAct{"excessive_buffer_overrun_errors", "check the port's configuration (VLs, MTU) against the switch"},
    CounterAct{"port_xmit_discards", "check the far end and the path for congestion or a down link"},
};

// What a port's own state says, where no counter moved: the reason codes that point at the cable.
struct StateAct {
  ReasonCode code;
  std::string_view act;
};
constexpr std::array kStateActs{
    StateAct{ReasonCode::IB_PORT_DOWN,
             "the link is down: check the cable is seated at both ends and the switch port enabled (ibportstate); "
             "replace the cable, then the transceiver, if it stays down"},
    StateAct{ReasonCode::IB_PORT_WIDTH_LOW, "the link trained on fewer lanes: reseat, then replace the cable"},
    StateAct{ReasonCode::IB_PORT_SPEED_BELOW_CAPABILITY,
             "the link trained below its speed: reseat, then replace the cable or the transceiver"},
    StateAct{ReasonCode::IB_PORT_RATE_LOW, "the link's rate is low: reseat, then replace the cable or the transceiver"},
    StateAct{ReasonCode::RAIL_MASKED,
             "the rail's bytes left through another port: find what steers them (ip route get/ip rule/ip neigh for "
             "the port's address, bonding, tc redirects, NCCL port failover), then check this port's link"},
};

constexpr std::string_view kQuietPortAct =
    "inspect the switch port (its counters: perfquery) and the cable's rate; swap the cable if the port reads clean";
constexpr std::string_view kUplinkAct =
    "read both switch ports' counters (perfquery); reseat or replace the uplink whose errors moved";
// A leaf blamed as a whole: seen from its hosts, the switch and its uplinks look alike.
constexpr std::string_view kSwitchAct =
    "inspect the switch (its log, power, fans); then read its uplinks' counters (perfquery) and reseat or replace "
    "the one whose errors moved";

bool unhealthy(HealthState s) { return s == HealthState::degraded || s == HealthState::failed; }

// The counters that moved on an HCA port during the run; nullopt when none were read there.
std::optional<std::map<std::string, double>> moved_counters(const std::vector<ProbeResult>& probes,
                                                            std::string_view host, std::string_view port) {
  for (const ProbeResult& p : probes) {
    if (p.id != kPortCountersProbe || p.status != ProbeStatus::ok || p.scope.hosts.empty() || p.scope.devices.empty() ||
        p.scope.hosts[0] != host || p.scope.devices[0] != port)
      continue;
    std::map<std::string, double> moved;
    for (const CounterAct& c : kCounterActs)
      if (const auto v = typical(p, std::string(c.counter) + "_delta"); v && *v > 0) moved[std::string(c.counter)] = *v;
    return moved;
  }
  return std::nullopt;
}

std::string switch_unread(const CableEnd& end) {
  return end.text() + ": a switch's counters are not read by ibgpu (perfquery -G 0x" + end.guid + " " +
         std::to_string(end.port) + ")";
}

// The orders so far, by cable (or by port where the cabling has none).
class Orders {
 public:
  explicit Orders(const std::vector<ProbeResult>& probes) : probes_(probes) {}

  void port(const Verdict& v, std::string_view host, std::string_view port, const Cable* cable) {
    const std::string where = std::string(host) + " " + std::string(port);
    WorkOrder& o = order(cable ? cable->text() : "", where, v);
    if (!o.next.empty()) return;  // filled in when first met
    if (!cable) o.unread.push_back(where + ": the cabling lists no cable for this port");
    if (const auto moved = moved_counters(probes_, host, port))
      o.counters = *moved;
    else
      o.unread.push_back(where + ": no error counters read during the run");
    if (cable)
      for (const CableEnd* end : {&cable->a, &cable->b})
        if (end->is_switch) o.unread.push_back(switch_unread(*end));
    o.next = act(v, o.counters);
  }

  void uncabled_host(const Verdict& v, std::string_view host) {
    WorkOrder& o = order("", std::string(host), v);
    if (!o.next.empty()) return;
    o.unread.push_back(std::string(host) + ": the cabling lists no cable of this host");
    o.next = std::string(kQuietPortAct);
  }

  void uplink(const Verdict& v, std::string_view leaf, const std::vector<const Cable*>& cables, std::string_view act) {
    if (cables.empty()) {
      WorkOrder& o = order("", std::string(leaf), v);
      if (o.next.empty()) {
        o.unread.push_back(std::string(leaf) + ": the cabling lists no cable from it to another switch");
        o.next = std::string(act);
      }
      return;
    }
    for (const Cable* cable : cables) {
      WorkOrder& o = order(cable->text(), std::string(leaf), v);
      if (!o.next.empty()) continue;
      o.unread = {switch_unread(cable->a), switch_unread(cable->b)};
      o.next = std::string(act);
    }
  }

  std::vector<WorkOrder> take() { return std::move(orders_); }

  // The counters that moved first (worst first), then the port's state, then a port that reads clean.
  static std::string act(const Verdict& v, const std::map<std::string, double>& counters) {
    for (const CounterAct& c : kCounterActs)
      if (counters.count(std::string(c.counter))) return std::string(c.act);
    for (const StateAct& s : kStateActs)
      if (std::any_of(v.reasons.begin(), v.reasons.end(), [&](const Reason& r) { return r.code == s.code; }))
        return std::string(s.act);
    return std::string(kQuietPortAct);
  }

 private:
  WorkOrder& order(const std::string& cable, const std::string& port, const Verdict& v) {
    auto it = std::find_if(orders_.begin(), orders_.end(), [&](const WorkOrder& o) {
      return cable.empty() ? o.cable.empty() && o.port == port : o.cable == cable;
    });
    if (it == orders_.end()) {
      orders_.push_back(WorkOrder{cable, port, v.state, {}, {}, {}, {}, {}});
      it = orders_.end() - 1;
    }
    if (std::find(it->entities.begin(), it->entities.end(), v.entity) == it->entities.end())
      it->entities.push_back(v.entity);
    if (it->shortfall.empty() || (v.state == HealthState::failed && it->state != HealthState::failed)) {
      it->state = v.state;
      it->shortfall = v.reasons.empty() ? std::string() : v.reasons.front().message;
    }
    return *it;
  }

  const std::vector<ProbeResult>& probes_;
  std::vector<WorkOrder> orders_;
};

}  // namespace

std::vector<WorkOrder> work_orders(const std::vector<Verdict>& verdicts, const std::vector<ProbeResult>& probes,
                                   const Cabling& cabling) {
  Orders orders(probes);
  for (const Verdict& v : verdicts) {
    // A node's state may be unknown for what could not be checked while a finding of its pairs
    // blames it: its reasons say.
    if (!unhealthy(v.state) && v.entity.kind() != EntityKind::node) continue;
    switch (v.entity.kind()) {
      case EntityKind::hca_port:
        orders.port(v, v.entity.host(), v.entity.part(), cabling.of_port(v.entity.host(), v.entity.part()));
        break;
      case EntityKind::link:
        // The ports at the link's ends, as its reasons cite them (none where the pairs ran over MPI).
        for (const Reason& r : v.reasons) {
          if (!r.port.empty()) orders.port(v, v.entity.host(), r.port, cabling.of_port(v.entity.host(), r.port));
          if (!r.peer_port.empty() && !v.entity.peer().empty())
            orders.port(v, v.entity.peer(), r.peer_port, cabling.of_port(v.entity.peer(), r.peer_port));
        }
        break;
      case EntityKind::node: {
        // A host blamed for what its pairs measured, with those findings alone (its other
        // reasons are no cable's): the rail they cite, else each of its cables (the counters say
        // which one moved).
        Verdict measured{v.entity, HealthState::healthy, {}, v.action};
        std::vector<std::string> rails;
        for (const Reason& r : v.reasons) {
          if (info(r.code).group != ReasonGroup::network_pair || !unhealthy(r.state)) continue;
          measured.reasons.push_back(r);
          if (r.state == HealthState::failed || measured.state == HealthState::healthy) measured.state = r.state;
          if (!r.port.empty() && std::find(rails.begin(), rails.end(), r.port) == rails.end()) rails.push_back(r.port);
        }
        if (measured.reasons.empty()) break;
        const std::string_view host = v.entity.host();
        for (const std::string& rail : rails) orders.port(measured, host, rail, cabling.of_port(host, rail));
        if (!rails.empty()) break;
        const auto cables = cabling.of_host(host);
        if (cables.empty()) orders.uncabled_host(measured, host);
        for (const Cable* c : cables) orders.port(measured, host, (c->a.host() == host ? c->a : c->b).rail(), c);
        break;
      }
      case EntityKind::uplink:
        orders.uplink(v, v.entity.host(), cabling.between_switches(v.entity.host()), kUplinkAct);
        break;
      case EntityKind::leaf_switch:
        orders.uplink(v, v.entity.host(), cabling.between_switches(v.entity.host()), kSwitchAct);
        break;
      default:
        break;
    }
  }
  return orders.take();
}

}  // namespace ibgpu
