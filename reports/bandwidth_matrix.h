#pragma once
// Pairwise bandwidth and latency as hosts x hosts matrices, one per probe and
// rail: the model the HTML heatmaps draw. Pure function of the report; no
// markup here.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/report.h"
#include "core/verdict.h"

namespace ibgpu {

// One measured pair of two different hosts on one rail, as it is drawn (or what one host
// measured within itself, row == col): for bandwidth the result at the largest message size that
// pair measured, for latency at the smallest (several results there, from re-tests or several
// rank pairs: the best one).
struct PairCell {
  std::size_t row = 0, col = 0;  // indices into PairMatrix::hosts; row < col (row == col within a host)
  std::optional<double> value;   // GB/s or us; missing: measured, but no value (error, timeout)
  std::size_t size_B = 0;        // the message size of the value
  ProbeStatus status = ProbeStatus::ok;
  std::string note;                 // the result's error or reason, if any
  std::optional<HealthState> link;  // the link's verdict when degraded or failed
};

struct PairMatrix {
  std::string probe;  // "net.verbs.write_bw"
  std::string rail;   // "mlx5_0:1"; the transport ("mpi") when no device is named
  Quantity quantity = Quantity::bandwidth;
  std::vector<std::string> hosts;   // both axes: by leaf then host when the report places hosts on leaves
  std::vector<std::string> leaves;  // hosts[i]'s leaf switch; all empty without a topology
  std::vector<PairCell> cells;      // each measured pair of two hosts once (row < col), sorted by (row, col)
  std::optional<double> min, max;   // over the cells' values
  // The best of the cells' values above 0 (the highest bandwidth, the lowest latency): the top of
  // the heatmap's scale. None where no cell has a value above 0.
  std::optional<double> best;
  std::size_t same_host = 0;  // results between two ranks of one host: no pair, not in the heatmap
  // What each host measured within itself, one cell per host as a pair's (row == col): listed
  // beside the heatmap.
  std::vector<PairCell> within_host;

  bool higher_is_better() const { return quantity != Quantity::latency; }
  const char* unit() const { return quantity == Quantity::latency ? "us" : "GB/s"; }
  // How many pairs of two different hosts the axes allow.
  std::size_t possible_pairs() const { return hosts.size() * (hosts.size() - (hosts.empty() ? 0 : 1)) / 2; }
};

// A pairwise bandwidth probe: "net.<transport>.bw" or "net.<transport>.*_bw" between two hosts.
bool is_pair_bandwidth(const ProbeResult& p);
// A pairwise latency probe ("net.mpi.lat", "net.verbs.write_lat") between two hosts.
bool is_pair_latency(const ProbeResult& p);

// One matrix per (probe, rail) of that quantity (bandwidth or latency), in
// order of first appearance. The axes hold every host of the report (hosts
// then any only named by probes or verdicts), so a host a rail never measured
// shows as an empty row. When any host has a leaf switch, the axes go leaf by
// leaf (hosts without one last), hosts in natural order within a leaf.
std::vector<PairMatrix> pair_matrices(const Report& report, Quantity quantity);

inline std::vector<PairMatrix> bandwidth_matrices(const Report& report) {
  return pair_matrices(report, Quantity::bandwidth);
}
inline std::vector<PairMatrix> latency_matrices(const Report& report) {
  return pair_matrices(report, Quantity::latency);
}

}  // namespace ibgpu
