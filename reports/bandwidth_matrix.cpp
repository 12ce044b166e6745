#include "reports/bandwidth_matrix.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "core/result.h"

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

std::optional<double> bandwidth_of(const ProbeResult& p) { return typical(p, "bw_avg_GBps"); }

class HostAxis {
 public:
  void add(const std::string& host) {
    if (index_.try_emplace(host, names_.size()).second) names_.push_back(host);
  }
  std::size_t at(const std::string& host) const { return index_.at(host); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> index_;
};

HostAxis host_axis(const Report& report) {
  HostAxis axis;
  for (const auto& h : report.hosts) axis.add(h.name);
  for (const auto& p : report.probes)
    if (is_pair_bandwidth(p))
      for (const auto& h : p.scope.hosts) axis.add(h);
  for (const auto& v : report.verdicts)
    if (v.entity.kind == "node") axis.add(v.entity.id);
  return axis;
}

// Link verdicts worth flagging, by "a<->b" as the judge names them.
std::unordered_map<std::string, HealthState> flagged_links(const Report& report) {
  std::unordered_map<std::string, HealthState> links;
  for (const auto& v : report.verdicts)
    if (v.entity.kind == "link" && (v.state == HealthState::degraded || v.state == HealthState::failed))
      links.emplace(v.entity.id, v.state);
  return links;
}

// True when `candidate` should be drawn instead of `current`: a larger size,
// or the same size with a better value.
bool better(const PairCell& candidate, const PairCell& current) {
  if (candidate.size_B != current.size_B) return candidate.size_B > current.size_B;
  if (!candidate.bw_GBps) return false;
  return !current.bw_GBps || *candidate.bw_GBps > *current.bw_GBps;
}

}  // namespace

bool is_pair_bandwidth(const ProbeResult& p) { return is_pair_probe(p) && p.kind().quantity == Quantity::bandwidth; }

std::vector<BandwidthMatrix> bandwidth_matrices(const Report& report) {
  const HostAxis axis = host_axis(report);
  const auto links = flagged_links(report);

  std::vector<BandwidthMatrix> matrices;
  std::map<std::pair<std::string, std::string>, std::size_t> matrix_of;  // (probe, rail) -> index
  std::vector<std::map<std::pair<std::size_t, std::size_t>, PairCell>> cells_of;
  for (const auto& p : report.probes) {
    if (!is_pair_bandwidth(p)) continue;
    auto [it, fresh] = matrix_of.try_emplace({p.id, rail_of(p)}, matrices.size());
    if (fresh) {
      matrices.push_back(BandwidthMatrix{p.id, rail_of(p), axis.names(), {}, std::nullopt, std::nullopt});
      cells_of.emplace_back();
    }
    std::size_t a = axis.at(p.scope.hosts[0]), b = axis.at(p.scope.hosts[1]);
    if (a > b) std::swap(a, b);
    PairCell cell{a, b, bandwidth_of(p), size_of(p), p.status, p.error.value_or(p.reason.value_or("")), std::nullopt};
    auto [slot, first] = cells_of[it->second].try_emplace({a, b}, cell);
    if (!first && better(cell, slot->second)) slot->second = std::move(cell);
  }

  for (std::size_t m = 0; m < matrices.size(); ++m) {
    BandwidthMatrix& matrix = matrices[m];
    for (auto& [pair, cell] : cells_of[m]) {
      const std::string& a = matrix.hosts[cell.row];
      const std::string& b = matrix.hosts[cell.col];
      auto link = links.find(a + "<->" + b);
      if (link == links.end()) link = links.find(b + "<->" + a);
      if (link != links.end()) cell.link = link->second;
      if (cell.bw_GBps) {
        matrix.min_GBps = std::min(matrix.min_GBps.value_or(*cell.bw_GBps), *cell.bw_GBps);
        matrix.max_GBps = std::max(matrix.max_GBps.value_or(*cell.bw_GBps), *cell.bw_GBps);
      }
      matrix.cells.push_back(std::move(cell));
    }
  }
  return matrices;
}

}  // namespace ibgpu
