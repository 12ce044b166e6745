#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>

#include "core/inventory.h"
#include "core/text.h"
#include "probes/stats.h"
#include "reports/render_util.h"
#include "reports/reporter.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

using Align = TextTable::Align;

// The long tables compose their cells in the table's own text (append_* on
// TextTable::cell_text()) rather than in a string per cell: a fleet's report
// has hundreds of thousands of rows.

void append_scope(std::string& out, const Scope& scope) {
  const std::size_t begin = out.size();
  out += join(scope.hosts, "<->");
  if (!scope.devices.empty()) out += ' ' + join(scope.devices, ",");
  if (out.size() == begin) out += '-';
}

// Counts, generations and widths read better without decimals.
void append_whole_or_number(std::string& out, double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char text[24];
    out.append(text, std::to_chars(text, text + sizeof text, static_cast<long long>(v)).ptr);
  } else {
    append_number(out, v);
  }
}

std::string whole_or_number(double v) {
  std::string text;
  append_whole_or_number(text, v);
  return text;
}

void append_metric_text(std::string& out, const std::string& name, const Metric& m) {
  out += name;
  if (m.value) {
    out += ' ';
    append_number(out, *m.value);
  } else if (m.summary) {
    out += " p50 ";
    append_number(out, m.summary->p50);
    out += " [";
    append_number(out, m.summary->min);
    out += "..";
    append_number(out, m.summary->max);
    out += ']';
  } else {
    out += " -";
  }
}

// The parts of one cell, ", " between them.
class Parts {
 public:
  explicit Parts(std::string& text) : text_(text), begin_(text.size()) {}
  std::string& next() {
    if (text_.size() > begin_) text_ += ", ";
    return text_;
  }
  bool empty() const { return text_.size() == begin_; }

 private:
  std::string& text_;
  std::size_t begin_;
};

void append_probe_detail(std::string& out, const ProbeResult& p) {
  if (p.error) return void(out += *p.error);
  if (p.reason) return void(out += *p.reason);
  Parts parts(out);
  for (const auto& [name, metric] : p.metrics) append_metric_text(parts.next(), name, metric);
}

void append_reasons(std::string& out, const Verdict& v) {
  if (v.reasons.empty()) return void(out += '-');
  for (std::size_t i = 0; i < v.reasons.size(); ++i) {
    if (i) out += "; ";
    out += v.reasons[i].code;
    if (!v.reasons[i].message.empty()) out.append(": ").append(v.reasons[i].message);
  }
}

int port_count(const HostInventory& h, bool active_only) {
  int n = 0;
  for (const auto& hca : h.hcas)
    for (const auto& port : hca.ports) n += (!active_only || port.active()) ? 1 : 0;
  return n;
}

void print_hosts(const Report& r, std::ostream& out) {
  TextTable table({{"host"},
                   {"ranks"},
                   {"gpus", Align::right},
                   {"hcas", Align::right},
                   {"ports up", Align::right},
                   {"cpus", Align::right},
                   {"numa", Align::right},
                   {"versions"}});
  for (const auto& h : r.hosts) {
    // A command that does not describe hosts (probe) lists them by name only.
    if (h.versions.empty()) {
      table.add_row({h.name, join(h.ranks, ","), "-", "-", "-", "-", "-", ""});
      continue;
    }
    std::vector<std::string> versions;
    for (const auto& key : {"rdma_core", "mpi", "nccl", "nvidia_driver", "cuda_driver"})
      if (auto it = h.versions.find(key); it != h.versions.end()) versions.push_back(it->first + " " + it->second);
    table.add_row({h.name, join(h.ranks, ","), std::to_string(h.gpus.size()), std::to_string(h.hcas.size()),
                   std::to_string(port_count(h, true)) + "/" + std::to_string(port_count(h, false)),
                   std::to_string(h.cpu.logical_cpus), std::to_string(h.cpu.numa_nodes), join(versions, ", ")});
  }
  out << "Hosts\n";
  table.print(out, "  ");
}

