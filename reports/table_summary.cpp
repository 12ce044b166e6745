#include "reports/table_summary.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/statistics.h"
#include "core/text.h"  // natural_less: mlx5_2:1 before mlx5_10:1
#include "core/units.h"
#include "reports/next_steps.h"
#include "reports/render_util.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

using Align = TextTable::Align;
using Narrow = TextTable::Narrow;

// Nodes listed one by one in the answer; past this many, the rest are counted by reason.
constexpr std::size_t kNodeLines = 50;

constexpr std::array<HealthState, 4> kStatesInOrder{HealthState::healthy, HealthState::degraded, HealthState::failed,
                                                    HealthState::unknown};

// Worse first: failed, unknown, degraded, healthy.
int badness(HealthState s) { return static_cast<int>(s); }

struct MainReason {
  const Reason* reason = nullptr;
  std::string part;  // "gpu1" when the reason is a part's, empty when the node's own
};

// A node's main reason: its own first reason, unless that only says some of its
// GPUs are not healthy (or it has none): then the worst part's first reason.
MainReason main_reason(const Verdict& node, const std::vector<const Verdict*>& parts) {
  const bool own = !node.reasons.empty() && node.reasons.front().code != ReasonCode::GPUS_UNHEALTHY;
  if (own) return {&node.reasons.front(), ""};
  const Verdict* worst_part = nullptr;
  for (const Verdict* p : parts)
    if (!p->reasons.empty() && p->state != HealthState::healthy &&
        (!worst_part || badness(p->state) > badness(worst_part->state)))
      worst_part = p;
  if (worst_part) return {&worst_part->reasons.front(), std::string(worst_part->entity.part())};
  if (!node.reasons.empty()) return {&node.reasons.front(), ""};
  return {};
}

// A few causes in plain words for the node's line; the details below have the whole message.
std::string_view known_cause(std::string_view message) {
  if (message.find("no NVIDIA driver") != std::string_view::npos ||
      message.find("CUDA driver version is insufficient") != std::string_view::npos)
    return "no NVIDIA driver";
  if (message.find("libnccl.so.2 not found") != std::string_view::npos) return "no NCCL";
  if (message.find("no RDMA device") != std::string_view::npos) return "no RDMA device";
  return {};
}

std::string main_reason_text(const MainReason& main) {
  if (!main.reason) return "-";
  std::string text(to_string(main.reason->code));
  if (!main.part.empty()) text += " (" + main.part + ")";
  if (const auto cause = known_cause(main.reason->message); !cause.empty()) text.append(": ").append(cause);
  return text;
}

void print_counts(const Report& r, std::ostream& out, LineWidth width) {
  std::vector<std::pair<EntityKind, std::array<std::size_t, 4>>> kinds;  // in order of first appearance
  for (const auto& v : r.verdicts) {
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == v.entity.kind(); });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), {v.entity.kind(), {}});
    ++it->second[static_cast<std::size_t>(v.state)];
  }
  // Nodes first, then their parts, then the fabric (links, and any kind that comes later).
  auto rank = [](EntityKind kind) {
    static constexpr std::array kOrder{EntityKind::node, EntityKind::gpu, EntityKind::hca_port, EntityKind::link};
    return std::find(kOrder.begin(), kOrder.end(), kind) - kOrder.begin();
  };
  std::stable_sort(kinds.begin(), kinds.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  TextTable table({{"verdicts"},
                   {"entities", Align::right},
                   {"healthy", Align::right},
                   {"degraded", Align::right},
                   {"failed", Align::right},
                   {"unknown", Align::right}});
  for (const auto& [kind, n] : kinds) {
    std::vector<std::string> cells{to_string(kind), grouped(n[0] + n[1] + n[2] + n[3])};
    for (const HealthState s : kStatesInOrder) cells.push_back(grouped(n[static_cast<std::size_t>(s)]));
    table.add_row(cells);
  }
  if (!table.empty()) table.print(out, "  ", width);
}

}  // namespace

