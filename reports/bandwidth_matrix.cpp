#include "reports/bandwidth_matrix.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "core/result.h"
#include "core/text.h"  // natural_less: node2 before node10

namespace ibgpu {

namespace {

// Rail-optimised fabrics pair the same rail on both hosts; a cross-rail pair
// gets a matrix of its own rather than being mixed into either rail.
std::string rail_of(const ProbeResult& p) {
  const auto& d = p.scope.devices;
  if (d.size() == 2 && !d[0].empty()) return d[0] == d[1] ? d[0] : d[0] + "<->" + d[1];
  return to_string(p.kind().transport);  // the transport names the rail when the probe names no device
}

std::size_t size_of(const ProbeResult& p) { return message_size(p).value_or(0); }

std::optional<double> value_of(const ProbeResult& p, Quantity q) {
  return typical(p, q == Quantity::latency ? metrics::lat_us : metrics::bw_avg_GBps);
}

class HostAxis {
 public:
  void add(const std::string& host) {
    if (index_.try_emplace(host, names_.size()).second) names_.push_back(host);
  }
  std::size_t at(const std::string& host) const { return index_.at(host); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::string>& leaves() const { return leaves_; }

  // Leaf by leaf (hosts without one last), hosts in natural order within a
  // leaf; unchanged when no host has a leaf.
  void order_by_leaf(const std::unordered_map<std::string, std::string>& leaf_of) {
    leaves_.assign(names_.size(), "");
    if (leaf_of.empty()) return;
    auto leaf = [&](const std::string& host) {
      const auto it = leaf_of.find(host);
      return it == leaf_of.end() ? std::string() : it->second;
    };
    std::stable_sort(names_.begin(), names_.end(), [&](const std::string& a, const std::string& b) {
      const std::string la = leaf(a), lb = leaf(b);
      if (la != lb) {
        if (la.empty() || lb.empty()) return lb.empty();
        return natural_less(la, lb) || (!natural_less(lb, la) && la < lb);
      }
      return natural_less(a, b);
    });
    for (std::size_t i = 0; i < names_.size(); ++i) {
      index_[names_[i]] = i;
      leaves_[i] = leaf(names_[i]);
    }
  }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::string> leaves_;
};

HostAxis host_axis(const Report& report) {
  HostAxis axis;
  for (const auto& h : report.hosts) axis.add(h.name);
  for (const auto& p : report.probes)
    if (is_pair_probe(p))
      for (const auto& h : p.scope.hosts) axis.add(h);
  for (const auto& v : report.verdicts)
    if (v.entity.kind() == EntityKind::node) axis.add(v.entity.id());
  std::unordered_map<std::string, std::string> leaf_of;
  for (const auto& h : report.hosts)
    if (!h.leaf.empty()) leaf_of.emplace(h.name, h.leaf);
  axis.order_by_leaf(leaf_of);
  return axis;
}

// Link verdicts worth flagging.
std::map<Entity, HealthState> flagged_links(const Report& report) {
  std::map<Entity, HealthState> links;
  for (const auto& v : report.verdicts)
    if (v.entity.kind() == EntityKind::link && (v.state == HealthState::degraded || v.state == HealthState::failed))
      links.emplace(v.entity, v.state);
  return links;
}

// True when `candidate` should be drawn instead of `current`: a larger size
// for bandwidth (a smaller one for latency), or the same size with a better value.
bool better(const PairCell& candidate, const PairCell& current, Quantity q) {
  const bool lower_is_better = q == Quantity::latency;
  if (candidate.size_B != current.size_B) return (candidate.size_B < current.size_B) == lower_is_better;
  if (!candidate.value) return false;
  return !current.value || (lower_is_better ? *candidate.value < *current.value : *candidate.value > *current.value);
}

}  // namespace

bool is_pair_bandwidth(const ProbeResult& p) { return is_pair_probe(p) && p.kind().quantity == Quantity::bandwidth; }
bool is_pair_latency(const ProbeResult& p) { return is_pair_probe(p) && p.kind().quantity == Quantity::latency; }

std::vector<PairMatrix> pair_matrices(const Report& report, Quantity quantity) {
  const HostAxis axis = host_axis(report);
  const auto links = flagged_links(report);

  std::vector<PairMatrix> matrices;
  std::map<std::pair<std::string, std::string>, std::size_t> matrix_of;           // (probe, rail) -> index
  std::vector<std::map<std::pair<std::size_t, std::size_t>, PairCell>> cells_of;  // within a host too: a == b
  for (const auto& p : report.probes) {
    if (!is_pair_probe(p) || p.kind().quantity != quantity) continue;
    auto [it, fresh] = matrix_of.try_emplace({p.id, rail_of(p)}, matrices.size());
    if (fresh) {
      PairMatrix m;
      m.probe = p.id;
      m.rail = rail_of(p);
      m.quantity = quantity;
      m.hosts = axis.names();
      m.leaves = axis.leaves();
      matrices.push_back(std::move(m));
      cells_of.emplace_back();
    }
    std::size_t a = axis.at(p.scope.hosts[0]), b = axis.at(p.scope.hosts[1]);
    // Two ranks of one host measured shared memory or a loopback, not the fabric between hosts.
    if (a == b) ++matrices[it->second].same_host;
    if (a > b) std::swap(a, b);
    PairCell cell{a,           b, value_of(p, quantity), size_of(p), p.status, p.error.value_or(p.reason.value_or("")),
                  std::nullopt};
    auto [slot, first] = cells_of[it->second].try_emplace({a, b}, cell);
    if (!first && better(cell, slot->second, quantity)) slot->second = std::move(cell);
  }

  for (std::size_t m = 0; m < matrices.size(); ++m) {
    PairMatrix& matrix = matrices[m];
    for (auto& [pair, cell] : cells_of[m]) {
      const std::string& a = matrix.hosts[cell.row];
      const std::string& b = matrix.hosts[cell.col];
      auto link = links.find(Entity::link(a, b));
      if (link == links.end()) link = links.find(Entity::link(b, a));
      if (link != links.end()) cell.link = link->second;
      if (cell.row == cell.col) {
        matrix.within_host.push_back(std::move(cell));
        continue;
      }
      if (cell.value) {
        matrix.min = std::min(matrix.min.value_or(*cell.value), *cell.value);
        matrix.max = std::max(matrix.max.value_or(*cell.value), *cell.value);
        if (*cell.value > 0)
          matrix.best = !matrix.best                ? *cell.value
                        : matrix.higher_is_better() ? std::max(*matrix.best, *cell.value)
                                                    : std::min(*matrix.best, *cell.value);
      }
      matrix.cells.push_back(std::move(cell));
    }
  }
  return matrices;
}

}  // namespace ibgpu
