#include "app/pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <iostream>
#include <map>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "app/collectives.h"
#include "app/live_events.h"
#include "app/network.h"
#include "app/payload_reader.h"
#include "app/text.h"
#include "build_info.h"
#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/line.h"
#include "cluster/liveness.h"
#include "cluster/world.h"
#include "core/errors.h"
#include "core/text.h"
#include "core/units.h"
#include "core/verdict.h"
#include "core/waits.h"
#include "health/controls.h"
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
              {"probes", r.probes},
              {"cuda_visible_devices", r.cuda_visible_devices ? json(*r.cuda_visible_devices) : json(nullptr)}};
}

RankResult rank_result_from_json(const json& j) {
  RankResult r;
  r.rank = j.at("rank").get<int>();
  r.host = j.at("host").get<std::string>();
  if (!j.at("inventory").is_null()) r.inventory = j.at("inventory").get<HostInventory>();
  r.probes = j.at("probes").get<std::vector<ProbeResult>>();
  if (const auto it = j.find("cuda_visible_devices"); it != j.end() && it->is_string())
    r.cuda_visible_devices = it->get<std::string>();
  return r;
}

namespace {

// What went wrong on a rank as a whole (its command threw, its results were too long to send).
ProbeResult rank_error(const std::string& host, int rank, std::string error) {
  ProbeResult p;
  p.id = kRankProbe;
  p.status = ProbeStatus::error;
  p.scope = Scope{{host}, {rank}, {}};
  p.error = std::move(error);
  return p;
}

}  // namespace

std::string rank_payload(const RankResult& mine, std::size_t cap) {
  std::string payload = to_json(mine).dump();
  if (payload.size() <= cap) return payload;
  RankResult instead;
  instead.rank = mine.rank;
  instead.host = mine.host;
  instead.probes.push_back(rank_error(mine.host, mine.rank,
                                      "rank " + std::to_string(mine.rank) + " on host " + mine.host +
                                          ": its results (" + std::to_string(mine.probes.size()) + " results, " +
                                          std::to_string(payload.size()) + " bytes) are over the " +
                                          std::to_string(cap) + " bytes a rank may send rank 0, and were not sent"));
  return to_json(instead).dump();
}

std::string utc_now(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[128];
  return std::string(text, std::strftime(text, sizeof text, format, &utc));
}

std::string rfc3339_now() { return rfc3339(std::time(nullptr)); }

void stamp_time(std::vector<ProbeResult>& results, std::size_t from) {
  const std::string now = rfc3339_now();
  for (std::size_t i = from; i < results.size(); ++i)
    if (results[i].time.empty()) results[i].time = now;
}

namespace {
constexpr std::string_view kInterrupted = "interrupted by a stop signal (job teardown or operator): ";
}  // namespace

void mark_interrupted(std::vector<ProbeResult>& results, std::size_t from) {
  if (!stop_requested()) return;
  for (std::size_t i = from; i < results.size(); ++i)
    if (results[i].status == ProbeStatus::timeout || results[i].status == ProbeStatus::error) skip_for_stop(results[i]);
}

void skip_for_stop(ProbeResult& r) {
  r.status = ProbeStatus::skipped;
  r.skipped_by = SkippedBy::ibgpu;
  r.reason = std::string(kInterrupted) + r.error.value_or("no detail");
  r.error.reset();
}

bool cut_by_stop(const ProbeResult& r) {
  return r.status == ProbeStatus::skipped && r.skipped_by == SkippedBy::ibgpu && r.reason &&
         r.reason->starts_with(kInterrupted);
}

std::string new_run_id() {
  std::random_device rd;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", rd(), rd());
  return text;
}

std::map<std::string, std::string> launch_environment() {
  std::map<std::string, std::string> out;
  for (const char* name : kLaunchVariables)
    if (const char* value = std::getenv(name); value && *value)
      out.emplace(name, std::string(value).substr(0, kMaxLaunchValue));
  return out;
}

