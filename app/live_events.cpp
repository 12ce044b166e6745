#include "app/live_events.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "cluster/kept_memory.h"
#include "cluster/tags.h"
#include "cluster/world.h"
#include "core/deadline.h"
#include "core/errors.h"
#include "health/judge.h"
#include "reports/json.h"

namespace ibgpu {

using nlohmann::json;

namespace {

std::string host_pair(const ProbeResult& p) {
  if (p.scope.hosts.size() != 2) return {};
  return p.scope.hosts[0] + "-" + p.scope.hosts[1];
}

bool bad(ProbeStatus s) { return s == ProbeStatus::failed || s == ProbeStatus::error || s == ProbeStatus::timeout; }

// What one host pair showed in a round: its worst status, its lowest bandwidth at its largest
// size, its highest median latency.
struct PairView {
  ProbeStatus status = ProbeStatus::skipped;
  bool measured = false;
  std::optional<double> bw_GBps;
  std::optional<std::size_t> size_B;
  std::optional<double> lat_us;
};

// What rank 0 needs of a result for a row and the suspect rule, no more: the message stays
// small enough for MPI to send it eagerly (a few KB), without waiting for rank 0 to take it.
ProbeResult slim(const ProbeResult& p, bool with_metrics) {
  constexpr std::size_t kText = 160;
  ProbeResult s;
  s.id = p.id;
  s.status = p.status;
  s.scope.hosts = p.scope.hosts;
  s.scope.ranks = p.scope.ranks;
  if (!with_metrics) return s;
  s.params = p.params;
  for (const char* name : {metrics::bw_avg_GBps, metrics::bw_peak_GBps, metrics::lat_us})
    if (const Metric* m = find_metric(p, name)) s.metrics[name] = *m;
  if (p.error) s.error = p.error->substr(0, kText);
  if (p.reason) s.reason = p.reason->substr(0, kText);
  return s;
}

std::vector<ProbeResult> slim(const std::vector<ProbeResult>& results, bool with_metrics) {
  std::vector<ProbeResult> out;
  for (const auto& p : results) out.push_back(slim(p, with_metrics));
  return out;
}

}  // namespace

SuspectRule profile_suspects(const Profile& profile, const std::unordered_map<std::string, double>* reference_medians) {
  return [&profile, reference_medians](const std::vector<ProbeResult>& probes) {
    std::vector<std::string> pairs;
    for (const auto& [a, b] : retest_candidates(probes, profile, reference_medians).suspects)
      pairs.push_back(a + "-" + b);
    return pairs;
  };
}

RoundRow round_row(const std::vector<ProbeResult>& results) {
  std::map<std::string, PairView> pairs;
  std::vector<std::string> order;
  for (const auto& p : results) {
    const std::string name = host_pair(p);
    if (name.empty()) continue;
    auto [it, fresh] = pairs.try_emplace(name);
    if (fresh) order.push_back(name);
    PairView& v = it->second;
    if (bad(p.status)) v.status = p.status;
    if (p.status == ProbeStatus::ok) {
      if (!bad(v.status)) v.status = ProbeStatus::ok;
      v.measured = true;
    }
    if (p.status != ProbeStatus::ok) continue;
    if (const auto bw = typical(p, metrics::bw_avg_GBps)) {
      const auto size = message_size(p);
      const std::size_t bytes = size ? static_cast<std::size_t>(*size) : 0;
      if (!v.size_B || bytes > *v.size_B || (bytes == *v.size_B && *bw < *v.bw_GBps)) {
        v.size_B = bytes;
        v.bw_GBps = *bw;
      }
    }
    if (const auto lat = typical(p, metrics::lat_us)) v.lat_us = std::max(v.lat_us.value_or(0), *lat);
  }
  RoundRow row;
  row.pairs = pairs.size();
  // Worst first: a failed pair, then the lowest bandwidth, then the highest latency.
  auto rank = [](const PairView& v) {
    if (bad(v.status)) return std::make_tuple(0, 0.0, 0.0);
    if (!v.measured) return std::make_tuple(2, 0.0, 0.0);
    return std::make_tuple(1, v.bw_GBps.value_or(0), -v.lat_us.value_or(0));
  };
  const std::string* worst = nullptr;
  for (const auto& name : order)
    if (!worst || rank(pairs.at(name)) < rank(pairs.at(*worst))) worst = &name;
  if (worst && (pairs.at(*worst).measured || bad(pairs.at(*worst).status))) {
    const PairView& v = pairs.at(*worst);
    row.worst_pair = *worst;
    row.worst_status = to_string(v.status);
    row.worst_bw_GBps = v.bw_GBps;
    row.worst_size_B = v.size_B;
    row.worst_lat_us = v.lat_us;
  }
  return row;
}

AllReduceHalf allreduce_half(const ProbeResult& summary) {
  AllReduceHalf half;
  half.status = to_string(summary.status);
  half.time_us = typical(summary, metrics::time_us_avg);
  half.algbw_GBps = typical(summary, metrics::algbw_GBps);
  half.busbw_GBps = typical(summary, metrics::busbw_GBps);
  half.wrong = typical(summary, metrics::wrong_elements_total);
  return half;
}

void LiveBook::rounds_planned(const World& world, const std::string& label, std::size_t first,
                              const std::vector<RankRound>& rounds) {
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    PlannedRound& r = rounds_[first + k];
    r = PlannedRound{};
    r.label = label;
    r.k = k + 1;
    r.total = rounds.size();
    r.expected_reports = rounds[k].size();
    std::set<std::string> host_pairs;
    for (const auto& p : rounds[k])
      host_pairs.insert(world.places.at(static_cast<std::size_t>(p.a)).host + "-" +
                        world.places.at(static_cast<std::size_t>(p.b)).host);
    r.expected_host_pairs = host_pairs.size();
  }
}