std::vector<NodeNextStep> nodes_not_admitted(const Report& r) {
  std::map<std::string_view, std::vector<const Verdict*>> parts;  // node -> its GPUs and ports
  for (const auto& v : r.verdicts)
    if (v.entity.kind() == EntityKind::gpu || v.entity.kind() == EntityKind::hca_port)
      parts[v.entity.host()].push_back(&v);
  std::vector<NodeNextStep> out;
  for (const auto& v : r.verdicts) {
    if (v.entity.kind() != EntityKind::node || !v.action || *v.action == Action::admit) continue;
    const auto it = parts.find(v.entity.host());
    const MainReason main = main_reason(v, it == parts.end() ? std::vector<const Verdict*>{} : it->second);
    out.push_back({&v, main.reason ? std::optional(main.reason->code) : std::nullopt, main_reason_text(main),
                   main.reason ? std::string(info(main.reason->code).next_step) : "see its parts' verdicts below"});
  }
  std::stable_sort(out.begin(), out.end(), [](const NodeNextStep& a, const NodeNextStep& b) {
    return static_cast<int>(*a.node->action) > static_cast<int>(*b.node->action);  // drain first
  });
  return out;
}

namespace {

void print_not_admitted(const Report& r, std::ostream& out, LineWidth width) {
  const std::vector<NodeNextStep> nodes = nodes_not_admitted(r);
  if (nodes.empty()) return;
  const auto drained =
      std::count_if(nodes.begin(), nodes.end(), [](auto& n) { return *n.node->action == Action::drain; });
  out << '\n';
  print_words(out,
              "Not admitted: " + grouped(static_cast<std::size_t>(drained)) + " to drain, " +
                  grouped(nodes.size() - static_cast<std::size_t>(drained)) +
                  " admitted degraded (the full advice per reason: " + kFullAdvice + ")",
              width);
  print_words(out, actions_taken(r), width);
  TextTable table({{"node"}, {"action"}, {"main reason"}, {"next step", Align::left, true}});
  struct Tally {
    std::size_t nodes = 0;
    std::string code, step;
  };
  std::vector<std::pair<std::string, Tally>> by_reason;  // "action|code", in order of first appearance
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeNextStep& n = nodes[i];
    const std::string code = n.code ? std::string(to_string(*n.code)) : "-";
    const std::string key = std::string(to_string(*n.node->action)) + "|" + code;
    auto tally = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& t) { return t.first == key; });
    if (tally == by_reason.end())
      tally = by_reason.insert(by_reason.end(),
                               {key, Tally{0, code, n.code ? n.step : "ibgpu explain lists every reason code"}});
    ++tally->second.nodes;
    if (i >= kNodeLines) continue;
    table.add_row({n.node->entity.id(), to_string(*n.node->action), n.reason, n.step});
  }
  table.print(out, "  ", width);
  if (nodes.size() <= kNodeLines) return;
  out << "  ... " << grouped(nodes.size() - kNodeLines) << " more; all " << grouped(nodes.size())
      << " by main reason:\n";
  TextTable tallies({{"action"}, {"nodes", Align::right}, {"main reason"}, {"next step", Align::left, true}});
  for (const auto& [key, t] : by_reason)
    tallies.add_row({key.substr(0, key.find('|')), grouped(t.nodes), t.code, t.step});
  tallies.print(out, "  ", width);
}

// A pair's rail as the table names it: "mlx5_0:1", or "mlx5_0:1<->mlx5_1:1"
// when the two ends differ; "-" for a pair without devices (MPI over the host network).
std::string rail_of(const ProbeResult& p) {
  const auto& d = p.scope.devices;
  if (d.empty()) return "-";
  if (d.size() == 2 && d[0] != d[1]) return d[0] + "<->" + d[1];
  return d[0];
}