void print_devices(const Report& r, std::ostream& out) {
  TextTable gpus({{"host"}, {"gpu", Align::right}, {"name"}, {"pci"}, {"memory GiB", Align::right}, {"uuid"}});
  TextTable ports({{"host"},
                   {"port"},
                   {"state"},
                   {"phys"},
                   {"rate"},
                   {"link layer"},
                   {"numa", Align::right},
                   {"pci"},
                   {"firmware"},
                   {"rail"}});
  for (const auto& h : r.hosts) {
    for (const auto& g : h.gpus)
      gpus.add_row({h.name, std::to_string(g.index), g.name, g.pci_bus_id,
                    g.memory_total_GiB ? format_number(*g.memory_total_GiB) : "-", g.uuid});
    for (const auto& hca : h.hcas)
      for (const auto& p : hca.ports)
        ports.add_row({h.name, hca.name + ":" + std::to_string(p.port), p.state ? p.state->name : "-",
                       p.phys_state ? p.phys_state->name : "-", p.rate_text.empty() ? "-" : p.rate_text,
                       p.link_layer.empty() ? "-" : p.link_layer, hca.numa_node ? std::to_string(*hca.numa_node) : "-",
                       hca.pci_address, hca.fw_ver, hca.rail ? "yes" : "no (no GPU near it)"});
  }
  if (!gpus.empty()) {
    out << "\nGPUs\n";
    gpus.print(out, "  ");
  }
  if (!ports.empty()) {
    out << "\nRDMA ports\n";
    ports.print(out, "  ");
  }
  TextTable topology({{"host"},
                      {"gpu", Align::right},
                      {"gpu pci"},
                      {"numa", Align::right},
                      {"nearest hca"},
                      {"hca pci"},
                      {"proximity"}});
  for (const auto& h : r.hosts)
    for (const auto& a : h.topology)
      topology.add_row({h.name, std::to_string(a.gpu), a.gpu_pci.empty() ? "-" : a.gpu_pci,
                        a.gpu_numa_node ? std::to_string(*a.gpu_numa_node) : "-", a.hca.empty() ? "-" : a.hca,
                        a.hca_pci.empty() ? "-" : a.hca_pci, a.proximity ? to_string(*a.proximity) : "-"});
  if (!topology.empty()) {
    out << "\nGPU to HCA affinity\n";
    topology.print(out, "  ");
  }
  TextTable rails({{"host"}, {"local rank", Align::right}, {"gpu pci"}, {"rail"}, {"proximity"}, {"note"}});
  for (const auto& h : r.hosts)
    for (const auto& a : h.rails)
      rails.add_row({h.name, std::to_string(a.local_rank), a.gpu_pci.empty() ? "-" : a.gpu_pci,
                     a.port.empty() ? "-" : a.port, a.proximity ? to_string(*a.proximity) : "-",
                     a.note.empty() ? "-" : a.note});
  if (!rails.empty()) {
    out << "\nRail plan (each rank's GPU and its nearest compute HCA port)\n";
    rails.print(out, "  ");
  }
}

// A group's measurement of one size (rank 0 of the group reports it).
bool is_allreduce_row(const ProbeResult& p) {
  return p.kind().all_reduce() && p.status == ProbeStatus::ok && message_size(p).has_value();
}

bool is_local_check(const ProbeResult& p) { return p.kind().stage == ProbeStage::local; }

// A row of the probe tables: id, scope, status, and what `detail` makes of the result.
void add_probe_row(TextTable& table, const ProbeResult& p, void (*detail)(std::string&, const ProbeResult&)) {
  table.cell(p.id);
  append_scope(table.cell_text(), p.scope);
  table.end_cell();
  table.cell(to_string(p.status));
  detail(table.cell_text(), p);
  table.end_cell();
  table.end_row();
}

void print_probes(const Report& r, std::ostream& out) {
  TextTable table({{"probe"}, {"scope"}, {"status"}, {"result"}});
  for (const auto& p : r.probes)
    if (!is_pair_probe(p) && !is_local_check(p) && !is_allreduce_row(p)) add_probe_row(table, p, append_probe_detail);
  if (table.empty()) return;
  out << "\nProbes\n";
  table.print(out, "  ");
}

