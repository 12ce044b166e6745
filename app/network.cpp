#include "app/network.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "app/live_events.h"
#include "app/pipeline.h"
#include "app/text.h"
#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "core/errors.h"
#include "core/units.h"
#include "probes/net/mpi_transport.h"
#include "probes/net/verbs/device_select.h"
#include "probes/net/verbs/endpoint.h"
#include "probes/net/verbs/verbs_transport.h"
#include "probes/sysfs.h"
#include "probes/topology.h"

namespace ibgpu {

const char* to_string(NetTransport transport) {
  switch (transport) {
    case NetTransport::verbs:
      return "verbs";
    case NetTransport::mpi:
      return "mpi";
    case NetTransport::automatic:
      return "auto";
  }
  return "?";
}

std::optional<NetTransport> net_transport_from_string(const std::string& text) {
  for (NetTransport t : {NetTransport::verbs, NetTransport::mpi, NetTransport::automatic})
    if (text == to_string(t)) return t;
  return std::nullopt;
}

namespace {

constexpr int kTagsPerMeeting = 32;  // transports use tag..tag+15; the meeting itself the last one
constexpr int kTagNegotiate = kTagsPerMeeting - 1;

// What each side of a pair brings to the meeting: whether it can run verbs
// and on which rail. Fixed layout, sent as bytes.
struct Offer {
  int verbs_ok = 0;
  int out_of_budget = 0;  // the initiator's word decides for the pair
  char rail[64] = {};
  char why_not[192] = {};
};

Offer local_offer(const std::string& rail, const std::string& verbs_problem) {
  Offer o;
  o.verbs_ok = verbs_problem.empty() && !rail.empty() ? 1 : 0;
  std::snprintf(o.rail, sizeof o.rail, "%s", rail.c_str());
  std::snprintf(o.why_not, sizeof o.why_not, "%s", verbs_problem.c_str());
  return o;
}

// Exchanges offers; nullopt when the partner stays silent.
std::optional<Offer> meet(const PairContext& ctx, const Offer& mine) {
  TransferMemory<std::array<Offer, 2>> offers(std::array<Offer, 2>{mine, Offer{}});  // mine, theirs
  std::vector<MPI_Request> rs(2);
  mpi_check(MPI_Irecv(&(*offers)[1], sizeof(Offer), MPI_BYTE, ctx.peer, ctx.tag + kTagNegotiate, ctx.comm, &rs[0]),
            "MPI_Irecv");
  mpi_check(MPI_Isend(&(*offers)[0], sizeof(Offer), MPI_BYTE, ctx.peer, ctx.tag + kTagNegotiate, ctx.comm, &rs[1]),
            "MPI_Isend");
  if (!wait_for_peer(rs, ctx.peer, ctx.timeout)) {
    offers.abandon();
    return std::nullopt;
  }
  Offer theirs = (*offers)[1];
  theirs.rail[sizeof theirs.rail - 1] = '\0';
  theirs.why_not[sizeof theirs.why_not - 1] = '\0';
  return theirs;
}

std::vector<ProbeResult> silent_partner(const PairContext& ctx, const NetOptions& options) {
  std::vector<ProbeResult> out;
  const bool verbs = options.transport == NetTransport::verbs;
  for (const bool bw : {true, false}) {
    if (!(bw ? options.bandwidth : options.latency)) continue;
    ProbeResult r = pair_result(verbs ? (bw ? kWriteBwId : kWriteLatId) : (bw ? kMpiBwProbe : kMpiLatProbe), ctx, 0);
    r.params.erase("size_B");
    r.status = ProbeStatus::timeout;
    r.error = std::string(stop_requested() ? "stopped while meeting" : "no answer to the meeting from") + " host " +
              ctx.peer_host + " rank " + std::to_string(ctx.peer) +
              (stop_requested() ? "" : why_given_up(ctx.peer, ctx.timeout));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ProbeResult> skipped_pair(const PairContext& ctx, const NetOptions& options, bool verbs,
                                      const std::string& why) {
  std::vector<ProbeResult> out;
  if (!ctx.initiator) return out;  // one account of a pair is enough
  if (options.bandwidth) out.push_back(pair_result(verbs ? kWriteBwId : kMpiBwProbe, ctx, 0));
  if (options.latency) out.push_back(pair_result(verbs ? kWriteLatId : kMpiLatProbe, ctx, 0));
  for (auto& r : out) {
    r.status = ProbeStatus::skipped;
    r.reason = why;
    r.params.erase("size_B");
  }
  return out;
}

// A rank's rail: --hca's ports round-robin by local rank when given; else on a
// GPU node the rail plan's port, its GPU's nearest compute HCA (one rank per
// GPU is the usual launch; probes/topology.h); else the active ports
// (`active`, empty when verbs cannot run) round-robin by local rank.
std::string rail_for(const World& world, const NetOptions& options, const std::vector<std::string>& active) {
  const auto local = static_cast<std::size_t>(world.self().local_rank);
  if (!options.hca.empty()) return options.hca[local % options.hca.size()];
  if (active.empty()) return "";
  const auto plan = read_rail_plan(Sysfs(options.sysfs_root), static_cast<int>(world.ranks_on(world.host()).size()),
                                   std::getenv("CUDA_VISIBLE_DEVICES"));
  if (local < plan.size() && !plan[local].port.empty()) return plan[local].port;
  return active[local % active.size()];
}

int partner_of(const RankPair& pair, int rank) { return pair.a == rank ? pair.b : pair.a; }

// Whoever this rank meets next: it may be waiting already, and hears our heartbeats.
int next_partner(const std::vector<RankRound>& rounds, std::size_t from, int rank) {
  for (std::size_t k = from; k < rounds.size(); ++k)
    if (const RankPair* p = find_pair(rounds[k], rank)) return partner_of(*p, rank);
  return -1;
}

// This round's partner and the next few: a partner that reaches its round with this rank early
// waits for it, and keeps waiting while it hears this rank is alive (a slow round ahead of it).
std::vector<int> partners_ahead(const std::vector<RankRound>& rounds, std::size_t from, int rank) {
  constexpr std::size_t kAhead = 8;
  std::vector<int> partners;
  for (std::size_t k = from; k < rounds.size() && partners.size() < kAhead; ++k)
    if (const RankPair* p = find_pair(rounds[k], rank)) partners.push_back(partner_of(*p, rank));
  return partners;
}

}  // namespace

std::string network_preflight(const World& world, const NetOptions& options) {
  // Host indices are known only now: a pair beyond them is a usage error, not a probe error.
  if (options.pairs.mode == PairMode::list) {
    try {
      rounds_from_pairs(options.pairs.list, static_cast<int>(world.hosts().size()));
    } catch (const std::invalid_argument& e) {
      return std::string("--pairs: ") + e.what();
    }
  }
  if (options.transport == NetTransport::mpi || (options.hca.empty() && options.settings.gid_index < 0)) return "";
  // An --hca this host does not have is the operator's mistake: say so before anything runs.
  const verbs::Survey survey = verbs::survey_devices();
  try {
    for (const auto& spec : options.hca) {
      const verbs::DeviceSpec parsed = verbs::parse_device_spec(spec);
      const bool exists = std::any_of(survey.devices.begin(), survey.devices.end(),
                                      [&](const verbs::DeviceSurvey& d) { return d.name == parsed.device; });
      if (!exists && options.transport == NetTransport::verbs)
        return "--hca " + spec + ": no such RDMA device on host " + world.host() +
               (survey.devices.empty() ? " (it has none)" : "");
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  // A --gid-index the port does not have is as much a mistake as a missing device.
  // Other problems (no device, a port down) are data for the probes to report.
  if (options.settings.gid_index >= 0) {
    const std::vector<std::string> specs = options.hca.empty() ? active_ports(survey) : options.hca;
    for (const auto& spec : specs) {
      try {
        verbs::open_port(spec, options.settings.gid_index);
      } catch (const UsageError& e) {
        return e.what();
      } catch (const std::exception&) {
      }
    }
  }
  return "";
}

void validate_sizes(const std::vector<std::size_t>& sizes, const char* what, std::size_t max_bytes) {
  if (sizes.empty()) throw UsageError(std::string("no ") + what + " sizes given");
  for (std::size_t s : sizes)
    if (s == 0 || s > max_bytes)
      throw UsageError(std::string(what) + " size " + std::to_string(s) + " does not fit: use 1 byte to " +
                       std::to_string(max_bytes >> 30) + "G");
}

std::string round_progress(const World& world, const std::string& label, std::size_t k, std::size_t total,
                           const RankRound& round) {
  std::vector<std::string> pairs;  // host pairs, once each (several local ranks meet per host pair)
  for (const auto& p : round) {
    std::string text =
        world.places.at(static_cast<std::size_t>(p.a)).host + "-" + world.places.at(static_cast<std::size_t>(p.b)).host;
    if (std::find(pairs.begin(), pairs.end(), text) == pairs.end()) pairs.push_back(std::move(text));
  }
  return label + " round " + std::to_string(k + 1) + "/" + std::to_string(total) + ": " + std::to_string(round.size()) +
         (round.size() == 1 ? " pair (" : " pairs (") + short_list(pairs, 3) + ")";
}

std::vector<ProbeResult> run_network(MpiSession& session, const NetOptions& options, Seconds timeout,
                                     LiveChannel& live) {
  const World& world = session.world();
  std::vector<RankRound> rounds;
  try {
    rounds = rank_rounds(world, options.pairs);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (rounds.empty()) {
    // Nothing to measure is said, not silently passed over.
    std::vector<ProbeResult> results;
    if (world.rank == 0)
      results.push_back(skipped(kNetPairsProbe, Scope{world.hosts(), {}, {}},
                                world.hosts().size() < 2
                                    ? "out of scope on one host: one rank has no pair to measure (run a rank "
                                      "per GPU or rail and the host's ranks meet each other)"
                                    : "no rank pairs to measure"));
    return results;
  }
  return run_rank_rounds(session, options, timeout, rounds, 0, "network", live);
}

namespace {

// What this rank brings to every meeting of its rounds: its transports, and whether it can run
// verbs and on which rail (the host's facts, asked once).
struct RankSide {
  MpiTransport mpi;
  VerbsTransport verbs;
  std::string verbs_problem;
  std::string rail;
  Offer offer;
};

RankSide rank_side(const World& world, const NetOptions& options) {
  RankSide side;
  side.verbs = VerbsTransport(Sysfs(options.sysfs_root));
  if (options.transport != NetTransport::mpi) {
    side.verbs_problem = verbs_unavailable_reason();
    side.rail = rail_for(world, options, side.verbs_problem.empty() ? active_ports() : std::vector<std::string>{});
  }
  side.offer = local_offer(side.rail, side.verbs_problem);
  return side;
}

// One meeting of this rank's pair in network round `round` (counted over the whole check, for
// its tags) and its measurements: the pair measured, or skipped or timed out saying why.
std::vector<ProbeResult> measure_pair(MpiSession& session, const NetOptions& options, RankSide& side, Seconds timeout,
                                      std::size_t round, const RankPair& pair) {
  const World& world = session.world();
  PairContext ctx;
  ctx.comm = session.comm();
  ctx.self = world.rank;
  ctx.peer = partner_of(pair, world.rank);
  ctx.initiator = world.rank == pair.a;
  ctx.self_host = world.host();
  ctx.peer_host = world.places.at(static_cast<std::size_t>(ctx.peer)).host;
  ctx.tag = kTagNetBase + static_cast<int>(round) * kTagsPerMeeting;
  ctx.timeout = timeout;
  ctx.self_device = side.rail;

  Offer offer = side.offer;
  double left_s = 0;
  if (options.budget) {
    left_s = Seconds(options.budget->end - Clock::now()).count();
    offer.out_of_budget = left_s < options.budget->pair_worst_s ? 1 : 0;
  }
  const std::optional<Offer> theirs = meet(ctx, offer);
  if (!theirs) {
    auto lost = silent_partner(ctx, options);
    mark_interrupted(lost);
    return lost;
  }
  ctx.peer_device = theirs->rail;
  const bool both_verbs = side.offer.verbs_ok && theirs->verbs_ok;
  // Why verbs cannot run between the two, in the words of the end that cannot.
  const std::string why_not_verbs = both_verbs             ? std::string()
                                    : !side.offer.verbs_ok ? "host " + ctx.self_host + ": " + side.verbs_problem
                                                           : "host " + ctx.peer_host + ": " + theirs->why_not;
  if (options.transport == NetTransport::verbs && !both_verbs) return skipped_pair(ctx, options, true, why_not_verbs);
  const bool use_verbs = options.transport != NetTransport::mpi && both_verbs;
  if (!use_verbs) ctx.self_device = ctx.peer_device = "";
  if (ctx.initiator ? offer.out_of_budget : theirs->out_of_budget) {
    auto s = skipped_pair(ctx, options, use_verbs,
                          "budget: not measured, the " + duration_text(options.budget->budget_s) +
                              " budget would run out (" + duration_text(std::max(0.0, left_s)) + " left, up to " +
                              duration_text(options.budget->pair_worst_s) + " for the pair)");
    for (auto& r : s) r.skipped_by = SkippedBy::ibgpu;
    return s;
  }
  PairTransport& transport = use_verbs ? static_cast<PairTransport&>(side.verbs) : side.mpi;
  std::vector<ProbeResult> got;
  if (options.bandwidth) got = transport.bandwidth(ctx, options.settings);
  const bool peer_lost = !got.empty() && got.back().status == ProbeStatus::timeout;
  if (options.latency && !peer_lost) {
    auto lat = transport.latency(ctx, options.settings);
    got.insert(got.end(), lat.begin(), lat.end());
  }
  mark_interrupted(got);
  if (options.transport == NetTransport::automatic) {
    // With --transport auto the report says which ran and why.
    const std::string choice = use_verbs ? "verbs: both ends have an active port" : "mpi: " + why_not_verbs;
    for (auto& r : got) r.params["transport_choice"] = choice;
  }
  return got;
}

}  // namespace

std::vector<ProbeResult> run_rank_rounds(MpiSession& session, const NetOptions& options, Seconds timeout,
                                         const std::vector<RankRound>& rounds, std::size_t first_round,
                                         const std::string& label, LiveChannel& live) {
  const World& world = session.world();
  std::vector<ProbeResult> results;
  if (rounds.empty()) return results;
  // The first partner may already be waiting for us while we start up.
  set_heartbeat_audience({next_partner(rounds, 0, world.rank)});
  RankSide side = rank_side(world, options);
  LiveBook* book = world.rank == 0 ? live.book() : nullptr;
  if (book) book->rounds_planned(world, label, first_round, rounds);
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    if (book) {
      live.pump();
      live.phase(round_progress(world, label, k, rounds.size(), rounds[k]));
    }
    set_phase(static_cast<int>(first_round + k));
    const RankPair* pair = find_pair(rounds[k], world.rank);
    if (!pair) continue;
    set_heartbeat_audience(partners_ahead(rounds, k, world.rank));
    std::vector<ProbeResult> got = measure_pair(session, options, side, timeout, first_round + k, *pair);
    for (auto& r : got) r.params["round"] = first_round + k;
    stamp_time(got);
    // The initiator speaks for the pair (its partner's account is the same meeting).
    if (world.rank == pair->a) live.pair_done(first_round + k, got);
    results.insert(results.end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
  }
  if (book) {
    live.pump();
    live.pause();  // what is said between the steps starts on a line of its own
  }
  return results;
}

namespace {

// A pair result of the network rounds: it carries the round it was measured in.
bool is_pair_in_round(const ProbeResult& r) {
  return r.id.starts_with("net.") && r.scope.ranks.size() == 2 && r.params.contains("round");
}

int round_of(const ProbeResult& r) { return r.params.at("round").get<int>(); }

// The pairs measured in round `from` or later (those `which` picks: all by default) are recorded,
// not judged, for `why` (a pair already marked keeps the reason it has).
void mark_rounds_from(std::vector<ProbeResult>& results, int from, const std::string& why,
                      const std::function<bool(const ProbeResult&)>& which = {}) {
  for (auto& r : results)
    if (is_pair_in_round(r) && r.status == ProbeStatus::ok && round_of(r) >= from && !r.params.contains("not_judged") &&
        (!which || which(r)))
      r.params["not_judged"] = why;
}

}  // namespace

void mark_after_lost_rank(std::vector<ProbeResult>& results, const World& world, const std::vector<int>& lost) {
  for (int gone : lost) {
    auto with_it = [gone](const ProbeResult& r) {
      return std::find(r.scope.ranks.begin(), r.scope.ranks.end(), gone) != r.scope.ranks.end();
    };
    // The first round in which a pair with the lost rank did not come back: it was gone by then.
    std::optional<int> first;
    for (const auto& r : results)
      if (is_pair_in_round(r) && with_it(r) && r.status != ProbeStatus::ok && r.status != ProbeStatus::skipped)
        first = std::min(first.value_or(round_of(r)), round_of(r));
    if (!first) continue;
    // Who sent to it after: its partners from that round on (their meetings, and their heartbeats,
    // which go to the next partners ahead) and rank 0 (it answers every rank).
    std::set<int> senders{0};
    for (const auto& r : results)
      if (is_pair_in_round(r) && with_it(r) && round_of(r) >= *first)
        senders.insert(r.scope.ranks.begin(), r.scope.ranks.end());
    senders.erase(gone);
    const std::string host = gone < static_cast<int>(world.places.size()) ? world.places[gone].host : "?";
    const std::string why = "measured after host " + host + " (rank " + std::to_string(gone) + ") was lost in round " +
                            std::to_string(*first) +
                            " by a rank that sent to it after: OpenMPI's TCP transport slows what such a rank "
                            "measures";
    mark_rounds_from(results, *first, why, [&](const ProbeResult& r) {
      return std::any_of(r.scope.ranks.begin(), r.scope.ranks.end(), [&](int rank) { return senders.count(rank) > 0; });
    });
  }
}

void mark_after_stop(std::vector<ProbeResult>& results) {
  std::optional<int> cut;  // the first round with a meeting or a measurement the stop ended
  for (const auto& r : results)
    if (is_pair_in_round(r) && cut_by_stop(r)) cut = std::min(cut.value_or(round_of(r)), round_of(r));
  if (!cut) return;
  mark_rounds_from(results, *cut,
                   "measured in round " + std::to_string(*cut) +
                       " or after, which the stop signal cut: the job's teardown slows what it overlaps");
}

}  // namespace ibgpu
