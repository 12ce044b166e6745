#pragma once
// Rank 0's account of a run as it happens (app/live_output.h renders it). The pairs of a
// network round are measured on many ranks: each pair's initiator sends its results of the
// round to rank 0 in a small message, and rank 0 prints the round once every pair of it has
// reported. Each host's first rank sends its local checks the same way. Rank 0 reads these
// messages whenever it passes a hook (a round, an all-reduce case) and after the gather, so
// nothing here ever waits for a peer. With --quiet no rank sends or prints anything.
#include <mpi.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/live_output.h"
#include "cluster/rank_pairs.h"
#include "cluster/world.h"
#include "core/deadline.h"
#include "core/result.h"
#include "health/profile.h"

namespace ibgpu {

// Host pairs ("h1-h3") that a judge would re-test, from the pair results so far (check: the
// profile's rules, as the re-tests use them).
using SuspectRule = std::function<std::vector<std::string>(const std::vector<ProbeResult>&)>;

// The suspects as the re-tests pick them (health/judge.h retest_candidates), for `check`.
SuspectRule profile_suspects(const Profile& profile, const std::unordered_map<std::string, double>* reference_medians);

// Rank 0's book of the run: which rounds are planned, what has been reported. It turns reports
// into rows on the sink; no MPI, so it is unit tested with a fake sink.
class LiveBook {
 public:
  explicit LiveBook(LiveOutput& out) : out_(out) {}

  void set_suspect_rule(SuspectRule rule) { suspect_rule_ = std::move(rule); }
  // A run of rounds: global round numbers first.. first+rounds.size()-1, each with its pairs.
  void rounds_planned(const World& world, const std::string& label, std::size_t first,
                      const std::vector<RankRound>& rounds);
  // One pair's initiator's results of the round (possibly none, e.g. the partner was silent).
  void pair_reported(std::size_t round, std::vector<ProbeResult> results);
  // Rounds that never heard from every pair (a lost rank): printed with what came.
  void flush_rounds();

  void local_reported(const std::string& host, const std::vector<ProbeResult>& results);

  // An all-reduce sweep in one placement; then each case's summary as rank 0 gathers it.
  void allreduce_started(const std::string& title, bool out_of_place, bool in_place, std::size_t cases);
  void allreduce_case(const ProbeResult& summary, std::size_t done);
  void allreduce_done();

  // A new check round (burn-in): what was planned before is forgotten.
  void reset();

 private:
  struct PlannedRound {
    std::string label;
    std::size_t k = 0, total = 0;
    std::size_t expected_reports = 0;  // rank pairs
    std::size_t expected_host_pairs = 0;
    std::size_t reports = 0;
    std::vector<ProbeResult> results;
    bool printed = false;
  };
  void print_round(PlannedRound& round);
  std::vector<std::string> suspects_so_far();
  void print_case(const ProbeResult& summary);

  LiveOutput& out_;
  SuspectRule suspect_rule_;
  std::map<std::size_t, PlannedRound> rounds_;
  std::vector<ProbeResult> pair_results_;  // every round's, for the suspect rule
  std::vector<std::string> suspects_;      // the rule's last answer
  Clock::time_point rule_ended_;
  Seconds rule_cost_{0};  // how long the rule's last judgement took
  // All-reduce: the out-of-place half of a size waits for its in-place half.
  std::string allreduce_title_;
  bool out_of_place_ = true, in_place_ = true;
  std::size_t allreduce_cases_ = 0;
  std::optional<AllReduceRow> pending_;
};

// The worst pair of a round's results and its row (pure; for LiveBook and its tests).
RoundRow round_row(const std::vector<ProbeResult>& results);
// One half of nccl-tests' row from an all-reduce summary result (pure).
AllReduceHalf allreduce_half(const ProbeResult& summary);

// ---- The run's live channel, handed to every step as ninja hands its Status down. ----

// On rank 0 (not --quiet) the book and the output; on the other ranks the sender of their
// reports to rank 0. One that is off (made by default: a test, --quiet) does nothing, so a
// step need not ask.
class LiveChannel {
 public:
  LiveChannel() = default;
  // One process that prints its own reports through `out`, without MPI (tests).
  explicit LiveChannel(std::unique_ptr<LiveOutput> out);
  LiveChannel(const LiveChannel&) = delete;
  LiveChannel& operator=(const LiveChannel&) = delete;

  // Every rank, once, before anything runs (start_job): rank 0 prints unless `quiet`; the
  // others send their reports unless `quiet` (every rank has the same options).
  void begin(MpiSession& session, bool quiet);

  // Rank 0's book, when rank 0 reads reports; else nullptr.
  LiveBook* book() { return book_.get(); }
  void phase(const std::string& text);
  void budget(Clock::time_point started, double budget_s);
  void suspect_rule(SuspectRule rule);
  // Any rank: its reports, to rank 0's book.
  void pair_done(std::size_t round, const std::vector<ProbeResult>& results);
  void local_done(const std::string& host, const std::vector<ProbeResult>& results);
  // Rank 0: reads the reports that have arrived (never waits).
  void pump();
  // Rank 0: clears the terminal's progress line, for lines written to stderr by others.
  void pause();
  // Rank 0, after the gather (every rank's reports were sent before its results): reads the
  // rest, prints what is left and clears the terminal's progress line, before the report.
  void end();

 private:
  void send(const nlohmann::json& message);
  void deliver(const nlohmann::json& message);

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool mpi_ = false;
  int rank_ = 0;
  bool on_ = false;  // not --quiet: rank 0 reads reports, the others send them
  std::unique_ptr<LiveOutput> out_;
  std::unique_ptr<LiveBook> book_;
};

}  // namespace ibgpu