void LiveBook::pair_reported(std::size_t round, std::vector<ProbeResult> results) {
  const auto it = rounds_.find(round);
  if (it == rounds_.end() || it->second.printed) return;
  PlannedRound& r = it->second;
  for (auto& p : results)
    if (is_pair_probe(p)) {
      pair_results_.push_back(p);
      r.results.push_back(std::move(p));
    }
  if (++r.reports >= r.expected_reports) print_round(r);
}

void LiveBook::print_round(PlannedRound& round) {
  RoundRow row = round_row(round.results);
  row.label = round.label;
  row.k = round.k;
  row.total = round.total;
  row.expected = round.expected_host_pairs;
  if (suspect_rule_) {
    row.judged = true;
    row.suspects = suspects_so_far();
  }
  round.printed = true;
  out_.row(render_round_row(row));
}

// The rule judges every pair result so far, so its cost grows with the run: at a thousand hosts
// of all pairs, judging again after each of a thousand rounds would hold rank 0 (and its peers)
// for many minutes. Once a judgement takes a noticeable time, it is repeated only after nine
// times as long has passed, so it costs rank 0 at most a tenth of its time; until then a round
// shows the suspects of the last judgement, which are still suspects so far.
std::vector<std::string> LiveBook::suspects_so_far() {
  constexpr Seconds kNoticeable{0.1};
  const auto now = Clock::now();
  if (rule_cost_ < kNoticeable || now - rule_ended_ >= 9 * rule_cost_) {
    suspects_ = suspect_rule_(pair_results_);
    rule_ended_ = Clock::now();
    rule_cost_ = rule_ended_ - now;
  }
  return suspects_;
}

void LiveBook::flush_rounds() {
  for (auto& [number, round] : rounds_)
    if (!round.printed && round.reports < round.expected_reports) print_round(round);
}

void LiveBook::local_reported(const std::string& host, const std::vector<ProbeResult>& results) {
  LocalRow row;
  row.host = host;
  for (const auto& p : results) row.checks.emplace_back(p.id, to_string(p.status));
  out_.row(render_local_row(row));
}

void LiveBook::allreduce_started(const std::string& title, bool out_of_place, bool in_place, std::size_t cases) {
  allreduce_done();
  allreduce_title_ = title;
  out_of_place_ = out_of_place;
  in_place_ = in_place;
  allreduce_cases_ = cases;
  out_.phase(title);
  out_.row(title);
  for (const auto& line : render_allreduce_header()) out_.row(line);
}

void LiveBook::allreduce_case(const ProbeResult& summary, std::size_t done) {
  print_case(summary);
  out_.phase(allreduce_title_ + ", " + std::to_string(done) + " of " + std::to_string(allreduce_cases_) + " cases");
}

void LiveBook::print_case(const ProbeResult& summary) {
  const auto size = message_size(summary);
  const bool in_place = summary.params.value("in_place", false);
  AllReduceRow row;
  row.size_B = size ? static_cast<std::size_t>(*size) : 0;
  row.count = summary.params.value("count", std::size_t{0});
  row.type = summary.params.value("dtype", std::string("?"));
  if (pending_ && pending_->size_B != row.size_B) allreduce_done();
  if (pending_) row = *pending_;
  pending_.reset();
  (in_place ? row.in_place : row.out_of_place) = allreduce_half(summary);
  // The row is whole once its last half is in: in-place when it runs, else out-of-place.
  if (!in_place && in_place_) {
    pending_ = row;
    return;
  }
  out_.row(render_allreduce_row(row));
}

void LiveBook::allreduce_done() {
  if (pending_) out_.row(render_allreduce_row(*pending_));
  pending_.reset();
}

void LiveBook::reset() {
  allreduce_done();
  rounds_.clear();
  pair_results_.clear();
  suspects_.clear();
  rule_cost_ = Seconds{0};
}

// ---- The run's live channel. ----

