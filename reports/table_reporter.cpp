#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <string_view>

#include "core/inventory.h"
#include "core/text.h"
#include "core/units.h"
#include "reports/render_util.h"
#include "reports/reporter.h"
#include "reports/table_summary.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

using Align = TextTable::Align;
using Narrow = TextTable::Narrow;

// How the table names a missing driver: the CUDA runtime's words for it do not say so.
std::string plain_words(std::string text) {
  static constexpr std::string_view kCuda = "CUDA driver version is insufficient for CUDA runtime version";
  if (text.find(kCuda) != std::string::npos) text += " (no NVIDIA driver, or one older than the CUDA runtime)";
  return text;
}

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
    // A count ("gpu_count 8", not "8.000"); a whole bandwidth or time keeps its significant digits.
    if (name.ends_with("_count"))
      append_whole_or_number(out, *m.value);
    else
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
  if (p.reason) return void(out += plain_words(*p.reason));
  Parts parts(out);
  for (const auto& [name, metric] : p.metrics) append_metric_text(parts.next(), name, metric);
}

// A probe id inside a reason's message ("... (mlx5_0:1<->mlx5_0:1): net.verbs.write_bw: no answer ..."):
// the text without it, and the id; no id when none is there.
bool is_probe_id(std::string_view word) {
  if (word.find('.') == std::string_view::npos || word.front() == '.' || word.back() == '.') return false;
  return std::all_of(word.begin(), word.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_'; });
}

std::pair<std::string_view, std::string> probe_and_text(std::string_view message) {
  for (std::size_t begin = 0; begin < message.size();) {
    const std::size_t colon = message.find(": ", begin);
    if (colon == std::string_view::npos) break;
    if (is_probe_id(message.substr(begin, colon - begin)))
      return {message.substr(begin, colon - begin),
              std::string(message.substr(0, begin)) + std::string(message.substr(colon + 2))};
    begin = colon + 2;
  }
  return {{}, std::string(message)};
}

// A verdict's reasons, one line each. A message that several checks gave under
// one code (a missing library named by every GPU check) is shown once, with
// the checks after it.
std::vector<std::string> reason_lines(const Verdict& v) {
  struct Line {
    ReasonCode code;
    std::string text;
    std::vector<std::string_view> probes;
    const std::string* message;
    const Reason* first;  // its code_text: the confidence's word, where it has one, follows the code
  };
  std::vector<Line> lines;
  for (const auto& reason : v.reasons) {
    auto [probe, text] = probe_and_text(reason.message);
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const Line& l) { return l.code == reason.code && l.text == text; });
    if (it == lines.end())
      it = lines.insert(lines.end(), Line{reason.code, std::move(text), {}, &reason.message, &reason});
    if (!probe.empty()) it->probes.push_back(probe);
  }
  std::vector<std::string> out;
  for (const auto& l : lines) {
    std::string line = code_text(*l.first);
    const std::string& text = l.probes.size() > 1 ? l.text : *l.message;  // one check: its message as it is
    if (!text.empty()) line.append(": ").append(plain_words(text));
    if (l.probes.size() > 1) {
      line += " (";
      for (std::size_t i = 0; i < l.probes.size(); ++i) line.append(i ? ", " : "").append(l.probes[i]);
      line += ')';
    }
    out.push_back(std::move(line));
  }
  return out;
}

// The parts of one node as one name: "gpu[0-7]", "mlx5_[0-7]:1" (the number before a
// common ":port"), else as a hostlist.
std::string fold_parts(const std::vector<std::string>& parts) {
  const auto colon = parts.front().rfind(':');
  if (colon != std::string::npos) {
    const std::string suffix = parts.front().substr(colon);
    std::vector<std::string> stems;
    for (const auto& part : parts)
      if (part.ends_with(suffix)) stems.push_back(part.substr(0, part.size() - suffix.size()));
    const std::string folded = hostlist(stems);
    const bool one_group = std::count(folded.begin(), folded.end(), '[') == 1 && folded.back() == ']' &&
                           folded.find(',') > folded.find('[');
    if (stems.size() == parts.size() && one_group) return folded + suffix;
  }
  return hostlist(parts);
}

int port_count(const HostInventory& h, bool active_only) {
  int n = 0;
  for (const auto& hca : h.hcas)
    for (const auto& port : hca.ports) n += (!active_only || port.active()) ? 1 : 0;
  return n;
}

