#include "health/burn_in.h"

#include <cmath>
#include <iostream>
#include <thread>

#include "app/check_round.h"
#include "app/live_events.h"
#include "build_info.h"
#include "cluster/gather.h"
#include "cluster/liveness.h"
#include "cluster/world.h"
#include "core/text.h"
#include "core/units.h"
#include "health/admission.h"
#include "reports/jsonl.h"
#include "reports/render_util.h"
#include "scheduler/kubernetes.h"

namespace ibgpu {

namespace {

double seconds_since(Clock::time_point t) { return Seconds(Clock::now() - t).count(); }

// Rank 0's decision after `finished` rounds: the seconds to wait before the
// next round, or none (stop) when --rounds are done or a round as long as the
// last would not end within the duration.
std::optional<double> decide_next_round(const BurnInOptions& options, Clock::time_point start,
                                        Clock::time_point round_start, int finished) {
  if (stop_requested()) return std::nullopt;
  if (options.rounds > 0 && finished >= options.rounds) return std::nullopt;
  const double last_round = seconds_since(round_start);
  const double wait = std::max(0.0, options.interval_s - last_round);
  if (options.duration_s > 0 && seconds_since(start) + wait + last_round > options.duration_s) return std::nullopt;
  return wait;
}

// Every rank follows rank 0's decision, so nobody starts a round alone. On
// the wire: the wait in seconds, or "stop".
std::optional<double> next_round_in(MpiSession& session, const BurnInOptions& options, Clock::time_point start,
                                    Clock::time_point round_start, int finished) {
  if (!session.world().mpi) return decide_next_round(options, start, round_start, finished);
  const auto answer = consult(session.comm(), kTagBurnIn, "", options.check.common.timeout,
                              [&](const std::vector<std::optional<std::string>>&) {
                                const auto wait = decide_next_round(options, start, round_start, finished);
                                return wait ? std::to_string(*wait) : std::string("stop");
                              });
  if (!answer || *answer == "stop") return std::nullopt;
  return std::stod(*answer);
}

void nap(double seconds) {
  const Deadline until(Seconds{seconds});
  while (!until.expired()) {
    heartbeat();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string state_counts(const Report& r) {
  int bad = 0, degraded = 0, unknown = 0;
  for (const auto& v : r.verdicts) {
    if (v.state == HealthState::failed) ++bad;
    if (v.state == HealthState::degraded) ++degraded;
    if (v.state == HealthState::unknown) ++unknown;
  }
  return std::to_string(bad) + " failed, " + std::to_string(degraded) + " degraded, " + std::to_string(unknown) +
         " unknown";
}

Report burn_in_report(const BurnInResult& result, const Report& first, const Report& last, const BurnInOptions& options,
                      std::vector<std::string> notes) {
  Report out;
  out.tool = last.tool;
  out.run = first.run;            // start and command of the burn-in
  out.run.id = first.run.parent;  // the burn-in's own id, its rounds' parent
  out.run.parent.clear();
  out.run.finished = last.run.finished;
  out.run.notes = std::move(notes);
  out.hosts = result.hosts;
  out.verdicts = result.verdicts;
  out.summary = result.summary;
  out.summary.kubernetes = kubernetes_map(out.verdicts);
  BurnInStats stats = result.stats;
  if (options.duration_s > 0) stats.duration_s = options.duration_s;  // none: --rounds alone
  if (options.interval_s > 0) stats.interval_s = options.interval_s;  // none: back to back
  out.burn_in = std::move(stats);
  return out;
}

// What was asked for, in words: "2h", "6 rounds", "6 rounds within 10m".
std::string asked_text(const BurnInOptions& options) {
  const std::string rounds = std::to_string(options.rounds) + (options.rounds == 1 ? " round" : " rounds");
  if (options.rounds == 0) return duration_text(options.duration_s);
  if (options.duration_s <= 0) return rounds;
  return rounds + " within " + duration_text(options.duration_s);
}

}  // namespace

int run_burn_in(MpiSession& session, const BurnInOptions& options) {
  const World& world = session.world();
  const CommonOptions& common = options.check.common;
  CheckRound round(world, options.check);
  Command command = round.command();
  // The stream must be writable before anything runs; rank 0 writes it.
  std::optional<JsonlWriter> stream;
  const auto check_preflight = command.preflight;
  command.preflight = [&](MpiSession& s) {
    std::string problem = check_preflight(s);
    if (problem.empty() && s.world().rank == 0) {
      try {
        stream.emplace(JsonlWriter::open(options.jsonl_path));
      } catch (const std::exception& e) {
        problem = std::string("--jsonl: ") + e.what();
      }
    }
    return problem;
  };
  if (world.rank == 0)
    std::cerr << "ibgpu: burn-in for " << asked_text(options)
              << (options.interval_s > 0 ? ", a round every " + duration_text(options.interval_s)
                                         : std::string(", rounds back to back"))
              << ", rounds to " << options.jsonl_path << '\n';
  round.print_plan();
  LiveChannel live;
  if (int code = start_job(session, common, command, live); code >= 0) return code;

  const auto start = Clock::now();
  // The burn-in's id: its stream's header, each round's parent, its summary report's run id.
  const std::string burn_in_id = new_run_id();
  if (world.rank == 0) {
    try {
      stream->append(burn_in_header_record(burn_in_id, rfc3339_now(), common.argv, launch_environment(),
                                           ToolInfo{"ibgpu", build::kVersion, build::kGit}));
    } catch (const std::exception& e) {
      std::cerr << "ibgpu: " << printable(e.what()) << '\n';
    }
  }
  BurnInTally tally(options.check.profile);
  std::optional<Report> first, last;
  std::vector<std::string> notes;
  bool all_present = true;
  for (int k = 1;; ++k) {
    const auto round_start = Clock::now();
    bool present = true;
    std::optional<Report> report = run_round(session, common, command, live, present);
    const bool lost = mpi_lost();  // no later round: this process makes no MPI call again
    if (stop_requested()) {
      // The round was cut short: it is not a finished round, and the stream keeps only those.
      if (world.rank == 0)
        notes.push_back("round " + std::to_string(k) + " was interrupted by a stop signal and is not counted");
      break;
    }
    if (world.rank == 0 && report) {
      report->run.parent = burn_in_id;
      all_present = all_present && present;
      try {
        stream->append(burn_in_round_record(k, *report));
      } catch (const std::exception& e) {
        std::cerr << "ibgpu: " << printable(e.what()) << '\n';
        notes.push_back(std::string("the round stream could not be written: ") + e.what());
      }
      tally.add(*report);
      std::cerr << "ibgpu: burn-in round " << k << (options.rounds > 0 ? " of " + std::to_string(options.rounds) : "")
                << " done in " << duration_text(seconds_since(round_start)) << ": " << to_string(report->summary.state)
                << " (" << state_counts(*report) << "); " << duration_text(seconds_since(start))
                << (options.duration_s > 0 ? " of " + duration_text(options.duration_s) : std::string(" elapsed"))
                << '\n';
      if (!first) first = *report;
      last = std::move(report);
    }
    if (lost) {
      if (world.rank == 0)
        notes.push_back("round " + std::to_string(k) + " lost MPI (" + why_mpi_lost() + "): no later round");
      break;
    }
    const std::optional<double> wait = next_round_in(session, options, start, round_start, k);
    if (!wait) break;
    nap(*wait);
    if (stop_requested()) break;
  }
  if (world.rank != 0) return end_job(session, common, 0, true);

  int code = 3;
  if (!last) {
    std::cerr << "ibgpu: burn-in: no round finished\n";
  } else {
    notes.insert(notes.begin(), "burn-in: " + count_text(tally.rounds(), "round") + " in " +
                                    duration_text(seconds_since(start)) + " (rounds in " + options.jsonl_path + ")");
    Report summary = burn_in_report(tally.finish(), *first, *last, options, std::move(notes));
    try {
      stream->append(burn_in_summary_record(summary));
    } catch (const std::exception& e) {
      std::cerr << "ibgpu: " << printable(e.what()) << '\n';
    }
    code = deliver(summary, common, command);  // drains by the burn-in verdicts, when asked
  }
  return end_job(session, common, code, all_present);
}

}  // namespace ibgpu