// The few values an operator reads first; the JSON has them all.
void append_local_detail(std::string& out, const ProbeResult& p) {
  if (p.error) return void(out += *p.error);
  if (p.reason) return void(out += *p.reason);
  Parts parts(out);
  if (p.id == kGpuHealthProbe) {
    auto add = [&](std::string_view label, std::string_view name, std::string_view unit) {
      if (const auto v = typical(p, name)) {
        std::string& text = parts.next().append(label) += ' ';
        append_whole_or_number(text, *v);
        text += unit;
      }
    };
    auto pair = [&](std::string_view label, std::string_view a, std::string_view b, std::string_view sep) {
      const auto x = typical(p, a), y = typical(p, b);
      if (!x || !y) return;
      std::string& text = parts.next().append(label) += ' ';
      append_whole_or_number(text, *x);
      text += sep;
      append_whole_or_number(text, *y);
    };
    add("temp", "temp_C", " C");
    pair("ecc uncorrected vol/agg", "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate", "/");
    pair("remap pending/failed", "remap_pending", "remap_failed", "/");
    pair("pcie gen", "pcie_gen", "pcie_gen_max", " of ");
    pair("width", "pcie_width", "pcie_width_max", " of ");
    pair("nvlink up", "nvlink_links_up", "nvlink_links", " of ");
    pair("slowdown thermal/power", "thermal_slowdown", "power_slowdown", "/");
  } else if (p.id == kPortCountersProbe) {
    for (const auto& [name, m] : p.metrics) {
      const auto suffix = name.rfind("_delta");
      if (suffix == std::string::npos || suffix + 6 != name.size() || !m.value || *m.value == 0) continue;
      const std::string counter = name.substr(0, suffix);
      const auto rate = typical(p, counter + "_per_hour");
      std::string& text = parts.next().append(counter) += " +";
      append_whole_or_number(text, *m.value);
      if (rate) {
        text += " (";
        append_number(text, *rate);
        text += "/h)";
      }
    }
    if (parts.empty()) out += "no error counter rose";
  } else {
    for (const auto& [name, metric] : p.metrics) append_metric_text(parts.next(), name, metric);
  }
}

void print_local(const Report& r, std::ostream& out) {
  TextTable table({{"check"}, {"scope"}, {"status"}, {"result"}});
  for (const auto& p : r.probes)
    if (is_local_check(p)) add_probe_row(table, p, append_local_detail);
  if (table.empty()) return;
  out << "\nLocal checks\n";
  table.print(out, "  ");
}

std::string metric_cell(const ProbeResult& p, const std::string& name) {
  auto it = p.metrics.find(name);
  return it == p.metrics.end() || !it->second.value ? std::string() : format_number(*it->second.value);
}

// Per pair and size, perftest-like: bandwidth and latency columns side by side.
void print_network(const Report& r, std::ostream& out) {
  TextTable table({{"probe"},
                   {"pair"},
                   {"ranks"},
                   {"size", Align::right},
                   {"status"},
                   {"GB/s", Align::right},
                   {"Gb/s", Align::right},
                   {"peak GB/s", Align::right},
                   {"Mpps", Align::right},
                   {"p50 us", Align::right},
                   {"p99 us", Align::right},
                   {"max us", Align::right},
                   {"note"}});
  table.reserve(r.probes.size());
  auto value_cell = [&](const Metric* m) {
    if (m && m->value) append_number(table.cell_text(), *m->value);
    table.end_cell();
  };
  auto stats_cell = [&](const Metric* m, double Stats::*field) {
    if (m && m->summary) append_number(table.cell_text(), (*m->summary).*field);
    table.end_cell();
  };
  for (const auto& p : r.probes) {
    if (!is_pair_probe(p)) continue;
    table.cell(p.id);
    append_scope(table.cell_text(), p.scope);
    table.end_cell();
    table.cell_text() += join(p.scope.ranks, ",");
    table.end_cell();
    const auto size = message_size(p);
    table.cell(size ? format_size(*size) : "-");
    table.cell(to_string(p.status));
    value_cell(find_metric(p, "bw_avg_GBps"));
    value_cell(find_metric(p, "bw_avg_Gbps"));
    value_cell(find_metric(p, "bw_peak_GBps"));
    value_cell(find_metric(p, "msg_rate_Mpps"));
    const Metric* lat = find_metric(p, "lat_us");
    stats_cell(lat, &Stats::p50);
    stats_cell(lat, &Stats::p99);
    stats_cell(lat, &Stats::max);
    table.cell(p.error ? *p.error : p.reason ? *p.reason : std::string_view());
    table.end_row();
  }
  if (table.empty()) return;
  out << "\nNetwork\n";
  table.print(out, "  ");
}