namespace {

void write_stderr(std::string_view text) {
  // Unbuffered and in one call: a line is never split by another writer.
  if (std::fwrite(text.data(), 1, text.size(), stderr) != text.size()) return;
  std::fflush(stderr);
}

// mpirun gives its ranks a pipe for stderr (and a pseudo-terminal for stdout, whatever its own
// stdout is), so a rank cannot see the operator's terminal on its own fd 2. When this process's
// parent is the launcher on this host, the launcher's own stderr tells: a terminal there is where
// the lines end up. A remote daemon (orted) has none, and the lines stay plain. The launcher's
// fd is read by its link's name, never opened: opening a device (a serial console) can act on it.
bool launcher_stderr_is_terminal() {
  const std::string proc = "/proc/" + std::to_string(getppid());
  std::ifstream comm(proc + "/comm");
  std::string name;
  if (!std::getline(comm, name)) return false;
  if (name != "mpirun" && name != "mpiexec" && name != "orterun" && name != "prterun") return false;
  std::error_code error;
  const std::string target = std::filesystem::read_symlink(proc + "/fd/2", error).string();
  return !error && (target.starts_with("/dev/pts/") || target.starts_with("/dev/tty"));
}

}  // namespace

LiveChannel::LiveChannel(std::unique_ptr<LiveOutput> out)
    : on_(true), out_(std::move(out)), book_(std::make_unique<LiveBook>(*out_)) {}

void LiveChannel::begin(MpiSession& session, bool quiet) {
  comm_ = session.comm();
  mpi_ = session.world().mpi;
  rank_ = session.world().rank;
  on_ = !quiet;
  if (rank_ != 0 || quiet) return;
  const bool terminal = isatty(STDERR_FILENO) == 1 || (mpi_ && launcher_stderr_is_terminal());
  const LiveStyle style = live_style(quiet, terminal, std::getenv("IBGPU_PROGRESS"));
  out_ = std::make_unique<LiveOutput>(style, &write_stderr, &monotonic_s);
  book_ = std::make_unique<LiveBook>(*out_);
}

void LiveChannel::deliver(const json& message) {
  if (!book_) return;
  try {
    const std::string kind = message.at("kind").get<std::string>();
    auto results = message.at("results").get<std::vector<ProbeResult>>();
    if (kind == "pair") book_->pair_reported(message.at("round").get<std::size_t>(), std::move(results));
    if (kind == "local") book_->local_reported(message.at("host").get<std::string>(), results);
  } catch (const std::exception&) {
    // A report that cannot be read costs a live row, never the run: the report has it all.
  }
}

// To rank 0, without waiting: the message is small, MPI sends it eagerly; its memory is kept
// for whatever MPI still does with it, and rank 0 reads every report before it writes its own.
void LiveChannel::send(const json& message) {
  if (!on_) return;
  if (rank_ == 0 || !mpi_) {
    deliver(message);
    return;
  }
  if (mpi_lost()) return;  // live rows are a courtesy; the report has it all
  auto text = std::make_shared<std::string>(message.dump());
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Isend(text->data(), static_cast<int>(text->size()), MPI_CHAR, 0, kTagLive, comm_, &request) != MPI_SUCCESS)
    return;
  MPI_Request_free(&request);
  keep_until_exit(std::move(text));
}

void LiveChannel::phase(const std::string& text) {
  if (out_) out_->phase(text);
}

void LiveChannel::budget(Clock::time_point started, double budget_s) {
  if (out_) out_->budget(Seconds(started.time_since_epoch()).count(), budget_s);
}

void LiveChannel::suspect_rule(SuspectRule rule) {
  if (book_) book_->set_suspect_rule(std::move(rule));
}

void LiveChannel::pair_done(std::size_t round, const std::vector<ProbeResult>& results) {
  if (on_) send(json{{"kind", "pair"}, {"round", round}, {"results", slim(results, true)}});
}

void LiveChannel::local_done(const std::string& host, const std::vector<ProbeResult>& results) {
  if (on_) send(json{{"kind", "local"}, {"host", host}, {"results", slim(results, false)}});
}

void LiveChannel::pump() {
  if (!on_ || rank_ != 0 || !mpi_ || mpi_lost()) return;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kTagLive, comm_, &arrived, &status) != MPI_SUCCESS || !arrived) break;
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    std::string text(static_cast<std::size_t>(std::max(length, 0)), '\0');
    // The message has arrived (probed): this receive completes at once.
    if (MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, kTagLive, comm_, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      break;
    const json message = json::parse(text, nullptr, false);
    if (!message.is_discarded()) deliver(message);
  }
  if (out_) out_->tick();
}

void LiveChannel::pause() {
  if (out_) out_->clear();
}

void LiveChannel::end() {
  pump();
  if (book_) {
    book_->flush_rounds();
    book_->reset();
  }
  if (out_) out_->clear();
}

}  // namespace ibgpu