std::vector<std::string> host_cells(const HostInventory& h) {
  // A command that does not describe hosts (probe) lists them by name only.
  if (h.versions.empty()) return {h.name, join(h.ranks, ","), "-", "-", "-", "-", "-", ""};
  std::vector<std::string> versions;
  for (const auto& key : {"rdma_core", "mpi", "nccl", "nvidia_driver", "cuda_driver"})
    if (auto it = h.versions.find(key); it != h.versions.end()) versions.push_back(it->first + " " + it->second);
  return {h.name,
          join(h.ranks, ","),
          std::to_string(h.gpus.size()),
          std::to_string(h.hcas.size()),
          std::to_string(port_count(h, true)) + "/" + std::to_string(port_count(h, false)),
          std::to_string(h.cpu.logical_cpus),
          std::to_string(h.cpu.numa_nodes),
          join(versions, ", ")};
}

// Brief: only the hosts unlike most (devices, ports up, CPUs, versions), and a line for the rest.
void print_hosts(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  TextTable table({{"host"},
                   {"ranks", Align::left, false, Narrow::fold},
                   {"gpus", Align::right},
                   {"hcas", Align::right},
                   {"ports up", Align::right},
                   {"cpus", Align::right},
                   {"numa", Align::right},
                   {"versions", Align::left, true}});
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::size_t> shapes;  // all cells but name and ranks -> hosts
  for (const auto& h : r.hosts) {
    rows.push_back(host_cells(h));
    ++shapes[join(std::vector<std::string>(rows.back().begin() + 2, rows.back().end()), "|")];
  }
  std::string usual;
  std::size_t alike = 0;
  for (const auto& [shape, n] : shapes)
    if (n > alike) std::tie(usual, alike) = std::tie(shape, n);
  for (const auto& row : rows)
    if (!brief || join(std::vector<std::string>(row.begin() + 2, row.end()), "|") != usual) table.add_row(row);
  out << "Hosts\n";
  if (!table.empty()) table.print(out, "  ", width);
  if (!brief || alike == 0) return;
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
    return join(std::vector<std::string>(row.begin() + 2, row.end()), "|") == usual;
  });
  const auto& row = *it;
  out << "  " << (table.empty() ? "all " : "and ") << grouped(alike) << " hosts alike: " << row[2] << " GPUs, "
      << row[3] << " HCAs, ports up " << row[4] << ", " << row[5] << " CPUs, " << row[6] << " NUMA nodes\n";
}

