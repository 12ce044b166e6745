// What a rank sends rank 0 is bounded (app/pipeline.h, rank_payload): results over the cap are
// not sent, and rank 0 reports the rank by name instead of holding them or failing to.
#include <gtest/gtest.h>

#include <string>

#include "app/payload_reader.h"
#include "app/pipeline.h"
#include "reports/json.h"

namespace ibgpu {
namespace {

RankResult rank_with_results(int count) {
  RankResult r;
  r.rank = 5;
  r.host = "node02";
  HostInventory h;
  h.name = "node02";
  r.inventory = h;
  for (int i = 0; i < count; ++i) {
    ProbeResult p;
    p.id = "net.verbs.write_bw";
    p.scope = Scope{{"node02", "node07"}, {5, 29}, {"mlx5_1", "mlx5_1"}};
    p.params = {{"size_B", 1048576}, {"round", i}};
    p.metrics["bw_avg_GBps"] = Metric::of(47.5);
    r.probes.push_back(p);
  }
  return r;
}

TEST(RankPayload, ResultsWithinTheCapGoAsTheyAre) {
  const RankResult r = rank_with_results(10);
  EXPECT_EQ(rank_payload(r), to_json(r).dump());
  EXPECT_EQ(rank_payload(r, to_json(r).dump().size()), to_json(r).dump());
  EXPECT_EQ(kLineMaxPayload, std::size_t{256} << 20);  // the cap by default: the line's
}

TEST(RankPayload, ResultsOverTheCapBecomeAnErrorNamingTheRank) {
  const RankResult r = rank_with_results(100);
  const std::size_t size = to_json(r).dump().size();
  const std::string sent = rank_payload(r, size - 1);
  EXPECT_LT(sent.size(), 1000u);
  const RankResult read = read_rank_payload(sent);
  EXPECT_EQ(read.rank, 5);
  EXPECT_EQ(read.host, "node02");
  EXPECT_FALSE(read.inventory);
  ASSERT_EQ(read.probes.size(), 1u);
  const ProbeResult& p = read.probes[0];
  EXPECT_EQ(p.id, kRankProbe);
  EXPECT_EQ(p.status, ProbeStatus::error);
  EXPECT_EQ(p.scope.ranks, std::vector<int>{5});
  EXPECT_EQ(p.scope.hosts, std::vector<std::string>{"node02"});
  EXPECT_EQ(p.error, "rank 5 on host node02: its results (100 results, " + std::to_string(size) +
                         " bytes) are over the " + std::to_string(size - 1) +
                         " bytes a rank may send rank 0, and were not sent");

  // Rank 0 reports it as that rank's error.
  World world;
  world.size = 6;
  world.places = places_from_hosts({"node00", "node00", "node01", "node01", "node02", "node02"});
  std::vector<std::optional<std::string>> payloads(6);
  payloads[5] = sent;
  const Report report = assemble(world, payloads, "within 1 s");
  int errors = 0;
  for (const ProbeResult& q : report.probes)
    if (q.status == ProbeStatus::error) {
      ++errors;
      EXPECT_EQ(q.error, p.error);
    }
  EXPECT_EQ(errors, 1);
}

}  // namespace
}  // namespace ibgpu