std::string param_text(const ProbeResult& p, const char* key) {
  const auto it = p.params.find(key);
  if (it == p.params.end()) return "-";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string host_of_rank(const Report& r, double rank) {
  for (const auto& h : r.hosts)
    for (int hr : h.ranks)
      if (hr == static_cast<int>(rank)) return h.name + " rank " + std::to_string(hr);
  return "rank " + format_number(rank);
}

// nccl-tests' layout: one row per size, out-of-place and in-place side by side,
// per placement and group; the time is the average over ranks.
void print_allreduce(const Report& r, std::ostream& out) {
  struct Row {
    const ProbeResult* halves[2] = {nullptr, nullptr};  // out-of-place, in-place
  };
  std::vector<std::pair<std::string, Row>> rows;  // in report order
  for (const auto& p : r.probes) {
    if (!is_allreduce_row(p)) continue;
    const std::string key =
        p.id + "|" + param_text(p, "placement") + "|" + param_text(p, "group") + "|" + param_text(p, "size_B");
    auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return row.first == key; });
    if (it == rows.end()) it = rows.insert(rows.end(), {key, Row{}});
    it->second.halves[p.params.value("in_place", false) ? 1 : 0] = &p;
  }
  if (rows.empty()) return;
  TextTable table({{"probe"},
                   {"placement"},
                   {"group"},
                   {"ranks", Align::right},
                   {"size", Align::right},
                   {"count", Align::right},
                   {"type"},
                   {"time us", Align::right},
                   {"algbw", Align::right},
                   {"busbw", Align::right},
                   {"#wrong", Align::right},
                   {"ip time us", Align::right},
                   {"ip algbw", Align::right},
                   {"ip busbw", Align::right},
                   {"ip #wrong", Align::right},
                   {"slowest"}});
  for (const auto& [key, row] : rows) {
    const ProbeResult& p = row.halves[0] ? *row.halves[0] : *row.halves[1];
    std::vector<std::string> cells{p.id,
                                   param_text(p, "placement"),
                                   param_text(p, "group"),
                                   param_text(p, "nranks"),
                                   format_size(message_size(p).value_or(0)),
                                   param_text(p, "count"),
                                   param_text(p, "dtype")};
    double slowest_time = -1, slowest_rank = 0;
    for (const ProbeResult* half : row.halves) {
      if (!half) {
        cells.insert(cells.end(), {"", "", "", ""});
        continue;
      }
      cells.push_back(metric_cell(*half, "time_us_avg"));
      cells.push_back(metric_cell(*half, "algbw_GBps"));
      cells.push_back(metric_cell(*half, "busbw_GBps"));
      const std::string wrong = metric_cell(*half, "wrong_elements_total");
      cells.push_back(wrong.empty() ? "n/a" : wrong);
      const auto t = half->metrics.find("time_us_max");
      const auto s = half->metrics.find("slowest_rank");
      if (t != half->metrics.end() && t->second.value && s != half->metrics.end() && s->second.value &&
          *t->second.value > slowest_time) {
        slowest_time = *t->second.value;
        slowest_rank = *s->second.value;
      }
    }
    cells.push_back(slowest_time < 0 ? "-" : host_of_rank(r, slowest_rank) + " " + format_number(slowest_time) + " us");
    table.add_row(cells);
  }
  out << "\nAll-reduce (sum; GB/s; time averaged over ranks; ip = in-place)\n";
  table.print(out, "  ");
}

