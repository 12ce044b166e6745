#pragma once
// The one path every command takes: run on all ranks -> gather at rank 0
// (deadline) -> judge -> render. Commands supply the first and third steps.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/line.h"
#include "cluster/world.h"
#include "core/inventory.h"
#include "core/report.h"
#include "core/waits.h"

namespace ibgpu {

class LiveChannel;  // app/live_events.h

struct CommonOptions {
  std::string json_path;  // "" none, "-" stdout (then no table)
  // --prometheus: the report as Prometheus text in this file too (atomically), for the node
  // exporter's textfile collector; "" none.
  std::string prometheus_path;
  std::string format = "table";
  std::string sysfs_root = "/sys";
  Seconds timeout = kDefaultTimeout;  // longest wait for any peer (core/waits.h)
  std::vector<std::string> argv;
  // --quiet: no live output on stderr (rows, progress; app/live_output.h); errors still print.
  bool quiet = false;
  int test_stall_rank = -1;  // hidden, for tests: this rank hangs before sending results
};

// What one rank found. The inventory comes from the first rank on each host.
struct RankResult {
  int rank = 0;
  std::string host;
  std::optional<HostInventory> inventory;
  std::vector<ProbeResult> probes;
  std::optional<std::string> cuda_visible_devices;  // this rank's, where set
};

nlohmann::json to_json(const RankResult& r);
RankResult rank_result_from_json(const nlohmann::json& j);

// The text a rank sends rank 0: to_json(mine), dumped. Results longer than `cap` (the line's
// cap, cluster/line.h; the MPI gather keeps to it too) are not sent: in their place the rank
// sends one error result naming itself and their size, which rank 0 reports. Rank 0 so holds
// at most `cap` bytes of each rank, and a rank's results never fail to arrive for their size.
std::string rank_payload(const RankResult& mine, std::size_t cap = kLineMaxPayload);

struct Command {
  std::function<RankResult(MpiSession&, LiveChannel&)> run;  // every rank; live rows and progress go to the channel
  std::function<void(Report&)> judge;  // rank 0, pure (check --history: reads and appends the history folder)
  // Every rank, before anything runs: a non-empty answer is a usage or
  // configuration problem on that rank (e.g. an --hca it does not have), and
  // the whole job ends with exit 64.
  std::function<std::string(MpiSession&)> preflight = [](MpiSession&) { return std::string(); };
  // Rank 0, after the report is written (e.g. scheduler actions): the notes it
  // returns are added to the report's run.notes and a JSON report file is
  // written again with them. The exit code stays the verdict's.
  std::function<std::vector<std::string>(const Report&)> after_report;
};

// Assembles rank 0's view from whatever arrived: ranks that sent nothing
// become `timeout` results naming their host and rank and `gave_up` (how the
// wait ended, e.g. "within 60 s"). Pure.
Report assemble(const World& world, const std::vector<std::optional<std::string>>& payloads,
                const std::string& gave_up);

// Runs the command and returns the process exit code (may not return when
// peers were lost: the job is then aborted after the report is written).
// start_job, run_round, deliver, end_job in turn.
int execute(MpiSession& session, const CommonOptions& options, const Command& command);

// The steps of execute, for commands that run several rounds (burn-in):
// Every rank agrees to start (preflight; -1: go on, else the exit code to
// return), and heartbeats begin.
int start_job(MpiSession& session, const CommonOptions& options, const Command& command, LiveChannel& live);
// One round: run on every rank, gather at rank 0 (deadlines), judge. Rank 0
// gets the report (and whether every rank answered); the others nullopt.
std::optional<Report> run_round(MpiSession& session, const CommonOptions& options, const Command& command,
                                LiveChannel& live, bool& all_present);
// Rank 0: renders the table and writes --json, then runs the command's
// after_report (only when the report was written); returns the exit code.
int deliver(Report& report, const CommonOptions& options, const Command& command);
// Ends the job (every rank), see MpiSession::end.
int end_job(MpiSession& session, const CommonOptions& options, int exit_code, bool all_present);

// Results that a stop request cut short (the launcher tearing the job down
// after a rank died, the operator's Ctrl-C) become `skipped` with the error as
// their reason: the check could not finish, which is unknown, not failed. Only
// the dead rank itself is failed (rank 0 names it). Applies to results[from..]
// when a stop was requested; call it where results are made, right after the
// wait that ended.
void mark_interrupted(std::vector<ProbeResult>& results, std::size_t from = 0);
// What mark_interrupted does to each of those results, and how to tell one after.
void skip_for_stop(ProbeResult& r);
bool cut_by_stop(const ProbeResult& r);

// "2026-11-29T17:50:00Z"
std::string rfc3339_now();
// Gives the results that have no time yet (ProbeResult::time) this moment's: call it where results
// come in (after a pair, after a step); a rank's round stamps what is left when it ends.
void stamp_time(std::vector<ProbeResult>& results, std::size_t from = 0);
std::string new_run_id();  // 16 hex digits, random

// What the launcher says was tested, as a report's run.launch keeps it (those set, on this rank).
// The most of a launcher's variable a report keeps (a node list is compressed; a value past this is cut).
inline constexpr std::size_t kMaxLaunchValue = 4096;
inline constexpr const char* kLaunchVariables[] = {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_STEP_ID",
                                                   "SLURM_CLUSTER_NAME", "CUDA_VISIBLE_DEVICES"};
std::map<std::string, std::string> launch_environment();
// The time now in UTC, as strftime writes it in `format` (up to 127 characters).
std::string utc_now(const char* format);

// The one-line usage error, on stderr and, with --json, as a JSON document.
void report_usage_error(const std::string& message, const std::string& json_path);

}  // namespace ibgpu