// What ibgpu did not judge (docs/verdicts.md): beside the states, never in them.
void print_not_judged(const Report& r, std::ostream& out, LineWidth width) {
  std::map<std::string_view, std::size_t> codes;  // by name, as the table reads
  for (const auto& v : r.verdicts)
    for (const auto& reason : v.reasons)
      if (reason.evidence == Evidence::not_judged) ++codes[to_string(reason.code)];
  if (codes.empty()) return;
  std::string text = "Not judged (recorded, held against no node):";
  const char* sep = " ";
  for (const auto& [code, n] : codes) {
    text.append(sep).append(grouped(n)).append(" ").append(code);
    sep = ", ";
  }
  print_words(out, text, width);
}

}  // namespace

void print_words(std::ostream& out, const std::string& text, LineWidth width) {
  const auto lines = wrap_words(text, width.columns - 2);
  for (std::size_t i = 0; i < lines.size(); ++i) out << (i ? "  " : "") << lines[i] << '\n';
}

bool table_is_long(const Report& r) { return r.probes.size() + r.verdicts.size() > kFullTableResults; }

std::string grouped(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void print_answer(const Report& r, std::ostream& out, LineWidth width) {
  out << "Result: " << to_string(r.summary.state) << ", exit " << r.summary.exit_code;
  if (!r.verdicts.empty())
    out << "  (admit " << grouped(r.summary.admit.size()) << ", admit degraded "
        << grouped(r.summary.admit_degraded.size()) << ", drain " << grouped(r.summary.drain.size()) << ")";
  out << '\n';
  if (r.run.interrupted) out << "Interrupted: nothing was decided (no node admitted or drained)\n";
  print_not_judged(r, out, width);
  print_counts(r, out, width);
  print_not_admitted(r, out, width);
}

void print_rail_summary(const Report& r, std::ostream& out, LineWidth width) {
  struct Figures {
    std::size_t pairs = 0, not_ok = 0;
    std::vector<double> bw, lat_p50, lat_p99;
  };
  struct Key {
    std::string rail, probe;
    std::uint64_t size;  // none (a pair that did not run): after the sizes
    bool operator<(const Key& o) const {
      if (rail != o.rail) return natural_less(rail, o.rail) || (!natural_less(o.rail, rail) && rail < o.rail);
      return std::tie(probe, size) < std::tie(o.probe, o.size);
    }
  };
  std::map<Key, Figures> rows;
  for (const auto& p : r.probes) {
    if (!is_pair_probe(p)) continue;
    Figures& f = rows[Key{rail_of(p), p.id, message_size(p).value_or(UINT64_MAX)}];
    ++f.pairs;
    if (p.status != ProbeStatus::ok) ++f.not_ok;
    if (const auto bw = typical(p, metrics::bw_avg_GBps)) f.bw.push_back(*bw);
    if (const Metric* lat = find_metric(p, metrics::lat_us); lat && lat->summary) {
      f.lat_p50.push_back(lat->summary->p50);
      f.lat_p99.push_back(lat->summary->p99);
    }
  }
  if (rows.empty()) return;
  std::map<std::string, std::size_t> ports_not_healthy;  // rail -> hca_port verdicts not healthy
  for (const auto& v : r.verdicts)
    if (v.entity.kind() == EntityKind::hca_port && v.state != HealthState::healthy)
      ++ports_not_healthy[std::string(v.entity.part())];
  TextTable table({{"rail"},
                   {"probe"},
                   {"size", Align::right},
                   {"pairs", Align::right, false, Narrow::optional},
                   {"not ok", Align::right},
                   {"GB/s min", Align::right},
                   {"p50", Align::right, false, Narrow::optional},
                   {"max", Align::right, false, Narrow::optional},
                   {"lat p50 us", Align::right, false, Narrow::optional},
                   {"p99 max", Align::right, false, Narrow::optional},
                   {"ports not healthy", Align::right}});
  auto cell = [&](std::vector<double>& v, double q) {
    if (v.empty()) return std::string();
    std::sort(v.begin(), v.end());
    return format_number(sorted_lower_quantile(v, q));
  };
  std::string last_rail;
  for (auto& [key, f] : rows) {
    const std::string& rail = key.rail;
    const auto ports = ports_not_healthy.find(rail);
    table.add_row({rail == last_rail ? "" : rail, key.probe, key.size == UINT64_MAX ? "-" : format_size(key.size),
                   grouped(f.pairs), grouped(f.not_ok), cell(f.bw, 0), cell(f.bw, 0.5), cell(f.bw, 1),
                   cell(f.lat_p50, 0.5), cell(f.lat_p99, 1),
                   rail == last_rail ? "" : grouped(ports == ports_not_healthy.end() ? 0 : ports->second)});
    last_rail = rail;
  }
  out << "\nPer rail (pair measurements; GB/s and latency over the pairs)\n";
  table.print(out, "  ", width);
}

std::string leaf_of(const Report& r, const std::string& host) {
  const auto it = std::find_if(r.hosts.begin(), r.hosts.end(), [&](const HostInventory& h) { return h.name == host; });
  return it == r.hosts.end() ? std::string() : it->leaf;
}

void print_leaf_summary(const Report& r, std::ostream& out, LineWidth width) {
  struct Leaf {
    std::size_t hosts = 0, drain = 0, degraded = 0, links = 0;
  };
  std::map<std::string, Leaf> leaves;
  std::map<std::string, std::string, std::less<>> leaf_by_host;
  for (const auto& h : r.hosts)  // h.leaf is leaf_of(r, h.name), without a search per host
    if (!h.leaf.empty()) {
      ++leaves[h.leaf].hosts;
      leaf_by_host[h.name] = h.leaf;
    }
  if (leaves.empty()) return;
  for (const auto& v : r.verdicts) {
    if (v.entity.kind() == EntityKind::node && v.action && *v.action != Action::admit) {
      const auto it = leaf_by_host.find(v.entity.host());
      if (it != leaf_by_host.end())
        ++(*v.action == Action::drain ? leaves[it->second].drain : leaves[it->second].degraded);
    } else if (v.entity.kind() == EntityKind::link && v.state != HealthState::healthy) {
      // A link between two leaves is each leaf's: either end's switch may be the one to look at.
      if (v.entity.peer().empty()) continue;  // an all-reduce's group of hosts
      const auto a = leaf_by_host.find(v.entity.host());
      const auto b = leaf_by_host.find(v.entity.peer());
      if (a != leaf_by_host.end()) ++leaves[a->second].links;
      if (b != leaf_by_host.end() && (a == leaf_by_host.end() || a->second != b->second)) ++leaves[b->second].links;
    }
  }
  TextTable table({{"leaf"},
                   {"hosts", Align::right},
                   {"drain", Align::right},
                   {"admit degraded", Align::right},
                   {"links not healthy", Align::right}});
  for (const auto& [name, l] : leaves)
    table.add_row({name, grouped(l.hosts), grouped(l.drain), grouped(l.degraded), grouped(l.links)});
  out << "\nPer leaf switch\n";
  table.print(out, "  ", width);
}

PartCounts::PartCounts(const Report& r) {
  for (const auto& h : r.hosts) inventory_.emplace(h.name, &h);
}

std::string PartCounts::operator()(const Verdict& node, bool gpu) const {
  auto is_kind = [&](const std::string& part) { return gpu_index(part).has_value() == gpu; };
  const auto usable = static_cast<std::size_t>(std::count_if(node.usable.begin(), node.usable.end(), is_kind));
  std::size_t all =
      usable + static_cast<std::size_t>(std::count_if(node.excluded.begin(), node.excluded.end(), is_kind));
  if (const auto it = inventory_.find(node.entity.host()); node.action == Action::drain && it != inventory_.end()) {
    const AdmittedParts parts = admitted_parts(*it->second);
    all = std::max(all, (gpu ? parts.gpus : parts.rails).size());
  }
  return all == 0 ? std::string("-") : std::to_string(usable) + "/" + std::to_string(all);
}

}  // namespace ibgpu