// Brief: the ports that are not up; the GPUs, the affinity and the rail plan are in the JSON.
void print_devices(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  TextTable gpus(
      {{"host"}, {"gpu", Align::right}, {"name"}, {"pci"}, {"memory GiB", Align::right}, {"uuid", Align::left, true}});
  TextTable ports({{"host"},
                   {"port"},
                   {"state"},
                   {"phys"},
                   {"rate"},
                   {"link layer", Align::left, false, Narrow::optional},
                   {"numa", Align::right, false, Narrow::optional},
                   {"pci", Align::left, false, Narrow::optional},
                   {"firmware", Align::left, false, Narrow::optional},
                   {"rail"}});
  for (const auto& h : r.hosts) {
    for (const auto& g : h.gpus)
      if (!brief)
        gpus.add_row({h.name, std::to_string(g.index), g.name, g.pci_bus_id,
                      g.memory_total_GiB ? format_number(*g.memory_total_GiB) : "-", g.uuid});
    for (const auto& hca : h.hcas)
      for (const auto& p : hca.ports)
        if (!brief || !p.active())
          ports.add_row({h.name, hca.name + ":" + std::to_string(p.port), p.state ? p.state->name : "-",
                         p.phys_state ? p.phys_state->name : "-", p.rate_text.empty() ? "-" : p.rate_text,
                         p.link_layer.empty() ? "-" : p.link_layer,
                         hca.numa_node ? std::to_string(*hca.numa_node) : "-", hca.pci_address, hca.fw_ver,
                         hca.rail ? "yes" : "no (no GPU near it)"});
  }
  if (!gpus.empty()) {
    out << "\nGPUs\n";
    gpus.print(out, "  ", width);
  }
  if (!ports.empty()) {
    out << (brief ? "\nRDMA ports not up\n" : "\nRDMA ports\n");
    ports.print(out, "  ", width);
  }
  if (brief) return;
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
    topology.print(out, "  ", width);
  }
  TextTable rails(
      {{"host"}, {"local rank", Align::right}, {"gpu pci"}, {"rail"}, {"proximity"}, {"note", Align::left, true}});
  for (const auto& h : r.hosts)
    for (const auto& a : h.rails)
      rails.add_row({h.name, std::to_string(a.local_rank), a.gpu_pci.empty() ? "-" : a.gpu_pci,
                     a.port.empty() ? "-" : a.port, a.proximity ? to_string(*a.proximity) : "-",
                     a.note.empty() ? "-" : a.note});
  if (!rails.empty()) {
    out << "\nRail plan (each rank's GPU and its nearest compute HCA port)\n";
    rails.print(out, "  ", width);
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

void print_probes(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  TextTable table({{"probe"}, {"scope", Align::left, false, Narrow::fold}, {"status"}, {"result", Align::left, true}});
  for (const auto& p : r.probes)
    if (!is_pair_probe(p) && !is_local_check(p) && !is_allreduce_row(p) && (!brief || p.status != ProbeStatus::ok))
      add_probe_row(table, p, append_probe_detail);
  if (table.empty()) return;
  out << (brief ? "\nProbes not ok\n" : "\nProbes\n");
  table.print(out, "  ", width);
}

// The few values an operator reads first; the JSON has them all.
void append_local_detail(std::string& out, const ProbeResult& p) {
  if (p.error) return void(out += *p.error);
  if (p.reason) return void(out += plain_words(*p.reason));
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
    add("temp", metrics::temp_C, " C");
    pair("ecc uncorrected vol/agg", metrics::ecc_uncorrected_volatile, metrics::ecc_uncorrected_aggregate, "/");
    pair("remap pending/failed", metrics::remap_pending, metrics::remap_failed, "/");
    pair("pcie gen", metrics::pcie_gen, metrics::pcie_gen_max, " of ");
    pair("width", metrics::pcie_width, metrics::pcie_width_max, " of ");
    pair("nvlink up", metrics::nvlink_links_up, metrics::nvlink_links, " of ");
    add("nvlink slowest", metrics::nvlink_speed_MBps_min, " MB/s");
    pair("nvlink recoveries/errors", metrics::nvlink_recoveries, metrics::nvlink_errors, "/");
    add("fabric registered", metrics::fabric_registered, "");
    pair("slowdown thermal/power", metrics::thermal_slowdown, metrics::power_slowdown, "/");
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

void print_local(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  TextTable table({{"check"}, {"scope", Align::left, false, Narrow::fold}, {"status"}, {"result", Align::left, true}});
  for (const auto& p : r.probes)
    if (is_local_check(p) && (!brief || p.status != ProbeStatus::ok)) add_probe_row(table, p, append_local_detail);
  if (table.empty()) return;
  out << (brief ? "\nLocal checks not ok\n" : "\nLocal checks\n");
  table.print(out, "  ", width);
}

std::string metric_cell(const ProbeResult& p, const std::string& name) {
  auto it = p.metrics.find(name);
  return it == p.metrics.end() || !it->second.value ? std::string() : format_number(*it->second.value);
}

// The pair's hosts, and its rail as one name when both ends use the same
// device ("mlx5_0:1"), else both ("mlx5_0:1,mlx5_1:1").
void append_pair(std::string& out, const Scope& scope) {
  out += join(scope.hosts, "<->");
  if (out.empty()) out += '-';
}

void append_rail(std::string& out, const Scope& scope) {
  const auto& d = scope.devices;
  if (d.empty())
    out += '-';
  else if (d.size() == 2 && d[0] == d[1])
    out += d[0];
  else
    out += join(d, ",");
}

// The rows of the brief table's network part: the pairs that are not ok, up to this many.
constexpr std::size_t kBriefNetworkRows = 100;

// Per pair and size, perftest-like: bandwidth and latency columns side by side
// (the ranks and the peak bandwidth are in the JSON). Brief: the per-rail
// summary, then only the pairs that are not ok.
void print_network(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  if (brief) print_rail_summary(r, out, width);
  TextTable table({{"probe"},
                   {"pair", Align::left, false, Narrow::fold},
                   {"rail", Align::left, false, Narrow::fold},
                   {"size", Align::right},
                   {"status"},
                   {"GB/s", Align::right},
                   {"Gb/s", Align::right, false, Narrow::optional},
                   {"Mpps", Align::right, false, Narrow::optional},
                   {"p50 us", Align::right},
                   {"p99 us", Align::right, false, Narrow::optional},
                   {"max us", Align::right, false, Narrow::optional},
                   {"note", Align::left, true}});
  if (!brief) table.reserve(r.probes.size());
  auto value_cell = [&](const Metric* m) {
    if (m && m->value) append_number(table.cell_text(), *m->value);
    table.end_cell();
  };
  auto stats_cell = [&](const Metric* m, double Stats::*field) {
    if (m && m->summary) append_number(table.cell_text(), (*m->summary).*field);
    table.end_cell();
  };
  std::size_t not_ok = 0;
  for (const auto& p : r.probes) {
    if (!is_pair_probe(p) || (brief && p.status == ProbeStatus::ok)) continue;
    if (brief && ++not_ok > kBriefNetworkRows) continue;
    table.cell(p.id);
    append_pair(table.cell_text(), p.scope);
    table.end_cell();
    append_rail(table.cell_text(), p.scope);
    table.end_cell();
    const auto size = message_size(p);
    table.cell(size ? format_size(*size) : "-");
    table.cell(to_string(p.status));
    value_cell(find_metric(p, metrics::bw_avg_GBps));
    value_cell(find_metric(p, metrics::bw_avg_Gbps));
    value_cell(find_metric(p, metrics::msg_rate_Mpps));
    const Metric* lat = find_metric(p, metrics::lat_us);
    stats_cell(lat, &Stats::p50);
    stats_cell(lat, &Stats::p99);
    stats_cell(lat, &Stats::max);
    table.cell(p.error ? *p.error : p.reason ? *p.reason : std::string_view());
    table.end_row();
  }
  if (table.empty()) return;
  out << (brief ? "\nNetwork: the pairs not ok\n" : "\nNetwork\n");
  table.print(out, "  ", width);
  if (not_ok > kBriefNetworkRows)
    out << "  ... and " << grouped(not_ok - kBriefNetworkRows) << " more pairs not ok (in the JSON report)\n";
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

// A group's hosts in a few words: a rail group spans the fleet.
std::string short_hostlist(const std::vector<std::string>& hosts) {
  constexpr std::size_t kAtMost = 32;
  std::string text = hostlist(hosts);
  if (text.size() > kAtMost) text = text.substr(0, kAtMost - 3) + "...";
  return text;
}

// A group's results of one size: out-of-place and in-place.
struct AllreduceRow {
  const ProbeResult* halves[2] = {nullptr, nullptr};  // out-of-place, in-place
};

// Brief: per probe, placement and size, the spread of bus bandwidth over the
// groups (one per node, rail or job), and the group with the lowest.
void print_allreduce_summary(const std::vector<std::pair<std::string, AllreduceRow>>& rows, std::ostream& out,
                             LineWidth width) {
  struct Spread {
    std::vector<std::pair<double, const ProbeResult*>> busbw;
    std::size_t groups = 0;
    double wrong = 0;
  };
  std::vector<std::pair<std::string, Spread>> spreads;  // in report order
  for (const auto& [key, row] : rows) {
    const ProbeResult& p = row.halves[0] ? *row.halves[0] : *row.halves[1];
    const std::string kind = p.id + "|" + param_text(p, "placement") + "|" + format_size(message_size(p).value_or(0));
    auto it = std::find_if(spreads.begin(), spreads.end(), [&](const auto& s) { return s.first == kind; });
    if (it == spreads.end()) it = spreads.insert(spreads.end(), {kind, Spread{}});
    ++it->second.groups;
    if (const auto busbw = typical(p, metrics::busbw_GBps)) it->second.busbw.emplace_back(*busbw, &p);
    for (const ProbeResult* half : row.halves)
      if (half) it->second.wrong += typical(*half, metrics::wrong_elements_total).value_or(0);
  }
  TextTable table({{"probe"},
                   {"placement"},
                   {"size", Align::right},
                   {"groups", Align::right, false, Narrow::optional},
                   {"busbw min", Align::right},
                   {"p50", Align::right},
                   {"max", Align::right, false, Narrow::optional},
                   {"#wrong", Align::right},
                   {"lowest", Align::left, false, Narrow::fold}});
  for (auto& [kind, s] : spreads) {
    std::sort(s.busbw.begin(), s.busbw.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto at = [&](double q) {
      return s.busbw.empty()
                 ? std::string()
                 : format_number(s.busbw[static_cast<std::size_t>(q * static_cast<double>(s.busbw.size() - 1))].first);
    };
    const std::string probe = kind.substr(0, kind.find('|'));
    const std::string rest = kind.substr(kind.find('|') + 1);
    table.add_row({probe, rest.substr(0, rest.find('|')), rest.substr(rest.find('|') + 1), grouped(s.groups), at(0),
                   at(0.5), at(1), whole_or_number(s.wrong),
                   s.busbw.empty() ? "" : short_hostlist(s.busbw.front().second->scope.hosts)});
  }
  out << "\nAll-reduce per size (sum; bus bandwidth GB/s over the groups)\n";
  table.print(out, "  ", width);
}

// nccl-tests' layout: one row per size, out-of-place and in-place side by side,
// per placement and group; the time is the average over ranks.
void print_allreduce(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  std::vector<std::pair<std::string, AllreduceRow>> rows;  // in report order
  std::map<std::string, std::size_t> index;                // key -> row
  for (const auto& p : r.probes) {
    if (!is_allreduce_row(p)) continue;
    const std::string key =
        p.id + "|" + param_text(p, "placement") + "|" + param_text(p, "group") + "|" + param_text(p, "size_B");
    const auto [at, added] = index.emplace(key, rows.size());
    if (added) rows.push_back({key, AllreduceRow{}});
    rows[at->second].second.halves[p.params.value("in_place", false) ? 1 : 0] = &p;
  }
  if (rows.empty()) return;
  if (brief) return print_allreduce_summary(rows, out, width);
  // The in-place half, when the run has one, is a row of its own under the out-of-place one:
  // side by side (nccl-tests' layout) the row would not fit 120 columns.
  const bool in_place = std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row.second.halves[1]; });
  std::vector<TextTable::Column> columns{{"probe"},
                                         {"placement"},
                                         {"group", Align::left, false, Narrow::fold},
                                         {"ranks", Align::right},
                                         {"size", Align::right},
                                         {"count", Align::right, false, Narrow::optional},
                                         {"type", Align::left, false, Narrow::optional}};
  if (in_place) columns.push_back({"in place"});
  columns.insert(columns.end(), {{"time us", Align::right, false, Narrow::optional},
                                 {"algbw", Align::right, false, Narrow::optional},
                                 {"busbw", Align::right},
                                 {"#wrong", Align::right},
                                 {"slowest", Align::left, true}});
  TextTable table(std::move(columns));
  for (const auto& [key, row] : rows) {
    double slowest_time = -1, slowest_rank = 0;
    for (const ProbeResult* half : row.halves) {
      if (!half) continue;
      const auto t = half->metrics.find(metrics::time_us_max);
      const auto s = half->metrics.find(metrics::slowest_rank);
      if (t != half->metrics.end() && t->second.value && s != half->metrics.end() && s->second.value &&
          *t->second.value > slowest_time) {
        slowest_time = *t->second.value;
        slowest_rank = *s->second.value;
      }
    }
    bool first = true;
    for (const ProbeResult* half : row.halves) {
      if (!half) continue;
      const ProbeResult& p = *half;
      std::vector<std::string> cells{first ? p.id : "",
                                     first ? param_text(p, "placement") : "",
                                     first ? param_text(p, "group") : "",
                                     first ? param_text(p, "nranks") : "",
                                     first ? format_size(message_size(p).value_or(0)) : "",
                                     first ? param_text(p, "count") : "",
                                     first ? param_text(p, "dtype") : ""};
      if (in_place) cells.push_back(half == row.halves[1] ? "yes" : "no");
      cells.push_back(metric_cell(p, metrics::time_us_avg));
      cells.push_back(metric_cell(p, metrics::algbw_GBps));
      cells.push_back(metric_cell(p, metrics::busbw_GBps));
      const std::string wrong = metric_cell(p, metrics::wrong_elements_total);
      cells.push_back(wrong.empty() ? "n/a" : wrong);
      // The slowest rank on the size's last row; with an in-place row the column is too far
      // right to stay beside it and goes below, so the text says what it is.
      const bool last = half == row.halves[1] || !row.halves[1];
      std::string slowest;
      if (last && slowest_time >= 0)
        slowest = std::string(in_place ? "slowest: " : "") + host_of_rank(r, slowest_rank) + " " +
                  format_number(slowest_time) + " us";
      cells.push_back(slowest);
      table.add_row(cells);
      first = false;
    }
  }
  out << "\nAll-reduce (sum; GB/s; time averaged over ranks)\n";
  table.print(out, "  ", width);
}

// Verdicts of one node's parts of one kind that agree (state and reasons)
// fold into one row: "gpu node1/gpu[0-7]" for a node without a driver.
void print_verdicts(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  if (r.verdicts.empty()) return;
  TextTable table({{"entity"}, {"state"}, {"action"}, {"reasons", Align::left, true}});
  table.reserve(r.verdicts.size());
  for (std::size_t i = 0; i < r.verdicts.size();) {
    const Verdict& v = r.verdicts[i];
    std::size_t next = i + 1;
    if (brief && v.state == HealthState::healthy) {
      i = next;
      continue;
    }
    const std::vector<std::string> lines = reason_lines(v);
    std::string entity = entity_text(v.entity);
    if (!v.entity.part().empty() && !v.action) {
      std::vector<std::string> parts{std::string(v.entity.part())};
      for (; next < r.verdicts.size(); ++next) {
        const Verdict& w = r.verdicts[next];
        if (w.entity.kind() != v.entity.kind() || w.entity.host() != v.entity.host() || w.entity.part().empty() ||
            w.state != v.state || w.action || reason_lines(w) != lines)
          break;
        parts.push_back(std::string(w.entity.part()));
      }
      if (parts.size() > 1)
        entity = std::string(to_string(v.entity.kind())) + " " + std::string(v.entity.host()) + "/" + fold_parts(parts);
    }
    table.add_row({entity, to_string(v.state), v.action ? to_string(*v.action) : "", lines.empty() ? "" : lines[0]});
    for (std::size_t k = 1; k < lines.size(); ++k) table.add_row({"", "", "", lines[k]});
    i = next;
  }
  if (table.empty()) return;
  out << (brief ? "\nVerdicts not healthy\n" : "\nVerdicts\n");
  table.print(out, "  ", width);
}

// check --cabling: one order per cable to act on (health/work_orders.h).
void print_work_orders(const Report& r, std::ostream& out, LineWidth width) {
  if (r.work_orders.empty()) return;
  out << "\nWork orders (" << r.work_orders.size() << ", one per cable)\n";
  for (const WorkOrder& order : r.work_orders) {
    const std::vector<std::string> lines = work_order_lines(order);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string indent = i == 0 ? "  " : "      ";
      const std::string text = printable(lines[i]);  // wrap_words' lines are views into it
      for (const auto line : wrap_words(text, width.columns - indent.size())) out << indent << line << '\n';
    }
  }
}

// One line per node: what the pool may do with it and with which parts.
void print_admission(const Report& r, std::ostream& out, bool brief, LineWidth width) {
  TextTable table({{"node"},
                   {"state"},
                   {"action"},
                   {"gpus", Align::right},
                   {"rails", Align::right},
                   {"excluded", Align::left, false, Narrow::fold}});
  const PartCounts count(r);
  for (const auto& v : r.verdicts) {
    if (v.entity.kind() != EntityKind::node || (brief && v.action == Action::admit)) continue;
    table.add_row({v.entity.id(), to_string(v.state), v.action ? to_string(*v.action) : "-", count(v, true),
                   count(v, false), v.excluded.empty() ? "-" : join(v.excluded, ",")});
  }
  if (table.empty()) return;
  out << (brief ? "\nAdmission (the nodes not admitted as they are)\n" : "\nAdmission\n");
  table.print(out, "  ", width);
}

// Per entity that was not healthy in some round, or flagged: how often and why. The totals line
// counts the entities by the class health/burn_in.h gave them.
void print_burn_in(const Report& r, std::ostream& out, LineWidth width) {
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
                   {"bad rounds", Align::left, false, Narrow::fold},
                   {"reasons (rounds)", Align::left, true}});
  std::map<BurnInClass, int> in_class;
  int ever_not_healthy = 0;
  for (const auto& e : b.entities) {
    if (!e.burn_in_class || *e.burn_in_class == BurnInClass::healthy) continue;
    ++in_class[*e.burn_in_class];
    ++ever_not_healthy;
    const bool every_round = e.failed + e.unknown == e.rounds_judged;  // not passed in any
    std::vector<std::string> reasons, rounds;
    for (const auto& [code, n] : e.reasons) reasons.push_back(std::string(to_string(code)) + " " + std::to_string(n));
    if (every_round) rounds.push_back("all");
    for (std::size_t i = 0; i < e.not_passed_rounds.size() && !every_round; ++i)
      rounds.push_back(i < 10 ? std::to_string(e.not_passed_rounds[i]) : "...");
    if (rounds.size() > 11) rounds.resize(11);
    table.add_row({entity_text(e.entity), state_of(e.entity),
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
  if (!table.empty()) table.print(out, "  ", width);
  out << "  total: " << b.entities.size() << " entities, " << ever_not_healthy
      << " not healthy in some round or flagged: " << in_class[BurnInClass::flaky] << " flaky, "
      << in_class[BurnInClass::seen_once] << " seen once, " << in_class[BurnInClass::bad_every_round]
      << " bad in every round, " << in_class[BurnInClass::degraded_every_round] << " degraded throughout, "
      << in_class[BurnInClass::drifting] << " drifting\n";
}

// What the brief table left out, and where it is.
void print_left_out(const Report& r, std::ostream& out, LineWidth width) {
  std::size_t pairs = 0, local = 0, healthy = 0;
  for (const auto& p : r.probes) {
    pairs += is_pair_probe(p) && p.status == ProbeStatus::ok ? 1 : 0;
    local += is_local_check(p) && p.status == ProbeStatus::ok ? 1 : 0;
  }
  for (const auto& v : r.verdicts) healthy += v.state == HealthState::healthy ? 1 : 0;
  const std::string text = "Shortened: " + grouped(r.probes.size() + r.verdicts.size()) + " results, over " +
                           grouped(kFullTableResults) + "; not shown: " + grouped(pairs) +
                           " pair results that are ok, " + grouped(local) + " local checks that are ok, " +
                           grouped(healthy) +
                           " healthy verdicts, the GPU and rail tables. Every row is in the JSON report (--json FILE); "
                           "'ibgpu report FILE --format table-full' prints them all.";
  out << '\n';
  for (const auto line : wrap_words(text, width.columns)) out << line << '\n';
}

}  // namespace

void TableReporter::render(const Report& r, std::ostream& out) const {
  const LineWidth width = line_;
  print_words(out,
              r.tool.name + " " + r.tool.version + " (" + r.tool.git + ")  run " + r.run.id + "  " +
                  count_text(r.run.ranks, "rank") + " on " + count_text(r.hosts.size(), "host") + "  started " +
                  r.run.started,
              width);
  out << '\n';
  print_answer(r, out, width);
  out << '\n';
  const bool brief = detail_ == Detail::fit && table_is_long(r);
  print_hosts(r, out, brief, width);
  print_devices(r, out, brief, width);
  print_probes(r, out, brief, width);
  print_local(r, out, brief, width);
  print_network(r, out, brief, width);
  if (brief) print_leaf_summary(r, out, width);
  print_allreduce(r, out, brief, width);
  print_verdicts(r, out, brief, width);
  print_admission(r, out, brief, width);
  print_work_orders(r, out, width);
  print_burn_in(r, out, width);
  for (const auto& note : r.run.notes) {
    const std::string text = printable(note);
    const auto lines = wrap_words(text, width.columns - 6);
    for (std::size_t i = 0; i < lines.size(); ++i) out << (i ? "\n      " : "\nnote: ") << lines[i];
  }
  if (!r.run.notes.empty()) out << '\n';
  if (brief) print_left_out(r, out, width);
  out << "\nSummary: " << to_string(r.summary.state) << ", exit " << r.summary.exit_code;
  if (!r.verdicts.empty())
    out << "  (admit " << r.summary.admit.size() << ", admit degraded " << r.summary.admit_degraded.size() << ", drain "
        << r.summary.drain.size() << ")";
  out << '\n';
}

}  // namespace ibgpu
