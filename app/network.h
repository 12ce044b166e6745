#pragma once
// The pairwise network phase: every rank walks the same schedule of rounds,
// meets its partner of the round (if any) and measures; rank 0 reports
// progress. No barrier between rounds: a dead peer costs its partners one
// timeout each, not the whole job.
#include <string>
#include <vector>

#include "cluster/rank_pairs.h"
#include "cluster/world.h"
#include "probes/net/pair_probe.h"

namespace ibgpu {

struct NetOptions {
  std::string transport = "auto";  // verbs | mpi | auto
  bool bandwidth = true;
  bool latency = true;
  NetSettings settings;
  PairPlan pairs;
  std::vector<std::string> hca;  // rails to use, "mlx5_0:1"; empty: all active ports
};

std::vector<ProbeResult> run_network(MpiSession& session, const NetOptions& options, double timeout_s);

// Every rank, before anything runs: an --hca the host lacks, or a
// --gid-index its ports lack, is a usage error (empty answer when fine).
std::string network_preflight(const World& world, const NetOptions& options);

// Refuses sizes MPI or memory cannot take, with the reason (UsageError).
void validate_sizes(const std::vector<std::size_t>& sizes, const char* what);

}  // namespace ibgpu
