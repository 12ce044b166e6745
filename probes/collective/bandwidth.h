#pragma once
// Collective bandwidth math, the nccl-tests convention (REFERENCE.md): users
// compare these numbers with nccl-tests', so keep it.
#include <cstddef>
#include <vector>

namespace ibgpu {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce, send_recv };

// busbw = algbw x factor, the factor that makes a collective's number comparable
// with the link speed: all-reduce 2(n-1)/n; reduce-scatter, all-gather,
// all-to-all (n-1)/n; broadcast, reduce, send/recv 1. Throws
// std::invalid_argument for nranks < 1.
double busbw_factor(Collective collective, int nranks);

// algbw = S / t in GB/s (1e9 bytes), S as nccl-tests counts it (all-reduce:
// count x element size). A non-positive time gives 0.
double algbw_GBps(double bytes, double seconds);
double busbw_GBps(Collective collective, double bytes, double seconds, int nranks);

// One time per rank, indexed by rank. The slowest rank is the first with the
// largest time. Throws std::invalid_argument when empty.
struct RankTimes {
  double min_s = 0, avg_s = 0, max_s = 0;
  int slowest_rank = 0;
};
RankTimes aggregate_rank_times(const std::vector<double>& seconds_by_rank);

}  // namespace ibgpu
