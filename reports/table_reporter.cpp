#include <algorithm>
#include <sstream>

#include "probes/stats.h"
#include "reports/reporter.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

using Align = TextTable::Align;

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : sep) + item;
  return text;
}

std::string join_ints(const std::vector<int>& items) {
  std::vector<std::string> texts;
  for (int i : items) texts.push_back(std::to_string(i));
  return join(texts, ",");
}

std::string scope_text(const Scope& scope) {
  std::string text = join(scope.hosts, "<->");
  if (!scope.devices.empty()) text += " " + join(scope.devices, ",");
  return text.empty() ? "-" : text;
}

std::string metric_text(const std::string& name, const Metric& m) {
  if (m.value) return name + " " + format_number(*m.value);
  if (m.summary)
    return name + " p50 " + format_number(m.summary->p50) + " [" + format_number(m.summary->min) + ".." +
           format_number(m.summary->max) + "]";
  return name + " -";
}

std::string probe_detail(const ProbeResult& p) {
  if (p.error) return *p.error;
  if (p.reason) return *p.reason;
  std::vector<std::string> parts;
  for (const auto& [name, metric] : p.metrics) parts.push_back(metric_text(name, metric));
  return join(parts, ", ");
}

std::string reasons_text(const Verdict& v) {
  std::vector<std::string> parts;
  for (const auto& r : v.reasons) parts.push_back(r.code + (r.message.empty() ? "" : ": " + r.message));
  return parts.empty() ? "-" : join(parts, "; ");
}

int port_count(const HostInventory& h, bool active_only) {
  int n = 0;
  for (const auto& hca : h.hcas)
    for (const auto& port : hca.ports) n += (!active_only || port.active()) ? 1 : 0;
  return n;
}

void print_hosts(const Report& r, std::ostream& out) {
  TextTable table({{"host"}, {"ranks"}, {"gpus", Align::right}, {"hcas", Align::right},
                   {"ports up", Align::right}, {"cpus", Align::right}, {"numa", Align::right}, {"versions"}});
  for (const auto& h : r.hosts) {
    // A command that does not describe hosts (probe) lists them by name only.
    if (h.versions.empty()) {
      table.add_row({h.name, join_ints(h.ranks), "-", "-", "-", "-", "-", ""});
      continue;
    }
    std::vector<std::string> versions;
    for (const auto& key : {"rdma_core", "mpi", "nccl", "nvidia_driver", "cuda_driver"})
      if (auto it = h.versions.find(key); it != h.versions.end()) versions.push_back(it->first + " " + it->second);
    table.add_row({h.name, join_ints(h.ranks), std::to_string(h.gpus.size()), std::to_string(h.hcas.size()),
                   std::to_string(port_count(h, true)) + "/" + std::to_string(port_count(h, false)),
                   std::to_string(h.cpu.logical_cpus), std::to_string(h.cpu.numa_nodes), join(versions, ", ")});
  }
  out << "Hosts\n";
  table.print(out, "  ");
}

void print_devices(const Report& r, std::ostream& out) {
  TextTable gpus({{"host"}, {"gpu", Align::right}, {"name"}, {"pci"}, {"memory GiB", Align::right}, {"uuid"}});
  TextTable ports({{"host"}, {"port"}, {"state"}, {"phys"}, {"rate"}, {"link layer"}, {"numa", Align::right},
                   {"pci"}, {"firmware"}});
  for (const auto& h : r.hosts) {
    for (const auto& g : h.gpus)
      gpus.add_row({h.name, std::to_string(g.index), g.name, g.pci_bus_id,
                    g.memory_total_GiB ? format_number(*g.memory_total_GiB) : "-", g.uuid});
    for (const auto& hca : h.hcas)
      for (const auto& p : hca.ports)
        ports.add_row({h.name, hca.name + ":" + std::to_string(p.port), p.state ? p.state->name : "-",
                       p.phys_state ? p.phys_state->name : "-", p.rate_text.empty() ? "-" : p.rate_text,
                       p.link_layer.empty() ? "-" : p.link_layer,
                       hca.numa_node ? std::to_string(*hca.numa_node) : "-", hca.pci_address, hca.fw_ver});
  }
  if (!gpus.empty()) {
    out << "\nGPUs\n";
    gpus.print(out, "  ");
  }
  if (!ports.empty()) {
    out << "\nRDMA ports\n";
    ports.print(out, "  ");
  }
}

bool is_network(const ProbeResult& p) { return p.id.rfind("net.", 0) == 0 && p.scope.hosts.size() == 2; }

