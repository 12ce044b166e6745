#pragma once
// What the ranks of a synthetic fleet send rank 0 after a check, serialised
// as run_round serialises a rank's results (app/pipeline.h): N hosts x G
// ranks, one rank per GPU and rail, rank pairs by a pair plan
// (cluster/rank_pairs.h). The initiator of a measured pair reports it
// (bandwidth per size, then latency); each rank reports its GPU's health; the
// first rank of a host sends the inventory and the host's all-reduces. The
// network of one host can be broken: its pairs time out at both ends, both
// ends report it (rank 0 keeps the initiator's account and drops the echo),
// and re-test passes meet them again.
// Header-only: the test build globs only *_test.cpp files.
#include <optional>
#include <string>
#include <vector>

#include "app/pipeline.h"
#include "cluster/rank_pairs.h"
#include "cluster/world.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu::testing {

inline PairPlan peers(int k) {
  PairPlan plan;
  plan.mode = PairMode::peers;
  plan.peers = k;
  return plan;
}

struct FleetPayloadShape {
  FleetShape fleet;  // hosts; gpus = ranks per host = rails
  PairPlan pairs = peers(16);
  std::vector<std::size_t> bw_sizes{std::size_t{8} << 20};
  std::vector<std::size_t> allreduce_sizes{std::size_t{1} << 30};
  int broken_host = -1;  // its pairs time out at both ends
  int retests = 0;       // passes that meet the broken host's pairs again
};

struct FleetPayloads {
  World world;
  std::vector<std::optional<std::string>> payloads;  // one per rank
  std::size_t results = 0;                           // results in all payloads
  std::size_t echoes = 0;                            // of them, a pair's account by its non-initiator
};

// Rank r is local rank r % gpus on host r / gpus (hosts by synthetic_fleet's names).
inline World fleet_world(const FleetShape& f) {
  std::vector<std::string> names;
  for (int i = 0; i < f.hosts; ++i) names.insert(names.end(), static_cast<std::size_t>(f.gpus), host_name(i));
  World world;
  world.size = static_cast<int>(names.size());
  world.places = places_from_hosts(names);
  world.mpi = true;
  return world;
}

// A pair's bandwidth at each size and its latency, as its initiator reports them.
inline void add_measured_pair(std::vector<ProbeResult>& out, const FleetPayloadShape& s, int a, int b, int rail) {
  const FleetShape& f = s.fleet;
  for (std::size_t size : s.bw_sizes) {
    ProbeResult bw = pair_probe("net.verbs.write_bw", a, b, rail, f, size);
    const double GBps = jitter(f.bw_GBps, a, b, rail + static_cast<int>(size % 97));
    bw.metrics["bw_avg_GBps"] = Metric::of(GBps);
    bw.metrics["bw_avg_Gbps"] = Metric::of(GBps * 8);
    out.push_back(std::move(bw));
  }
  ProbeResult lat = pair_probe("net.verbs.write_lat", a, b, rail, f, 8);
  lat.metrics["lat_us"] = Metric::of(latency_stats(jitter(f.lat_p50_us, a, b, rail), f.lat_p99_us));
  out.push_back(std::move(lat));
}

// A meeting neither end heard the other at: both report it, naming the other.
inline void add_silent_pair(std::vector<ProbeResult>& out, const FleetShape& f, int a, int b, int rail, int self,
                            int retest) {
  for (const char* id : {"net.verbs.write_bw", "net.verbs.write_lat"}) {
    ProbeResult r = pair_probe(id, a, b, rail, f, 0);
    r.params.erase("size_B");
    if (retest > 0) r.params["retest"] = retest;
    r.status = ProbeStatus::timeout;
    r.error = "no answer to the meeting from host " + host_name(self == a ? b : a);
    out.push_back(std::move(r));
  }
}

inline FleetPayloads fleet_payloads(const FleetPayloadShape& s) {
  const FleetShape& f = s.fleet;
  FleetPayloads out;
  out.world = fleet_world(f);
  // Each rank's pairs, in round order.
  std::vector<std::vector<RankPair>> pairs_of(static_cast<std::size_t>(out.world.size));
  for (const RankRound& round : rank_rounds(out.world, s.pairs))
    for (const RankPair& p : round) {
      pairs_of[static_cast<std::size_t>(p.a)].push_back(p);
      pairs_of[static_cast<std::size_t>(p.b)].push_back(p);
    }
  for (int rank = 0; rank < out.world.size; ++rank) {
    const int host = rank / f.gpus, rail = rank % f.gpus;
    RankResult mine;
    mine.rank = rank;
    mine.host = host_name(host);
    if (rail == 0) mine.inventory = make_host(f, host);
    const auto& pairs = pairs_of[static_cast<std::size_t>(rank)];
    for (int pass = 0; pass <= s.retests; ++pass)
      for (const RankPair& p : pairs) {
        const int a = p.a / f.gpus, b = p.b / f.gpus;
        const bool broken = a == s.broken_host || b == s.broken_host;
        const std::size_t before = mine.probes.size();
        if (broken)
          add_silent_pair(mine.probes, f, a, b, rail, host, pass);
        else if (pass == 0 && rank == p.a)
          add_measured_pair(mine.probes, s, a, b, rail);
        if (rank != p.a) out.echoes += mine.probes.size() - before;
      }
    GpuHealth clean;
    clean.index = rail;
    mine.probes.push_back(gpu_health_result(mine.host, clean));
    if (rail == 0)
      for (std::size_t size : s.allreduce_sizes) {
        FleetShape sized = f;
        sized.allreduce_size = size;
        mine.probes.push_back(node_allreduce(sized, host, jitter(f.busbw_GBps, host, 0, 99)));
      }
    out.results += mine.probes.size();
    out.payloads.emplace_back(to_json(mine).dump());
  }
  return out;
}

}  // namespace ibgpu::testing
