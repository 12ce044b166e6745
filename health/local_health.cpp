#include "health/local_health.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "core/text.h"
#include "health/thresholds.h"
#include "health/verdict_book.h"
#include "probes/gpu/gpu_health.h"
#include "probes/ib/counters.h"
#include "probes/kernel_log.h"
#include "probes/topology.h"

namespace ibgpu {

namespace {

Reason reason(ReasonCode code, std::string message, std::string metric, std::optional<double> value,
              std::optional<double> threshold) {
  return Reason{code, std::move(message), std::move(metric), value, threshold};
}

std::string number_text(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

bool is_gpu_probe(const ProbeResult& p) { return p.kind().subject == ProbeSubject::gpu; }
bool is_port_probe(const ProbeResult& p) { return p.kind().subject == ProbeSubject::hca_port; }

// ---- RDMA ports ---------------------------------------------------------------

// The fastest InfiniBand speed each ConnectX generation trains to (hca_type
// is the PCI device id the mlx5 driver reports).
std::optional<std::string_view> max_ib_speed(std::string_view hca_type) {
  static constexpr std::pair<std::string_view, std::string_view> kTable[]{
      {"MT4119", "EDR"}, {"MT4121", "EDR"}, {"MT4123", "HDR"}, {"MT4129", "NDR"}, {"MT4131", "XDR"}};
  for (const auto& [type, speed] : kTable)
    if (type == hca_type) return speed;
  return std::nullopt;
}

int speed_rank(std::string_view speed) {
  static constexpr std::string_view kOrder[]{"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"};
  const auto it = std::find(std::begin(kOrder), std::end(kOrder), speed);
  return it == std::end(kOrder) ? -1 : static_cast<int>(it - std::begin(kOrder));
}

// The profile's port rules (rate, width, count) describe the rails. A port of
// an HCA that is not a rail (storage, in-band: no GPU near it) is judged only
// for being down, as degraded (it carries no GPU traffic), and for its errors.
void judge_ports(VerdictBook& book, const HostInventory& host, const Profile& profile) {
  int active = 0;
  for (const auto& hca : host.hcas) {
    const bool rail = hca.rail;
    for (const auto& port : hca.ports) {
      Verdict& entity = book.at(Entity::port(host.name, port_name(hca, port)));
      const bool link_up = port.phys_state && port.phys_state->code == 5;
      if (!port.active() || !link_up) {
        const std::string state = port.state ? port.state->name : "unreadable";
        const std::string phys = port.phys_state ? port.phys_state->name : "unreadable";
        VerdictBook::add(entity, rail ? HealthState::failed : HealthState::degraded,
                         reason(ReasonCode::IB_PORT_DOWN,
                                std::string(rail ? "" : "not a rail (no GPU near it): ") + "state " + state +
                                    ", physical state " + phys,
                                "state", port.state ? std::optional<double>(port.state->code) : std::nullopt, 4.0));
        continue;
      }
      if (!rail) continue;
      ++active;
      if (!port.rate) continue;
      if (profile.node.port_rate_gbps && port.rate->gbps < *profile.node.port_rate_gbps)
        VerdictBook::add(
            entity, HealthState::degraded,
            reason(ReasonCode::IB_PORT_RATE_LOW,
                   "trained at " + port.rate_text + ", expected " + number_text(*profile.node.port_rate_gbps) + " Gb/s",
                   "rate_Gbps", port.rate->gbps, *profile.node.port_rate_gbps));
      if (profile.node.port_width && port.rate->lanes && *port.rate->lanes < *profile.node.port_width)
        VerdictBook::add(entity, HealthState::degraded,
                         reason(ReasonCode::IB_PORT_WIDTH_LOW,
                                "trained at " + std::to_string(*port.rate->lanes) + "X, expected " +
                                    std::to_string(*profile.node.port_width) + "X",
                                "lanes", *port.rate->lanes, *profile.node.port_width));
      // sysfs shows no port capability; the HCA generation bounds the speed.
      const auto best = max_ib_speed(hca.hca_type);
      if (best && port.link_layer == "InfiniBand" && speed_rank(port.rate->speed) >= 0 &&
          speed_rank(port.rate->speed) < speed_rank(*best))
        VerdictBook::add(
            entity, HealthState::degraded,
            reason(ReasonCode::IB_PORT_SPEED_BELOW_CAPABILITY,
                   "trained at " + port.rate->speed + ", " + hca.hca_type + " supports " + std::string(*best), "speed",
                   speed_rank(port.rate->speed), speed_rank(*best)));
    }
  }
  if (profile.node.expect_active_ports && active < *profile.node.expect_active_ports)
    book.add(Entity::node(host.name), HealthState::failed,
             reason(ReasonCode::IB_PORTS_MISSING,
                    std::to_string(active) + " active rail ports, profile expects " +
                        std::to_string(*profile.node.expect_active_ports),
                    metrics::active_port_count, active, *profile.node.expect_active_ports));
}

// "x8 of x16 lanes" / "16 GT/s of 32 GT/s"; the worse of the two when both.
std::string link_shortfall(const PciLink& link) {
  if (link.narrower()) return "x" + std::to_string(*link.width) + " of x" + std::to_string(*link.max_width) + " lanes";
  return number_text(*link.speed_GTps) + " GT/s of " + number_text(*link.max_speed_GTps) + " GT/s";
}

// The PCIe links sysfs shows, driver or not. An HCA's link is judged by speed
// and width: it runs at its trained rate whether busy or idle. A GPU's only by
// width, and only where NVML does not judge it (no driver): an idle GPU lowers
// its link speed to save power, and NVML's rule judges the generation at P0.
// A GPU on the bus that NVML does not list has fallen off (XID 79) or lost its
// driver; that is asked only when NVML listed GPUs.
void judge_pci(VerdictBook& book, const HostInventory& host) {
  for (const auto& hca : host.hcas) {
    if (!hca.link.narrower() && !hca.link.slower()) continue;
    for (const auto& port : hca.ports)
      book.add(Entity::port(host.name, port_name(hca, port)), HealthState::degraded,
               reason(ReasonCode::HCA_PCIE_DOWNTRAINED,
                      hca.name + " (" + hca.pci_address + ") PCIe link at " + link_shortfall(hca.link),
                      hca.link.narrower() ? "pcie_link_width" : "pcie_link_speed_GTps",
                      hca.link.narrower() ? std::optional<double>(*hca.link.width) : hca.link.speed_GTps,
                      hca.link.narrower() ? std::optional<double>(*hca.link.max_width) : hca.link.max_speed_GTps));
  }
  for (const auto& pci : host.pci_gpus) {
    const GpuInfo* listed = nullptr;
    for (const auto& gpu : host.gpus)
      if (normalize_pci_address(gpu.pci_bus_id) == pci.pci_address) listed = &gpu;
    if (!listed && !host.gpus.empty())
      book.add(Entity::node(host.name), HealthState::failed,
               reason(ReasonCode::GPU_MISSING,
                      "the GPU at " + pci.pci_address +
                          " is on the PCI bus but NVML does not list it (fallen off the "
                          "bus, XID 79, or its driver lost it)",
                      "pci_address", std::nullopt, std::nullopt));
    if (listed || !pci.link.narrower()) continue;
    book.add(Entity::node(host.name), HealthState::degraded,
             reason(ReasonCode::GPU_PCIE_DOWNTRAINED,
                    "the GPU at " + pci.pci_address + ": PCIe link at " + link_shortfall(pci.link), "pcie_link_width",
                    *pci.link.width, *pci.link.max_width));
  }
  // The other way round: a GPU NVML lists at an address the bus does not show
  // (asked only when the bus shows GPUs; a container's partial /sys shows none).
  // It answers NVML, but its PCIe link and its rail cannot be checked.
  if (host.pci_gpus.empty()) return;
  for (const auto& gpu : host.gpus) {
    if (gpu.pci_bus_id.empty()) continue;  // NVML did not describe it: its own error says so
    const std::string address = normalize_pci_address(gpu.pci_bus_id);
    const bool on_bus = std::any_of(host.pci_gpus.begin(), host.pci_gpus.end(),
                                    [&](const PciGpu& pci) { return pci.pci_address == address; });
    if (!on_bus)
      book.add(Entity::gpu(host.name, gpu_name(gpu.index)), HealthState::degraded,
               reason(ReasonCode::GPU_NOT_ON_PCI,
                      "NVML lists it at " + address +
                          ", which the PCI bus in sysfs does not show: its PCIe link and rail were not checked",
                      "pci_address", std::nullopt, std::nullopt));
  }
}

struct CounterRule {
  const char* counter;
  ReasonCode code;
  double CounterLimits::*limit;
};

void judge_counters(Verdict& entity, const ProbeResult& p, const Profile& profile) {
  if (auto downed = typical(p, "link_downed_delta"); downed && *downed > 0)
    VerdictBook::add(
        entity, HealthState::failed,
        reason(ReasonCode::IB_LINK_DOWNED, "link went down " + number_text(*downed) + " times during the run",
               "link_downed_delta", *downed, 0.0));
  static const std::vector<CounterRule> rules{
      {"symbol_error", ReasonCode::IB_SYMBOL_ERRORS, &CounterLimits::symbol_error_per_hour_degraded},
      {"link_error_recovery", ReasonCode::IB_LINK_ERROR_RECOVERY,
       &CounterLimits::link_error_recovery_per_hour_degraded},
      {"port_rcv_errors", ReasonCode::IB_RCV_ERRORS, &CounterLimits::port_rcv_errors_per_hour_degraded},
      {"local_link_integrity_errors", ReasonCode::IB_LINK_INTEGRITY_ERRORS,
       &CounterLimits::local_link_integrity_errors_per_hour_degraded},
      {"excessive_buffer_overrun_errors", ReasonCode::IB_BUFFER_OVERRUN,
       &CounterLimits::excessive_buffer_overrun_errors_per_hour_degraded},
  };
  for (const auto& rule : rules) {
    const std::string name = std::string(rule.counter) + "_per_hour";
    const auto rate = typical(p, name);
    const double limit = profile.counters.*rule.limit;
    if (!rate || *rate <= limit) continue;
    const auto delta = typical(p, std::string(rule.counter) + "_delta");
    VerdictBook::add(
        entity, HealthState::degraded,
        reason(rule.code,
               std::string(rule.counter) + " rose by " + number_text(delta.value_or(0)) + " during the run (" +
                   number_text(*rate) + " per hour, limit " + number_text(limit) + ")",
               name, *rate, limit));
  }
}

// net.verbs.rail_bytes: a port that counted less than half of what its pair wrote (headers only
// add, so a port that carried its probe counts a little more than it) is masked: the bytes crossed
// another port. The message names the port that counted the most meanwhile.
void judge_rail_bytes(Verdict& port, const ProbeResult& p) {
  constexpr double kMinShare = 0.5;
  const auto share = typical(p, metrics::port_share);
  const auto payload = typical(p, metrics::payload_bytes);
  if (!share || !payload || *payload <= 0 || *share >= kMinShare) return;
  const std::string own = p.scope.devices.empty() ? "" : p.scope.devices[0];
  std::string busiest;
  double most = 0;
  if (const auto ports = p.params.find("ports"); ports != p.params.end() && ports->is_object())
    for (const auto& [name, bytes] : ports->items())
      if (name != own && bytes.is_number() && bytes.get<double>() > most) {
        busiest = name;
        most = bytes.get<double>();
      }
  const std::string counted = string_param(p, "counted");
  const auto mb = [](double bytes) { return fixed_text(bytes / 1e6, 1) + " MB"; };
  std::string message = "the port " + counted + " " + mb(*share * *payload) + " of the " + mb(*payload) +
                        " its pair with " + string_param(p, "peer") + " wrote (share " + fixed_text(*share, 2) + ")";
  if (!busiest.empty()) message += "; " + busiest + " " + counted + " " + mb(most) + " meanwhile";
  VerdictBook::add(port, HealthState::failed,
                   reason(ReasonCode::RAIL_MASKED, std::move(message), metrics::port_share, share, kMinShare));
}

const Hca* find_hca(const HostInventory& host, const std::string& device) {
  for (const auto& hca : host.hcas)
    if (hca.name == device || (!hca.pci_address.empty() && normalize_pci_address(hca.pci_address) == device))
      return &hca;
  return nullptr;
}

// ---- GPUs -----------------------------------------------------------------------

// "3, 11" from a list of link numbers in the result's params ("" without one).
std::string link_list(const ProbeResult& p, const char* key) {
  if (!p.params.contains(key) || !p.params[key].is_array()) return {};
  std::string out;
  for (const auto& link : p.params[key])
    if (link.is_number_integer()) out += (out.empty() ? "" : ", ") + std::to_string(link.get<int>());
  return out;
}

// " (most on link 7: 12)" from the record's per-link counts of `field` ("" without any).
std::string busiest_link(const ProbeResult& p, const char* field) {
  const auto& links = p.params.contains("nvlink_link_errors") ? p.params["nvlink_link_errors"] : nlohmann::json();
  std::string link;
  double most = 0;
  for (const auto& [number, counts] : links.items())
    if (counts.contains(field) && counts[field].is_number() && counts[field].get<double>() > most) {
      most = counts[field].get<double>();
      link = number;
    }
  return link.empty() ? "" : " (most on link " + link + ": " + number_text(most) + ")";
}

// NVLinks: down, fewer than the profile's, slower than the profile's, more errors than it allows; the
// NVLink fabric's registration.
void judge_nvlinks(Verdict& gpu, const ProbeResult& p, const Profile& profile) {
  const auto links = typical(p, metrics::nvlink_links), up = typical(p, metrics::nvlink_links_up);
  const auto expected = profile.gpu.nvlink_links;
  auto add = [&](HealthState s, ReasonCode code, std::string message, const char* name, std::optional<double> value,
                 std::optional<double> threshold) {
    VerdictBook::add(gpu, s, reason(code, std::move(message), name, value, threshold));
  };
  if (expected && links && *links < *expected) {
    add(HealthState::failed, ReasonCode::GPU_NVLINK_DOWN,
        number_text(*links) + " NVLinks, the profile expects " + std::to_string(*expected), metrics::nvlink_links,
        links, *expected);
  } else if (links && up && *up < *links && (*up > 0 || (expected && *expected > 0))) {
    // NVML reports every link of a PCIe GPU without a bridge as present and down: with no profile
    // that expects NVLinks, only a fabric that trained in part is a fault it can see.
    const std::string which = link_list(p, "nvlinks_down");
    add(HealthState::failed, ReasonCode::GPU_NVLINK_DOWN,
        number_text(*links - *up) + " of " + number_text(*links) + " NVLinks down" +
            (which.empty() ? "" : " (link " + which + ")"),
        metrics::nvlink_links_up, up, links);
  }
  const auto slowest = typical(p, metrics::nvlink_speed_MBps_min);
  if (profile.gpu.nvlink_speed_MBps && slowest && *slowest < *profile.gpu.nvlink_speed_MBps) {
    const std::string link = p.params.contains("nvlink_slowest") ? p.params["nvlink_slowest"].dump() : "?";
    add(HealthState::degraded, ReasonCode::GPU_NVLINK_SLOW,
        "link " + link + " at " + number_text(*slowest) + " MB/s, the profile expects " +
            number_text(*profile.gpu.nvlink_speed_MBps),
        metrics::nvlink_speed_MBps_min, slowest, profile.gpu.nvlink_speed_MBps);
  }
  struct Counted {
    const char* metric;
    std::optional<int> limit;
    const char* words;  // what the counter counts, and its field in the per-link counts
    const char* field;
  };
  for (const Counted& c :
       {Counted{metrics::nvlink_recoveries, profile.gpu.nvlink_recoveries_degraded, "NVLink recoveries", "recoveries"},
        Counted{metrics::nvlink_errors, profile.gpu.nvlink_errors_degraded, "NVLink errors", "errors"}}) {
    const auto count = typical(p, c.metric);
    if (!c.limit || !count || *count < *c.limit) continue;
    add(HealthState::degraded, ReasonCode::GPU_NVLINK_ERRORS,
        number_text(*count) + " " + c.words + " since the counters were reset" + busiest_link(p, c.field) +
            ", the profile allows fewer than " + std::to_string(*c.limit),
        c.metric, count, *c.limit);
  }
  if (!profile.gpu.nvlink_fabric) return;
  const auto registered = typical(p, metrics::fabric_registered);
  if (!registered) {
    add(HealthState::unknown, ReasonCode::GPU_FABRIC_NOT_REGISTERED, "NVML reports no NVLink fabric state for this GPU",
        metrics::fabric_registered, {}, 1.0);
  } else if (*registered == 0) {
    const std::string error = string_param(p, "fabric_error");
    add(HealthState::failed, ReasonCode::GPU_FABRIC_NOT_REGISTERED,
        error.empty() ? "not registered with the NVLink fabric (registration " + string_param(p, "fabric_state") + ")"
                      : "registration with the NVLink fabric failed: " + error,
        metrics::fabric_registered, registered, 1.0);
  } else if (const auto health = typical(p, metrics::fabric_health)) {
    if (*health == static_cast<double>(FabricHealth::unhealthy))
      add(HealthState::failed, ReasonCode::GPU_FABRIC_UNHEALTHY, "the NVLink fabric reports the GPU unhealthy",
          metrics::fabric_health, health, 1.0);
    else if (*health == static_cast<double>(FabricHealth::limited_capacity))
      add(HealthState::degraded, ReasonCode::GPU_FABRIC_UNHEALTHY,
          "the NVLink fabric reports the GPU at limited capacity", metrics::fabric_health, health, 1.0);
  }
}

void judge_gpu_health(Verdict& gpu, const ProbeResult& p, const Profile& profile) {
  auto metric = [&](const char* name) { return typical(p, name); };
  auto flag_set = [&](const char* name) { return metric(name).value_or(0) != 0; };
  auto add = [&](HealthState s, ReasonCode code, std::string message, const char* name,
                 std::optional<double> threshold) {
    VerdictBook::add(gpu, s, reason(code, std::move(message), name, metric(name), threshold));
  };
  if (auto n = metric(metrics::ecc_uncorrected_volatile); n && *n > 0)
    add(HealthState::failed, ReasonCode::GPU_ECC_UNCORRECTABLE,
        number_text(*n) + " uncorrectable ECC errors since the driver loaded", metrics::ecc_uncorrected_volatile, 0.0);
  if (auto on = metric(metrics::ecc_enabled); on && *on == 0)
    add(HealthState::degraded, ReasonCode::GPU_ECC_DISABLED, "ECC is disabled", metrics::ecc_enabled, 1.0);
  if (flag_set(metrics::remap_failed))
    add(HealthState::failed, ReasonCode::GPU_REMAP_FAILED, "row remapping failed: no spare rows left",
        metrics::remap_failed, 0.0);
  if (flag_set(metrics::remap_pending))
    add(HealthState::failed, ReasonCode::GPU_REMAP_PENDING, "a row remap waits for a GPU reset", metrics::remap_pending,
        0.0);
  if (flag_set(metrics::retired_pages_pending))
    add(HealthState::failed, ReasonCode::GPU_RETIRED_PAGES_PENDING, "page retirement waits for a reboot",
        metrics::retired_pages_pending, 0.0);
  if (flag_set(metrics::thermal_slowdown))
    add(HealthState::degraded, ReasonCode::GPU_THERMAL_SLOWDOWN,
        "clocks slowed by temperature (thermal or hardware slowdown active)", metrics::thermal_slowdown, 0.0);
  if (flag_set(metrics::power_slowdown))
    add(HealthState::degraded, ReasonCode::GPU_POWER_SLOWDOWN, "clocks slowed by the power brake",
        metrics::power_slowdown, 0.0);
  if (auto t = metric(metrics::temp_C)) {
    if (profile.gpu.temp_failed_C && *t >= *profile.gpu.temp_failed_C)
      add(HealthState::failed, ReasonCode::GPU_TEMP_HIGH, number_text(*t) + " C", metrics::temp_C,
          profile.gpu.temp_failed_C);
    else if (profile.gpu.temp_degraded_C && *t >= *profile.gpu.temp_degraded_C)
      add(HealthState::degraded, ReasonCode::GPU_TEMP_HIGH, number_text(*t) + " C", metrics::temp_C,
          profile.gpu.temp_degraded_C);
  }
  const auto width = metric(metrics::pcie_width), width_max = metric(metrics::pcie_width_max);
  if (width && width_max && *width < *width_max)
    add(HealthState::degraded, ReasonCode::GPU_PCIE_DOWNTRAINED,
        "PCIe link x" + number_text(*width) + " of x" + number_text(*width_max), metrics::pcie_width, width_max);
  // GPUs drop the link generation when idle to save power: only at full
  // performance (P0) is a lower generation a training fault.
  const auto gen = metric(metrics::pcie_gen), gen_max = metric(metrics::pcie_gen_max), pstate = metric(metrics::pstate);
  if (gen && gen_max && *gen < *gen_max && pstate && *pstate == 0)
    add(HealthState::degraded, ReasonCode::GPU_PCIE_DOWNTRAINED,
        "PCIe Gen" + number_text(*gen) + " of Gen" + number_text(*gen_max) + " at P0", metrics::pcie_gen, gen_max);
  judge_nvlinks(gpu, p, profile);
  if (profile.gpu.require_persistence_mode)
    if (auto pm = metric(metrics::persistence_mode); pm && *pm == 0)
      add(HealthState::degraded, ReasonCode::GPU_PERSISTENCE_OFF, "persistence mode is off", metrics::persistence_mode,
          1.0);
}

void judge_xids(Verdict& entity, const ProbeResult& p) {
  const double all = typical(p, metrics::xid_events).value_or(0);
  const double hardware = typical(p, metrics::xid_hardware_events).value_or(0);
  if (all <= 0) return;
  const std::string codes = p.params.contains("xids") ? p.params["xids"].dump() : "";
  VerdictBook::add(entity, hardware > 0 ? HealthState::failed : HealthState::degraded,
                   reason(ReasonCode::GPU_XID, number_text(all) + " XID errors since boot " + codes, metrics::xid_last,
                          typical(p, metrics::xid_last), {}));
}

// Healthy GPUs beside failed ones leave a usable node: admit it with fewer GPUs.
void roll_up_gpus(VerdictBook& book, const HostInventory& host, const std::vector<std::size_t>& gpus) {
  int total = 0, usable = 0;
  HealthState worst_gpu = HealthState::healthy;
  std::string bad;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const Verdict& v = book[gpus[i]];
    ++total;
    worst_gpu = worst(worst_gpu, v.state);
    if (v.state == HealthState::healthy || v.state == HealthState::degraded) ++usable;
    if (v.state != HealthState::healthy)
      bad += (bad.empty() ? "" : ", ") + gpu_name(host.gpus[i].index) + " " + to_string(v.state);
  }
  if (worst_gpu == HealthState::healthy) return;
  HealthState node = worst_gpu;
  if (worst_gpu == HealthState::failed && usable > 0) node = HealthState::degraded;
  book.add(Entity::node(host.name), node,
           reason(ReasonCode::GPUS_UNHEALTHY,
                  std::to_string(usable) + " of " + std::to_string(total) + " GPUs usable (" + bad + ")",
                  "usable_gpu_count", usable, total));
}

// node.imex, where the profile asks for IMEX (NVL72 trays): the channel device, the daemon.
void judge_imex(Verdict& node, const ProbeResult& p, const Profile& profile) {
  const auto channel0 = typical(p, metrics::imex_channel0);
  if (profile.gpu.imex_channel && channel0 && *channel0 == 0)
    VerdictBook::add(
        node, HealthState::failed,
        reason(ReasonCode::IMEX_CHANNEL_MISSING, "IMEX channel 0 unusable: " + string_param(p, "channel0_problem"),
               metrics::imex_channel0, channel0, 1.0));
  if (!profile.gpu.imex_service) return;
  const auto daemon = typical(p, metrics::imex_daemon);
  const auto nodes = typical(p, metrics::imex_nodes);
  if (daemon && *daemon == 0)
    VerdictBook::add(
        node, HealthState::failed,
        reason(ReasonCode::IMEX_SERVICE_DOWN, "no nvidia-imex process runs", metrics::imex_daemon, daemon, 1.0));
  else if (!nodes || *nodes == 0)
    VerdictBook::add(node, HealthState::failed,
                     reason(ReasonCode::IMEX_SERVICE_DOWN,
                            nodes ? "the IMEX node list (/etc/nvidia-imex/nodes_config.cfg) lists no address"
                                  : "no IMEX node list (/etc/nvidia-imex/nodes_config.cfg)",
                            metrics::imex_nodes, nodes, 1.0));
}

}  // namespace

bool is_local_probe(const ProbeResult& probe) { return probe.kind().stage == ProbeStage::local; }

std::vector<Verdict> judge_local_health(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                                        const Profile& profile) {
  VerdictBook book;
  judge_local_health(book, hosts, probes, profile);
  return book.take();
}

void judge_local_health(VerdictBook& book, const std::vector<HostInventory>& hosts,
                        const std::vector<ProbeResult>& probes, const Profile& profile) {
  // Each host's local results, in order.
  std::map<std::string_view, std::vector<const ProbeResult*>> local_by_host;
  // Hosts whose GPU inventory could not ask NVML (no driver): their GPU count is unchecked
  // (the skipped inventory says so), not a finding of missing GPUs.
  std::set<std::string_view> no_gpu_driver;
  for (const auto& p : probes) {
    if (is_local_probe(p) && p.scope.hosts.size() == 1) local_by_host[p.scope.hosts[0]].push_back(&p);
    if (p.id == kInventoryGpuProbe && p.status == ProbeStatus::skipped && p.scope.hosts.size() == 1)
      no_gpu_driver.insert(p.scope.hosts[0]);
  }
  for (const auto& host : hosts) {
    const auto& local = local_by_host[host.name];
    judge_ports(book, host, profile);
    judge_pci(book, host);
    if (profile.node.expect_gpus && static_cast<int>(host.gpus.size()) < *profile.node.expect_gpus &&
        !no_gpu_driver.count(host.name))
      book.add(Entity::node(host.name), HealthState::failed,
               reason(ReasonCode::GPU_MISSING,
                      std::to_string(host.gpus.size()) + " GPUs found, profile expects " +
                          std::to_string(*profile.node.expect_gpus),
                      metrics::gpu_count, static_cast<double>(host.gpus.size()), *profile.node.expect_gpus));
    // The host's GPUs (by position in the inventory and by device name) and
    // the node itself, as positions in the book.
    // A host has a handful of GPUs: vectors searched in order, no map per host.
    std::vector<std::size_t> gpus;
    std::vector<std::string> gpu_names;
    for (const auto& gpu : host.gpus) {
      gpu_names.push_back(gpu_name(gpu.index));
      gpus.push_back(book.index(Entity::gpu(host.name, gpu_names.back())));
    }
    const std::size_t node = book.index(Entity::node(host.name));

    std::vector<std::string_view> health_recorded;  // devices with a gpu.nvml.health record
    for (const ProbeResult* result : local) {
      const ProbeResult& p = *result;
      if (p.id == kGpuHealthProbe && !p.scope.devices.empty()) health_recorded.push_back(p.scope.devices[0]);
      const std::string_view device = p.scope.devices.empty() ? "" : std::string_view(p.scope.devices[0]);
      // Without a device the result speaks for the whole host.
      std::size_t at = node;
      if (!device.empty() && is_gpu_probe(p)) {
        const auto known = std::find(gpu_names.begin(), gpu_names.end(), device);
        at = known != gpu_names.end() ? gpus[static_cast<std::size_t>(known - gpu_names.begin())]
                                      : book.index(Entity::gpu(host.name, device));
      } else if (!device.empty() && is_port_probe(p)) {
        at = book.index(Entity::port(host.name, device));
      }
      Verdict* entity = &book[at];  // until the next entity is added
      if (p.status != ProbeStatus::ok) {
        if (absence_expected(p, profile)) continue;
        // A port without byte counters was not witnessed, which its result says: the port's
        // verdict stands on its other evidence.
        if (p.id == kRailBytesProbe && p.status == ProbeStatus::skipped) continue;
        Finding problem = probe_outcome(p);
        VerdictBook::add(*entity, problem.state, std::move(problem.reason));
        continue;
      }
      if (p.id == kGpuHealthProbe) judge_gpu_health(*entity, p, profile);
      if (p.id == kPortCountersProbe) judge_counters(*entity, p, profile);
      if (p.id == kRailBytesProbe) judge_rail_bytes(*entity, p);
      if (p.id == kImexProbe) judge_imex(*entity, p, profile);
      if (p.id == kKernelLogXidProbe) {
        std::size_t target = node;
        for (std::size_t i = 0; i < host.gpus.size(); ++i)
          if (!device.empty() && normalize_pci_address(host.gpus[i].pci_bus_id).starts_with(device)) target = gpus[i];
        judge_xids(book[target], p);
      }
      if (p.id == kKernelLogLinkProbe) {
        const double drops = typical(p, metrics::link_down_events).value_or(0);
        const Hca* hca = find_hca(host, std::string(device));
        if (!hca || drops < profile.counters.link_down_events_degraded) continue;
        for (const auto& port : hca->ports)
          book.add(Entity::port(host.name, port_name(*hca, port)), HealthState::degraded,
                   reason(ReasonCode::IB_LINK_FLAP, number_text(drops) + " link drops in the kernel log since boot",
                          metrics::link_down_events, drops, profile.counters.link_down_events_degraded));
      }
    }
    // A GPU the inventory lists but no health record covers was not checked.
    for (std::size_t i = 0; i < host.gpus.size(); ++i)
      if (std::find(health_recorded.begin(), health_recorded.end(), gpu_names[i]) == health_recorded.end())
        VerdictBook::add(
            book[gpus[i]], HealthState::unknown,
            reason(ReasonCode::CHECK_SKIPPED, std::string(kGpuHealthProbe) + ": no health record for this GPU",
                   kGpuHealthProbe, {}, {}));
    roll_up_gpus(book, host, gpus);
  }
}

}  // namespace ibgpu