void print_probes(const Report& r, std::ostream& out) {
  TextTable table({{"probe"}, {"scope"}, {"status"}, {"result"}});
  for (const auto& p : r.probes)
    if (!is_network(p)) table.add_row({p.id, scope_text(p.scope), to_string(p.status), probe_detail(p)});
  if (table.empty()) return;
  out << "\nProbes\n";
  table.print(out, "  ");
}

std::string metric_cell(const ProbeResult& p, const std::string& name, double Stats::*field = nullptr) {
  auto it = p.metrics.find(name);
  if (it == p.metrics.end()) return "";
  const Metric& m = it->second;
  if (field && m.summary) return format_number((*m.summary).*field);
  if (!field && m.value) return format_number(*m.value);
  return "";
}

// Per pair and size, perftest-like: bandwidth and latency columns side by side.
void print_network(const Report& r, std::ostream& out) {
  TextTable table({{"probe"}, {"pair"}, {"ranks"}, {"size", Align::right}, {"status"},
                   {"GB/s", Align::right}, {"Gb/s", Align::right}, {"peak GB/s", Align::right},
                   {"Mpps", Align::right}, {"p50 us", Align::right}, {"p99 us", Align::right},
                   {"max us", Align::right}, {"note"}});
  for (const auto& p : r.probes) {
    if (!is_network(p)) continue;
    const auto size = p.params.find("size_B");
    table.add_row({p.id, scope_text(p.scope), join_ints(p.scope.ranks),
                   size != p.params.end() ? format_size(size->get<std::size_t>()) : "-", to_string(p.status),
                   metric_cell(p, "bw_avg_GBps"), metric_cell(p, "bw_avg_Gbps"), metric_cell(p, "bw_peak_GBps"),
                   metric_cell(p, "msg_rate_Mpps"), metric_cell(p, "lat_us", &Stats::p50),
                   metric_cell(p, "lat_us", &Stats::p99), metric_cell(p, "lat_us", &Stats::max),
                   p.error.value_or(p.reason.value_or(""))});
  }
  if (table.empty()) return;
  out << "\nNetwork\n";
  table.print(out, "  ");
}

void print_verdicts(const Report& r, std::ostream& out) {
  if (r.verdicts.empty()) return;
  TextTable table({{"entity"}, {"state"}, {"action"}, {"reasons"}});
  for (const auto& v : r.verdicts)
    table.add_row({v.entity.kind + " " + v.entity.id, to_string(v.state),
                   v.action ? to_string(*v.action) : "", reasons_text(v)});
  out << "\nVerdicts\n";
  table.print(out, "  ");
}

// One line per node: what the pool may do with it and with which parts.
void print_admission(const Report& r, std::ostream& out) {
  TextTable table({{"node"}, {"state"}, {"action"}, {"gpus", Align::right}, {"rails", Align::right}, {"excluded"}});
  for (const auto& v : r.verdicts) {
    if (v.entity.kind != "node") continue;
    auto count = [&](bool gpu) {
      auto is_kind = [&](const std::string& part) { return (part.rfind("gpu", 0) == 0) == gpu; };
      const auto usable = std::count_if(v.usable.begin(), v.usable.end(), is_kind);
      const auto all = usable + std::count_if(v.excluded.begin(), v.excluded.end(), is_kind);
      return all == 0 ? std::string("-") : std::to_string(usable) + "/" + std::to_string(all);
    };
    table.add_row({v.entity.id, to_string(v.state), v.action ? to_string(*v.action) : "-", count(true), count(false),
                   v.excluded.empty() ? "-" : join(v.excluded, ",")});
  }
  if (table.empty()) return;
  out << "\nAdmission\n";
  table.print(out, "  ");
}

}  // namespace

void TableReporter::render(const Report& r, std::ostream& out) const {
  out << r.tool.name << " " << r.tool.version << " (" << r.tool.git << ")  run " << r.run.id << "  "
      << r.run.ranks << (r.run.ranks == 1 ? " rank" : " ranks") << " on " << r.hosts.size()
      << (r.hosts.size() == 1 ? " host" : " hosts") << "  started " << r.run.started << "\n\n";
  print_hosts(r, out);
  print_devices(r, out);
  print_probes(r, out);
  print_network(r, out);
  print_verdicts(r, out);
  print_admission(r, out);
  for (const auto& note : r.run.notes) out << "\nnote: " << note;
  if (!r.run.notes.empty()) out << '\n';
  out << "\nSummary: " << to_string(r.summary.state) << ", exit " << r.summary.exit_code;
  if (!r.verdicts.empty())
    out << "  (admit " << r.summary.admit.size() << ", admit degraded " << r.summary.admit_degraded.size()
        << ", drain " << r.summary.drain.size() << ")";
  out << '\n';
}

}  // namespace ibgpu
