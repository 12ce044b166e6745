#pragma once
// The pairwise network phase: every rank walks the same schedule of rounds,
// meets its partner of the round (if any) and measures; rank 0 reports
// progress. No barrier between rounds: a dead peer costs its partners one
// timeout each, not the whole job.
#include <optional>
#include <string>
#include <vector>

#include "cluster/rank_pairs.h"
#include "cluster/world.h"
#include "core/deadline.h"
#include "probes/net/pair_probe.h"

namespace ibgpu {

class LiveChannel;  // app/live_events.h

// With --budget: a pair starts only if its worst case (every measurement at its time cap) ends
// before `end`, on this rank's clock. The pair's initiator decides and tells its partner when they
// meet, so both ends always agree; a pair not started is `skipped` (reason "budget: ...").
struct PairBudget {
  Clock::time_point end;
  double budget_s = 0;      // the whole check's, for the reason text
  double pair_worst_s = 0;  // one pair's measurements at their time caps
};

// --transport: which transport the pairs measure over. `automatic` ("auto") is verbs where both
// ends of a pair have an active port, else mpi; the report says which ran (params.transport_choice).
enum class NetTransport { verbs, mpi, automatic };
const char* to_string(NetTransport transport);  // "verbs", "mpi", "auto": the option's own words
std::optional<NetTransport> net_transport_from_string(const std::string& text);

struct NetOptions {
  NetTransport transport = NetTransport::automatic;
  bool bandwidth = true;
  bool latency = true;
  NetSettings settings;
  PairPlan pairs;
  std::vector<std::string> hca;     // rails to use, "mlx5_0:1"; empty: the rail plan, or all active ports
  std::string sysfs_root = "/sys";  // where the rail plan is read from (--sysfs-root)
  std::optional<PairBudget> budget;
};

std::vector<ProbeResult> run_network(MpiSession& session, const NetOptions& options, Seconds timeout,
                                     LiveChannel& live);

// The rounds' pairs meet and measure, as in run_network. Rounds are numbered
// from `first_round` (after any run before, so that a late message of an
// earlier round never meets a later one); rank 0 prints progress per round
// with `label` ("network", "re-test 1").
std::vector<ProbeResult> run_rank_rounds(MpiSession& session, const NetOptions& options, Seconds timeout,
                                         const std::vector<RankRound>& rounds, std::size_t first_round,
                                         const std::string& label, LiveChannel& live);

// Rank 0's progress line for a round: "network round 3/15: 4 pairs (h1-h2, h3-h4, +2 more)".
std::string round_progress(const World& world, const std::string& label, std::size_t k, std::size_t total,
                           const RankRound& round);

// Every rank, before anything runs: an --hca the host lacks, or a
// --gid-index its ports lack, is a usage error (empty answer when fine).
std::string network_preflight(const World& world, const NetOptions& options);

// Rank 0, once the results are in, for each rank `lost` (it sent no results): from the first round
// in which a pair with it did not come back, every rank that sent to the dead process (its
// partners from that round on: their meetings, and their heartbeats, which go to the next
// partners ahead; and rank 0, which answers every rank) measures slower than it is. OpenMPI's TCP
// transport, after a connect to the dead process fails, polls its event loop once per 10 ms, its
// default tick (srun --kill-on-bad-exit=0 on namespace hosts: 15 ms latency where it was 0.1 ms;
// with OMPI_MCA_mpi_event_tick_rate=1 about twice the latency is left, but that setting is not
// ibgpu's to make until a rank 0 that crashed at start-up with it once is understood). The
// pairs of those ranks from that round on are marked not judged (params.not_judged: why):
// recorded, held against no one; the next run judges them. Pairs of ranks that never sent to it
// are judged. Pure.
void mark_after_lost_rank(std::vector<ProbeResult>& results, const World& world, const std::vector<int>& lost);

// Rank 0, in a run a stop signal interrupted (the launcher tearing the job down after a rank
// died, scancel, Ctrl-C): the pairs that finished in the first round the stop cut (a meeting or a
// measurement it ended), and in any round after, overlapped the teardown (processes ending, the
// launcher's daemons reaping them, on the same CPUs and links): seen on six namespace hosts, a pair
// at a third of its round's others and failed for it. Those results are marked not judged, as
// above (a pair marked already keeps its reason); the rounds that ended before the stop are judged.
// Pure.
void mark_after_stop(std::vector<ProbeResult>& results);

// Refuses sizes MPI or memory cannot take, with the reason (UsageError): up
// to `max_bytes` (a pair probe's window of 1G messages is already 64G).
inline constexpr std::size_t kMaxPairSize = std::size_t{1} << 30;
inline constexpr std::size_t kMaxAllReduceSize = std::size_t{16} << 30;  // nccl-tests' judged range ends at 16G
void validate_sizes(const std::vector<std::size_t>& sizes, const char* what, std::size_t max_bytes = kMaxPairSize);

}  // namespace ibgpu
