#pragma once
// Point-to-point measurements between two ranks. Both ranks of a pair call
// the same transport method with mirrored contexts; the initiator (lower
// rank) reports the results. A peer that dies or hangs is a `timeout`
// result, never a hang: every wait obeys `timeout`.
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/waits.h"
#include "probes/net/buffer_memory.h"

namespace ibgpu {

struct PairContext {
  MPI_Comm comm = MPI_COMM_NULL;  // errors returned, not fatal
  int self = 0;
  int peer = 0;
  bool initiator = false;  // self < peer
  std::string self_host, peer_host;
  int tag = 0;  // unique to this pair meeting; a transport may use tag..tag+15
  Seconds timeout = kDefaultTimeout;
  std::string self_device, peer_device;  // rail, e.g. "mlx5_0:1"; empty for MPI
};

struct NetSettings {
  std::vector<std::size_t> bw_sizes{65536, 1 << 20, 8 << 20};
  std::vector<std::size_t> lat_sizes{8};
  int bw_iters = 0;  // 0: fitted per size to a byte budget
  int lat_iters = 1000;
  int warmup = 0;                         // 0: a tenth of the iterations, at least one
  int window = 64;                        // MPI: sends in flight per iteration (OSU)
  int tx_depth = 128;                     // verbs: work requests in flight (perftest)
  int gid_index = -1;                     // verbs on RoCE: -1 picks one (IPv4-mapped RoCE v2 first)
  BufferMemory mem = BufferMemory::host;  // where verbs buffers live
  double time_cap_s = kDefaultTimeCapS;   // longest run of one measurement (one pair, one size)
  int test_verbs_error_rank = -1;         // hidden, for tests: this rank's verbs setups fail (not its ports)
  static constexpr double kDefaultTimeCapS = 3;
};

class PairTransport {
 public:
  virtual ~PairTransport() = default;
  virtual std::string name() const = 0;  // "mpi", "verbs"
  // One result per size, ids "net.<transport>.<kind>"; scope hosts and ranks
  // ordered initiator first.
  virtual std::vector<ProbeResult> bandwidth(const PairContext& ctx, const NetSettings& settings) = 0;
  virtual std::vector<ProbeResult> latency(const PairContext& ctx, const NetSettings& settings) = 0;
};

// Iterations for a bandwidth run of `size` bytes: enough to move a fixed
// budget, bounded so small messages do not take forever.
int fitted_bw_iters(std::size_t size, int per_iteration_messages, int requested);
int warmup_for(int iters, int requested);

// The iterations of one measurement, as its initiator runs them: the planned warmup and timed
// iterations, cut short once the measurement has run for its time cap, so a crawling link is
// measured (the rate reached so far) rather than waited for. Past the cap, a warmup ends at once
// and the next iteration is the only timed one; a timed run ends with the current iteration.
// The initiator tells its peer which iteration is the last (in the message itself), so both ends
// always run the same iterations.
class CappedLoop {
 public:
  // The clock is read every `check_every` iterations: in a loop of microsecond iterations a
  // read per iteration would be part of what is measured.
  CappedLoop(int warmup, int iters, double cap_s, int check_every = 1);
  // Called before iteration `it` (0-based, warmup first); true when it is the last one.
  bool last(int it);
  // Ends the measurement with iteration `it`, as the cap would (it is the one timed if in the
  // warmup): for when the pace says the next iteration cannot fit what is left of the cap.
  void stop_at(int it);
  bool timed(int it) const { return it >= warmup_; }
  int total() const { return warmup_ + iters_; }
  int warmup() const { return warmup_; }
  int iters() const { return iters_; }
  // Into a result's params: the iterations run and, when the cap cut them, the cap.
  void describe(nlohmann::json& params) const;

 private:
  bool over() const;
  int warmup_, iters_, check_every_;
  std::chrono::steady_clock::time_point began_;
  Seconds cap_;
  bool capped_ = false;
};

// The result skeleton every pair probe fills in.
ProbeResult pair_result(const std::string& id, const PairContext& ctx, std::size_t size);

}  // namespace ibgpu
