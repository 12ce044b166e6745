#include "app/network.h"

#include <iostream>
#include <limits>
#include <memory>

#include "cluster/errors.h"
#include "cluster/gather.h"
#include "cluster/liveness.h"
#include "probes/net/mpi_transport.h"
#include "probes/stats.h"

namespace ibgpu {

namespace {

constexpr int kTagNetBase = 1000;
constexpr int kTagsPerMeeting = 16;

std::vector<ProbeResult> skipped_pair(const PairContext& ctx, const NetOptions& options, const std::string& why) {
  std::vector<ProbeResult> out;
  if (!ctx.initiator) return out;
  if (options.bandwidth) out.push_back(pair_result("net.verbs.write_bw", ctx, 0));
  if (options.latency) out.push_back(pair_result("net.verbs.write_lat", ctx, 0));
  for (auto& r : out) {
    r.status = ProbeStatus::skipped;
    r.reason = why;
    r.params.erase("size_B");
  }
  return out;
}

int partner_of(const RankPair& pair, int rank) { return pair.a == rank ? pair.b : pair.a; }

// Whoever this rank meets next: it may be waiting already, and hears our heartbeats.
int next_partner(const std::vector<RankRound>& rounds, std::size_t from, int rank) {
  for (std::size_t k = from; k < rounds.size(); ++k)
    if (const RankPair* p = find_pair(rounds[k], rank)) return partner_of(*p, rank);
  return -1;
}

}  // namespace

void validate_sizes(const std::vector<std::size_t>& sizes, const char* what) {
  constexpr std::size_t kMax = std::size_t{1} << 30;  // MPI counts are int; buffers must fit memory
  if (sizes.empty()) throw UsageError(std::string("no ") + what + " sizes given");
  for (std::size_t s : sizes)
    if (s == 0 || s > kMax)
      throw UsageError(std::string(what) + " size " + std::to_string(s) + " does not fit: use 1 byte to 1G");
}

std::vector<ProbeResult> run_network(MpiSession& session, const NetOptions& options, double timeout_s) {
  const World& world = session.world();
  std::vector<ProbeResult> results;
  std::vector<RankRound> rounds;
  try {
    rounds = rank_rounds(world, options.pairs);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // The first partner may already be waiting for us while we start up.
  if (!rounds.empty()) set_heartbeat_audience({next_partner(rounds, 0, world.rank)});
  if (rounds.empty()) {
    // Nothing to measure is said, not silently passed over.
    if (world.rank == 0)
      results.push_back(skipped("net.pairs", Scope{world.hosts(), {}, {}},
                                world.hosts().size() < 2
                                    ? "all ranks are on one host: inter-node probes need two hosts "
                                      "(--loopback pairs ranks on the same host)"
                                    : "no rank pairs to measure"));
    return results;
  }
  MpiTransport mpi;
  const bool progress = world.rank == 0 && rounds.size() > 1;
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    if (progress)
      std::cerr << "ibgpu: network round " << k + 1 << "/" << rounds.size() << " (" << rounds[k].size()
                << " pairs)\n";
    const RankPair* pair = find_pair(rounds[k], world.rank);
    if (!pair) continue;
    set_heartbeat_audience({partner_of(*pair, world.rank), next_partner(rounds, k + 1, world.rank)});
    PairContext ctx;
    ctx.comm = session.comm();
    ctx.self = world.rank;
    ctx.peer = partner_of(*pair, world.rank);
    ctx.initiator = world.rank == pair->a;
    ctx.self_host = world.host();
    ctx.peer_host = world.places.at(static_cast<std::size_t>(ctx.peer)).host;
    ctx.tag = kTagNetBase + static_cast<int>(k) * kTagsPerMeeting;
    ctx.timeout_s = timeout_s;
    if (options.transport == "verbs") {
      auto s = skipped_pair(ctx, options, "verbs transport not built into this ibgpu yet");
      results.insert(results.end(), s.begin(), s.end());
      continue;
    }
    PairTransport& transport = mpi;
    std::vector<ProbeResult> got;
    if (options.bandwidth) got = transport.bandwidth(ctx, options.settings);
    const bool peer_lost = !got.empty() && got.back().status == ProbeStatus::timeout;
    if (options.latency && !peer_lost) {
      auto lat = transport.latency(ctx, options.settings);
      got.insert(got.end(), lat.begin(), lat.end());
    }
    for (auto& r : got) {
      r.params["round"] = k;
      results.push_back(std::move(r));
    }
  }
  return results;
}

}  // namespace ibgpu
