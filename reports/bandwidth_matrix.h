#pragma once
// Pairwise bandwidth as hosts x hosts matrices, one per rail: the model the
// HTML heatmaps draw. Pure function of the report; no markup here.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/report.h"
#include "core/verdict.h"

namespace ibgpu {

// One measured host pair on one rail, as it is drawn: the result at the
// largest message size that pair measured (several results there, from
// re-tests or several rank pairs: the best one).
struct PairCell {
  std::size_t row = 0, col = 0;   // indices into BandwidthMatrix::hosts; row <= col
  std::optional<double> bw_GBps;  // missing: measured, but no value (error, timeout)
  std::size_t size_B = 0;         // the message size of the value
  ProbeStatus status = ProbeStatus::ok;
  std::string note;                 // the result's error or reason, if any
  std::optional<HealthState> link;  // the link's verdict when degraded or failed
};

struct BandwidthMatrix {
  std::string probe;                         // "net.verbs.write_bw"
  std::string rail;                          // "mlx5_0:1"; the transport ("mpi") when no device is named
  std::vector<std::string> hosts;            // both axes, in report order
  std::vector<PairCell> cells;               // each measured pair once (row <= col), sorted by (row, col)
  std::optional<double> min_GBps, max_GBps;  // over the cells' values
};

// A pairwise bandwidth probe: "net.<transport>.bw" or "net.<transport>.*_bw" between two hosts.
bool is_pair_bandwidth(const ProbeResult& p);

// One matrix per (probe, rail), in order of first appearance. The axes hold
// every host of the report (hosts then any only named by probes or verdicts),
// so a host a rail never measured shows as an empty row.
std::vector<BandwidthMatrix> bandwidth_matrices(const Report& report);

}  // namespace ibgpu
