#include "app/pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <iostream>
#include <random>

#include "app/live_events.h"
#include "app/text.h"
#include "build_info.h"
#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/line.h"
#include "cluster/liveness.h"
#include "core/errors.h"
#include "core/verdict.h"
#include "core/waits.h"
#include "health/decision.h"
#include "reports/atomic_file.h"
#include "reports/json.h"
#include "reports/render_util.h"
#include "reports/reporter.h"

namespace ibgpu {

using nlohmann::json;

json to_json(const RankResult& r) {
  return json{{"rank", r.rank},
              {"host", r.host},
              {"inventory", r.inventory ? json(*r.inventory) : json(nullptr)},
              {"probes", r.probes}};
}

RankResult rank_result_from_json(const json& j) {
  RankResult r;
  r.rank = j.at("rank").get<int>();
  r.host = j.at("host").get<std::string>();
  if (!j.at("inventory").is_null()) r.inventory = j.at("inventory").get<HostInventory>();
  r.probes = j.at("probes").get<std::vector<ProbeResult>>();
  return r;
}

std::string rfc3339_now() {
  const std::time_t t = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void mark_interrupted(std::vector<ProbeResult>& results, std::size_t from) {
  if (!stop_requested()) return;
  for (std::size_t i = from; i < results.size(); ++i) {
    ProbeResult& r = results[i];
    if (r.status != ProbeStatus::timeout && r.status != ProbeStatus::error) continue;
    r.status = ProbeStatus::skipped;
    r.skipped_by = SkippedBy::ibgpu;
    r.reason = "interrupted by a stop signal (job teardown or operator): " + r.error.value_or("no detail");
    r.error.reset();
  }
}

namespace {

std::string new_run_id() {
  std::random_device rd;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", rd(), rd());
  return text;
}

// What an operator reads when MPI was given up on: why, and which ranks' results came over the line.
std::string lost_mpi_note(const World& world, const std::vector<int>& by_line) {
  std::string note = mpi_lost() ? "rank 0 lost MPI (" + why_mpi_lost() + ")" : std::string("rank 0 kept MPI");
  note += "; results of " + std::to_string(by_line.size()) + " of " + std::to_string(world.size - 1) +
          " other rank(s) came over the line (TCP to rank 0), from ranks that lost MPI";
  return note;
}

ProbeResult lost_rank(const RankPlace& place, const std::string& gave_up) {
  ProbeResult p;
  p.id = kGatherProbe;
  p.status = ProbeStatus::timeout;
  p.scope = Scope{{place.host}, {place.rank}, {}};
  p.error = "rank " + std::to_string(place.rank) + " on host " + place.host + " sent no results " + gave_up +
            " (dead, hung or stopped)";
  return p;
}

// Both ends of a pair report a failed meeting; ranks arrive in order, so the
// initiator's account (when it has one) is kept and the echo dropped.
void add_unless_reported(std::vector<ProbeResult>& probes, ProbeResult p) {
  auto same = [&](const ProbeResult& q) {
    return q.id == p.id && q.scope.ranks == p.scope.ranks &&
           q.params.value("size_B", json()) == p.params.value("size_B", json()) &&
           q.params.value("retest", 0) == p.params.value("retest", 0);  // a re-test is not an echo
  };
  const bool pair_result = p.kind().pair() && p.scope.ranks.size() == 2;
  if (pair_result && std::any_of(probes.begin(), probes.end(), same)) return;
  probes.push_back(std::move(p));
}

HostInventory* find_host(std::vector<HostInventory>& hosts, const std::string& name) {
  for (auto& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

}  // namespace

Report assemble(const World& world, const std::vector<std::optional<std::string>>& payloads,
                const std::string& gave_up) {
  Report report;
  report.run.ranks = world.size;
  for (const auto& host : world.hosts()) {
    HostInventory h;
    h.name = host;
    h.ranks = world.ranks_on(host);
    report.hosts.push_back(std::move(h));
  }
  report.run.scope = scope_of(report.hosts);
  if (report.run.scope == RunScope::node)
    report.run.notes.push_back(
        "scope: one host (run.scope node): its own checks are judged; the checks between "
        "hosts are out of scope, neither passed nor unknown");
  for (std::size_t r = 0; r < payloads.size(); ++r) {
    const RankPlace& place = world.places.at(r);
    if (!payloads[r]) {
      report.probes.push_back(lost_rank(place, gave_up));
      report.run.notes.push_back(*report.probes.back().error);
      continue;
    }
    RankResult result;
    try {
      result = rank_result_from_json(json::parse(*payloads[r]));
    } catch (const std::exception& e) {
      ProbeResult bad;
      bad.id = kGatherProbe;
      bad.status = ProbeStatus::error;
      bad.scope = Scope{{place.host}, {place.rank}, {}};
      bad.error = "unreadable results from rank " + std::to_string(r) + ": " + e.what();
      report.probes.push_back(std::move(bad));
      continue;
    }
    if (result.inventory) {
      HostInventory* slot = find_host(report.hosts, place.host);
      std::vector<int> ranks = slot->ranks;
      *slot = std::move(*result.inventory);
      slot->name = place.host;
      slot->ranks = std::move(ranks);
    }
    for (auto& p : result.probes) add_unless_reported(report.probes, std::move(p));
  }
  return report;
}

void report_usage_error(const std::string& message, const std::string& json_path) {
  // One write, so lines from several ranks do not interleave.
  const std::string line = "ibgpu: " + printable(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  if (json_path.empty()) return;
  const json doc{{"schema_version", kSchemaVersion},
                 {"error", {{"kind", "usage"}, {"message", message}}},
                 {"summary", {{"state", "unknown"}, {"exit_code", kExitUsage}}}};
  if (json_path == "-") {
    std::cout << doc.dump(2) << '\n';
    return;
  }
  if (why_not_writable(json_path).empty())
    write_atomically(json_path, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
}

namespace {

// Every rank says whether it can start (rank 0 also checks its output path);
// one all-reduce with a deadline makes the answer everyone's.
std::string agree_on_start(MpiSession& session, const CommonOptions& options, const Command& command) {
  const World& world = session.world();
  std::string problem = split_launch(world);
  if (problem.empty()) problem = command.preflight(session);
  if (problem.empty() && world.rank == 0 && !options.json_path.empty() && options.json_path != "-")
    problem = why_not_writable(options.json_path);
  if (!world.mpi) return problem;
  TransferMemory<std::array<int, 2>> flags(std::array<int, 2>{problem.empty() ? 0 : 1, 0});  // mine, any
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(&(*flags)[0], &(*flags)[1], 1, MPI_INT, MPI_MAX, session.comm(), &request),
            "MPI_Iallreduce");
  if (!wait_with_deadline(request, Deadline(options.timeout)))
    throw CallError("MPI_Iallreduce", "not every rank reached the start within the timeout");
  const int any = (*flags)[1];
  if (!problem.empty() && world.size > 1)
    problem = "host " + world.host() + " rank " + std::to_string(world.rank) + ": " + problem;
  if (any && problem.empty()) return "-";  // another rank has the problem and says so
  return problem;
}

// The file first: after a launcher's stop signal the kill follows within a second (mpirun's
// default), and the table on stdout goes through the launcher, which may be slow to take it.
// A file that cannot be written still leaves the table on stdout (the error follows it).
void render(const Report& report, const CommonOptions& options) {
  JsonReporter json_out;
  std::exception_ptr file_error;
  if (!options.json_path.empty() && options.json_path != "-") {
    try {
      write_atomically(options.json_path, [&](std::ostream& out) { json_out.render(report, out); });
    } catch (const std::exception&) {
      file_error = std::current_exception();
    }
  }
  if (options.json_path == "-") {
    json_out.render(report, std::cout);
  } else {
    make_reporter(options.format)->render(report, std::cout);
  }
  std::cout.flush();
  if (file_error) std::rethrow_exception(file_error);
}

// The report on disk is complete before anything acts on it; what the
// follow-up has to say joins it afterwards.
void follow_up(Report& report, const CommonOptions& options, const Command& command) {
  std::vector<std::string> notes;
  try {
    notes = command.after_report(report);
  } catch (const std::exception& e) {
    notes.push_back(std::string("follow-up actions stopped: ") + e.what());
    std::cerr << "ibgpu: " << notes.back() << '\n';
  }
  if (notes.empty()) return;
  report.run.notes.insert(report.run.notes.end(), notes.begin(), notes.end());
  if (options.json_path.empty() || options.json_path == "-") return;
  try {
    JsonReporter json_out;
    write_atomically(options.json_path, [&](std::ostream& out) { json_out.render(report, out); });
  } catch (const std::exception& e) {
    std::cerr << "ibgpu: the report without these notes stays: " << e.what() << '\n';
  }
}

}  // namespace

namespace {

// Rank 0 waits for slow but living ranks (heartbeats) up to this long; the
// others must wait for its release at least that long.
Seconds gather_overall(const CommonOptions& options) { return overall_wait(options.timeout); }

Seconds release_wait(const CommonOptions& options) { return gather_overall(options) + 2 * options.timeout; }

}  // namespace

int start_job(MpiSession& session, const CommonOptions& options, const Command& command) {
  const World& world = session.world();
  if (std::string problem = agree_on_start(session, options, command); !problem.empty()) {
    // Each rank with a problem says it on stderr; rank 0 also writes the JSON error document.
    if (problem != "-") report_usage_error(problem, world.rank == 0 ? options.json_path : "");
    return session.end(kExitUsage, true, release_wait(options));
  }
  if (world.rank == options.test_stall_rank) {
    // A test hook: a rank that stops answering, as a hung peer would. It
    // still obeys SIGTERM so the job can be torn down.
    std::cerr << "ibgpu: rank " << world.rank << " stalling (test hook)" << std::endl;
    const Deadline forever(std::chrono::hours(1));
    while (!forever.expired()) usleep(10000);
  }
  if (world.mpi) enable_heartbeats(session.comm(), world.rank, std::max(0.05, options.timeout.count() / 5));
  live_begin(session, options.quiet);
  return -1;
}

std::optional<Report> run_round(MpiSession& session, const CommonOptions& options, const Command& command,
                                bool& all_present) {
  const World& world = session.world();
  const std::string started = rfc3339_now();
  begin_phase_epoch();
  RankResult mine;
  try {
    mine = command.run(session);
  } catch (const std::exception& e) {
    ProbeResult p;
    p.id = kRankProbe;
    p.status = ProbeStatus::error;
    p.scope = Scope{{world.host()}, {world.rank}, {}};
    p.error = e.what();
    mine.probes.push_back(std::move(p));
  }
  set_phase(kPhaseReport);
  mine.rank = world.rank;
  mine.host = world.host();
  const std::string payload = to_json(mine).dump();
  all_present = true;

  const Deadline send_deadline = Deadline(gather_overall(options)).with_stop_grace(kStopGrace);
  if (world.rank != 0 && mpi_lost()) {
    // No MPI any more: the results go over the line (cluster/line.h).
    if (!send_results_over_line(world.rank, payload, send_deadline))
      std::cerr << "ibgpu: rank " << world.rank
                << " lost MPI and could not reach rank 0's line: its results are lost\n";
    return std::nullopt;
  }
  if (world.rank != 0) {
    // Rank 0 may still be busy measuring: the send waits as long as rank 0's
    // own gather would, beating meanwhile so rank 0 knows this rank lives.
    send_with_deadline(session.comm(), 0, kTagGather, payload, send_deadline);
    return std::nullopt;
  }

  std::vector<std::optional<std::string>> payloads{payload};
  const auto gather_started = Clock::now();
  if (world.mpi) {
    GatherLimits limits;
    limits.silence = options.timeout;
    limits.overall = gather_overall(options);
    limits.stop_grace = kStopGrace;
    // From MPI, and from the line where ranks that lost MPI send; only the line once rank 0 lost
    // MPI (it can only have lost it where the line is open: cluster/line.h).
    MpiMailbox by_mpi(session.comm(), kTagGather);
    LineListener* line = line_listener();
    if (line && mpi_lost()) {
      payloads = gather_at_root(*line, world.size, payload, limits).payloads;
    } else if (line) {
      BothMailboxes both(by_mpi, *line);
      payloads = gather_at_root(both, world.size, payload, limits).payloads;
    } else {
      payloads = gather_at_root(by_mpi, world.size, payload, limits).payloads;
    }
  }
  for (const auto& p : payloads) all_present = all_present && p.has_value();
  // Every rank sent its live reports before its results: the rest of them are here now.
  live_end();

  const std::string gave_up = stop_requested()
                                  ? "before the job was stopped (signal after " +
                                        duration_text(Seconds(Clock::now() - gather_started).count()) + " of waiting)"
                                  : "and was silent for " + duration_text(options.timeout.count());
  Report report = assemble(world, payloads, gave_up);
  if (ends_over_line()) report.run.notes.push_back(lost_mpi_note(world, line_listener()->arrivals()));
  if (stop_requested()) {
    // Ranks cut short by the stop sent nothing or timed out: that is our stop, not their fault.
    report.run.interrupted = true;
    mark_interrupted(report.probes);
    report.run.notes.push_back("interrupted by a stop signal: what was not measured is unknown");
  }
  report.tool = ToolInfo{"ibgpu", build::kVersion, build::kGit};
  report.run.id = new_run_id();
  report.run.started = started;
  report.run.command = options.argv;
  command.judge(report);
  report.run.finished = rfc3339_now();
  return report;
}

int deliver(Report& report, const CommonOptions& options, const Command& command) {
  // A stop (Ctrl-C, scancel, a job's time limit) never drains or resumes a node.
  constexpr const char* kNotApplied = "admission actions were not applied because the run was interrupted";
  if (stop_requested()) report.run.interrupted = true;
  if (report.run.interrupted) decide_nothing(report.summary);
  if (report.run.interrupted && command.after_report) report.run.notes.push_back(kNotApplied);
  try {
    render(report, options);
  } catch (const std::exception& e) {
    std::cerr << "ibgpu: " << printable(e.what()) << '\n';
    // The verdict could not be delivered: never report success, and nothing acts on it.
    if (command.after_report) std::cerr << "ibgpu: no follow-up actions: the report could not be written\n";
    return 3;
  }
  // An interrupted run is never healthy: 3 (incomplete), or 2 when it found a failure first.
  if (stop_requested() && !report.run.interrupted) {
    report.run.interrupted = true;
    decide_nothing(report.summary);
  }
  const int code = report.summary.exit_code;
  if (!command.after_report) return code;
  if (report.run.interrupted || stop_requested()) {
    std::cerr << "ibgpu: " << kNotApplied << '\n';
    return code;
  }
  follow_up(report, options, command);
  return code;
}

int end_job(MpiSession& session, const CommonOptions& options, int exit_code, bool all_present) {
  return session.end(exit_code, all_present, release_wait(options));
}

int execute(MpiSession& session, const CommonOptions& options, const Command& command) {
  if (int code = start_job(session, options, command); code >= 0) return code;
  bool all_present = true;
  std::optional<Report> report = run_round(session, options, command, all_present);
  if (!report) return end_job(session, options, 0, true);
  return end_job(session, options, deliver(*report, options, command), all_present);
}

}  // namespace ibgpu