void print_verdicts(const Report& r, std::ostream& out) {
  if (r.verdicts.empty()) return;
  TextTable table({{"entity"}, {"state"}, {"action"}, {"reasons"}});
  table.reserve(r.verdicts.size());
  for (const auto& v : r.verdicts) {
    table.cell_text().append(v.entity.kind).append(" ").append(v.entity.id);
    table.end_cell();
    table.cell(to_string(v.state));
    table.cell(v.action ? to_string(*v.action) : "");
    append_reasons(table.cell_text(), v);
    table.end_cell();
    table.end_row();
  }
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

std::string duration_text(double s) {
  if (s >= 3600 && std::fmod(s, 3600) == 0) return whole_or_number(s / 3600) + " h";
  if (s >= 60 && std::fmod(s, 60) == 0) return whole_or_number(s / 60) + " min";
  return format_number(s) + " s";
}

// Per entity that was not healthy in some round: how often and why. The
// totals line counts the flaky (bad in some rounds), the always bad and the
// mostly degraded, as health/burn_in.h decides them.
void print_burn_in(const Report& r, std::ostream& out) {
  if (!r.burn_in) return;
  const BurnInStats& b = *r.burn_in;
  auto state_of = [&](const Entity& e) -> std::string {
    for (const auto& v : r.verdicts)
      if (v.entity == e) return to_string(v.state);
    return "-";
  };
  TextTable table({{"entity"},
                   {"state"},
                   {"judged", Align::right},
                   {"pass", Align::right},
                   {"healthy", Align::right},
                   {"degraded", Align::right},
                   {"failed", Align::right},
                   {"unknown", Align::right},
                   {"not passed in rounds"},
                   {"reasons (rounds)"}});
  int flaky = 0, always_bad = 0, mostly_degraded = 0, ever_not_healthy = 0;
  for (const auto& e : b.entities) {
    const int not_passed = e.failed + e.unknown;
    if (e.rounds_judged == 0 || e.healthy == e.rounds_judged) continue;
    ++ever_not_healthy;
    if (not_passed == e.rounds_judged)
      ++always_bad;
    else if (not_passed > 0)
      ++flaky;
    else if (2 * e.degraded > e.rounds_judged)
      ++mostly_degraded;
    std::vector<std::string> reasons, rounds;
    for (const auto& [code, n] : e.reasons) reasons.push_back(code + " " + std::to_string(n));
    if (not_passed == e.rounds_judged) rounds.push_back("all");
    for (std::size_t i = 0; i < e.not_passed_rounds.size() && not_passed < e.rounds_judged; ++i)
      rounds.push_back(i < 10 ? std::to_string(e.not_passed_rounds[i]) : "...");
    if (rounds.size() > 11) rounds.resize(11);
    table.add_row({e.entity.kind + " " + e.entity.id, state_of(e.entity),
                   std::to_string(e.rounds_judged) + "/" + std::to_string(b.rounds),
                   whole_or_number(std::round(1000 * e.pass_ratio) / 10) + "%", std::to_string(e.healthy),
                   std::to_string(e.degraded), std::to_string(e.failed), std::to_string(e.unknown),
                   rounds.empty() ? "-" : join(rounds, ","), reasons.empty() ? "-" : join(reasons, ", ")});
  }
  out << "\nBurn-in: " << b.rounds << (b.rounds == 1 ? " round" : " rounds");
  if (b.duration_s || b.interval_s) {
    std::vector<std::string> asked;
    if (b.duration_s) asked.push_back("for " + duration_text(*b.duration_s));
    if (b.interval_s) asked.push_back("every " + duration_text(*b.interval_s));
    out << " (" << join(asked, ", ") << ")";
  }
  if (!b.first_round_started.empty()) out << ", " << b.first_round_started << " to " << b.last_round_finished;
  out << '\n';
  if (!table.empty()) table.print(out, "  ");
  out << "  total: " << b.entities.size() << " entities, " << ever_not_healthy
      << " not healthy in some round: " << flaky << " flaky, " << always_bad << " bad in every round, "
      << mostly_degraded << " degraded in most\n";
}

}  // namespace

void TableReporter::render(const Report& r, std::ostream& out) const {
  out << r.tool.name << " " << r.tool.version << " (" << r.tool.git << ")  run " << r.run.id << "  " << r.run.ranks
      << (r.run.ranks == 1 ? " rank" : " ranks") << " on " << r.hosts.size()
      << (r.hosts.size() == 1 ? " host" : " hosts") << "  started " << r.run.started << "\n\n";
  print_hosts(r, out);
  print_devices(r, out);
  print_probes(r, out);
  print_local(r, out);
  print_network(r, out);
  print_allreduce(r, out);
  print_verdicts(r, out);
  print_admission(r, out);
  print_burn_in(r, out);
  for (const auto& note : r.run.notes) out << "\nnote: " << printable(note);
  if (!r.run.notes.empty()) out << '\n';
  out << "\nSummary: " << to_string(r.summary.state) << ", exit " << r.summary.exit_code;
  if (!r.verdicts.empty())
    out << "  (admit " << r.summary.admit.size() << ", admit degraded " << r.summary.admit_degraded.size() << ", drain "
        << r.summary.drain.size() << ")";
  out << '\n';
}

}  // namespace ibgpu