namespace {

// What an operator reads when MPI was given up on: why, and which ranks' results came over the line.
std::string lost_mpi_note(const World& world, const std::vector<int>& by_line) {
  std::string note = mpi_lost() ? "rank 0 lost MPI (" + why_mpi_lost() + ")" : std::string("rank 0 kept MPI");
  note += "; results of " + std::to_string(by_line.size()) + " of " + count_text(world.size - 1, "other rank") +
          " came over the line (TCP to rank 0), from ranks that lost MPI";
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
// initiator's account (when it has one) is kept and the echo dropped. An echo
// is a pair result with the probe, ranks, size and re-test pass (a re-test is
// not an echo) of one kept before. Rank 0 holds hundreds of thousands of
// results at fleet scale: the kept ones are found by key, never by a walk.
class PairResults {
 public:
  explicit PairResults(const std::vector<ProbeResult>& probes)
      : probes_(probes), kept_(0, Hash{probes_}, SamePair{probes_}) {}

  // Whether probes[index], a pair result, is the first of its key (and now known).
  bool first(std::size_t index) { return kept_.insert(index).second; }

 private:
  static json size_of(const ProbeResult& p) { return p.params.value("size_B", json()); }
  static int retest_of(const ProbeResult& p) { return p.params.value("retest", 0); }

  // Over the key but the size: a pair's few sizes share a bucket, and a size's hash would
  // depend on how the number is stored (8 and 8.0 are the same size).
  struct Hash {
    const std::vector<ProbeResult>& probes;
    std::size_t operator()(std::size_t i) const {
      const ProbeResult& p = probes[i];
      std::size_t h = std::hash<std::string>()(p.id);
      for (int rank : p.scope.ranks) h = h * 1000003 ^ std::hash<int>()(rank);
      return h * 1000003 ^ std::hash<int>()(retest_of(p));
    }
  };
  struct SamePair {
    const std::vector<ProbeResult>& probes;
    bool operator()(std::size_t i, std::size_t j) const {
      const ProbeResult& p = probes[i];
      const ProbeResult& q = probes[j];
      return q.id == p.id && q.scope.ranks == p.scope.ranks && size_of(q) == size_of(p) && retest_of(q) == retest_of(p);
    }
  };

  const std::vector<ProbeResult>& probes_;
  std::unordered_set<std::size_t, Hash, SamePair> kept_;
};

void add_unless_reported(std::vector<ProbeResult>& probes, PairResults& pairs, ProbeResult p) {
  const bool pair_result = p.kind().pair() && p.scope.ranks.size() == 2;
  probes.push_back(std::move(p));
  if (pair_result && !pairs.first(probes.size() - 1)) probes.pop_back();
}

// The hosts of the world in rank order of first appearance, each with its ranks (World::hosts
// and ranks_on, in one pass over the ranks); and where each sits among them.
std::vector<HostInventory> world_hosts(const World& world, std::unordered_map<std::string, std::size_t>& index) {
  std::vector<HostInventory> hosts;
  for (const RankPlace& place : world.places) {
    const auto [it, fresh] = index.try_emplace(place.host, hosts.size());
    if (fresh) {
      hosts.emplace_back();
      hosts.back().name = place.host;
    }
    hosts[it->second].ranks.push_back(place.rank);
  }
  return hosts;
}

// Room for the results still to come, as many per payload byte as so far: every rank's results
// land in one list, and growing it by doubling moved them all again and again into memory
// touched afresh (a fifth of assemble at 4,096 hosts x 8 ranks).
void make_room(std::vector<ProbeResult>& probes, std::size_t adding, std::size_t bytes_read, std::size_t bytes_all) {
  const std::size_t need = probes.size() + adding;
  if (need <= probes.capacity()) return;
  const double expected = static_cast<double>(need) * static_cast<double>(bytes_all) / static_cast<double>(bytes_read);
  const auto room = static_cast<std::size_t>(expected * 1.05);
  probes.reserve(std::max({need, room, probes.capacity() + probes.capacity() / 2}));
}

}  // namespace

Report assemble(const World& world, const std::vector<std::optional<std::string>>& payloads,
                const std::string& gave_up) {
  Report report;
  report.run.ranks = world.size;
  std::unordered_map<std::string, std::size_t> host_index;
  report.hosts = world_hosts(world, host_index);
  PairResults pairs(report.probes);
  report.run.scope = scope_of(report.hosts);
  if (report.run.scope == RunScope::node)
    report.run.notes.push_back(
        "scope: one host (run.scope node): its own checks are judged; the checks between "
        "hosts are out of scope, neither passed nor unknown");
  std::size_t bytes_all = 0, bytes_read = 0;
  for (const auto& p : payloads) bytes_all += p ? p->size() : 0;
  RankResult result;  // each rank's in turn
  for (std::size_t r = 0; r < payloads.size(); ++r) {
    const RankPlace& place = world.places.at(r);
    if (!payloads[r]) {
      report.probes.push_back(lost_rank(place, gave_up));
      report.run.notes.push_back(*report.probes.back().error);
      continue;
    }
    bytes_read += payloads[r]->size();
    try {
      read_rank_payload(*payloads[r], result);
    } catch (const std::exception& e) {
      ProbeResult bad;
      bad.id = kGatherProbe;
      bad.status = ProbeStatus::error;
      bad.scope = Scope{{place.host}, {place.rank}, {}};
      bad.error = "unreadable results from rank " + std::to_string(r) + ": " + e.what();
      report.probes.push_back(std::move(bad));
      continue;
    }
    HostInventory& slot = report.hosts[host_index.at(place.host)];
    if (result.inventory) {
      std::vector<int> ranks = std::move(slot.ranks);
      std::map<int, std::string> visible = std::move(slot.cuda_visible_devices);
      slot = std::move(*result.inventory);
      slot.name = place.host;
      slot.ranks = std::move(ranks);
      slot.cuda_visible_devices = std::move(visible);
    }
    if (result.cuda_visible_devices) slot.cuda_visible_devices[place.rank] = std::move(*result.cuda_visible_devices);
    make_room(report.probes, result.probes.size(), bytes_read, bytes_all);
    for (auto& p : result.probes) add_unless_reported(report.probes, pairs, std::move(p));
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
  if (problem.empty() && world.rank == 0 && !options.prometheus_path.empty())
    problem = why_not_writable(options.prometheus_path);
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
// A JSON report file is one line (a fleet's is a third the size indented); on a terminal it is
// indented for the eye. --format json (on request) is indented anywhere.
void render(const Report& report, const CommonOptions& options) {
  const JsonReporter json_file(JsonReporter::Layout::compact);
  std::exception_ptr file_error;
  if (!options.json_path.empty() && options.json_path != "-") {
    try {
      write_atomically(options.json_path, [&](std::ostream& out) { json_file.render(report, out); });
    } catch (const std::exception&) {
      file_error = std::current_exception();
    }
  }
  if (!options.prometheus_path.empty()) {
    try {
      write_atomically(options.prometheus_path, [&](std::ostream& out) { PrometheusReporter{}.render(report, out); });
    } catch (const std::exception&) {
      if (!file_error) file_error = std::current_exception();
    }
  }
  if (options.json_path == "-") {
    const bool terminal = isatty(STDOUT_FILENO) == 1;
    JsonReporter(terminal ? JsonReporter::Layout::indented : JsonReporter::Layout::compact).render(report, std::cout);
  } else {
    const auto columns = terminal_width();
    make_reporter(options.format, columns ? LineWidth{*columns, true} : LineWidth{})->render(report, std::cout);
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
    const JsonReporter json_file(JsonReporter::Layout::compact);
    write_atomically(options.json_path, [&](std::ostream& out) { json_file.render(report, out); });
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

int start_job(MpiSession& session, const CommonOptions& options, const Command& command, LiveChannel& live) {
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
  live.begin(session, options.quiet);
  return -1;
}

std::optional<Report> run_round(MpiSession& session, const CommonOptions& options, const Command& command,
                                LiveChannel& live, bool& all_present) {
  const World& world = session.world();
  const std::string started = rfc3339_now();
  begin_phase_epoch();
  RankResult mine;
  try {
    mine = command.run(session, live);
  } catch (const std::exception& e) {
    mine.probes.push_back(rank_error(world.host(), world.rank, e.what()));
  }
  stamp_time(mine.probes);
  set_phase(kPhaseReport);
  mine.rank = world.rank;
  mine.host = world.host();
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    mine.cuda_visible_devices = std::string(visible).substr(0, kMaxLaunchValue);
  const std::string payload = rank_payload(mine);
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
    limits.known_lost = known_lost;  // given up on in an earlier step: one wait per lost rank
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
  live.end();

  const std::string gave_up = stop_requested()
                                  ? "before the job was stopped (signal after " +
                                        duration_text(Seconds(Clock::now() - gather_started).count()) + " of waiting)"
                                  : "and was silent for " + duration_text(options.timeout.count());
  Report report = assemble(world, payloads, gave_up);
  stamp_time(report.probes);  // rank 0's word for the ranks it gave up on
  // The members of an all-reduce a lost rank stopped all gave up on it: the lost rank is to blame.
  std::vector<int> lost;
  for (std::size_t r = 0; r < payloads.size(); ++r)
    if (!payloads[r]) lost.push_back(static_cast<int>(r));
  excuse_waits_on_lost(report.probes, world, lost);
  mark_after_lost_rank(report.probes, world, lost);
  settle_by_controls(report.probes);  // a verbs pair error its ports' loopbacks did not reproduce
  if (ends_over_line()) report.run.notes.push_back(lost_mpi_note(world, line_listener()->arrivals()));
  if (stop_requested()) {
    // Ranks cut short by the stop sent nothing or timed out: that is our stop, not their fault.
    report.run.interrupted = true;
    mark_interrupted(report.probes);
    mark_after_stop(report.probes);
    report.run.notes.push_back("interrupted by a stop signal: what was not measured is unknown");
  }
  report.tool = ToolInfo{"ibgpu", build::kVersion, build::kGit};
  report.run.id = new_run_id();
  report.run.launch = launch_environment();
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
  LiveChannel live;
  if (int code = start_job(session, options, command, live); code >= 0) return code;
  bool all_present = true;
  std::optional<Report> report = run_round(session, options, command, live, all_present);
  if (!report) return end_job(session, options, 0, true);
  return end_job(session, options, deliver(*report, options, command), all_present);
}

}  // namespace ibgpu
