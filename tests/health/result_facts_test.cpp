// What the judge reads of each result, once: names as dense ids in order of
// first mention, pairs' hosts, rails and ranks, and the judged numbers with
// the params that group them.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "health/result_facts.h"

namespace ibgpu {
namespace {

TEST(NameIds, GivesDenseIdsInOrderOfFirstMentionAtFleetScale) {
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("node" + std::to_string(i));
  NameIds ids;
  for (const auto& n : names) ids.of(n);
  for (int i = 4999; i >= 0; --i) {
    ASSERT_EQ(ids.find(names[i]), static_cast<std::uint32_t>(i));
    EXPECT_EQ(ids.of(names[i]), static_cast<std::uint32_t>(i));
  }
  EXPECT_EQ(ids.size(), 5000u);
  EXPECT_EQ(ids.name(17), "node17");
  EXPECT_EQ(ids.find("node5000"), NameIds::kNone);
  // A hint that names another text is only a hint.
  EXPECT_EQ(ids.of("node3", 3), 3u);
  EXPECT_EQ(ids.of("node3", 4), 3u);
  EXPECT_EQ(ids.of("node3", NameIds::kNone), 3u);
  EXPECT_EQ(ids.of("new", 0), 5000u);
}

ProbeResult pair(const std::string& id, const std::string& a, const std::string& b, int rail) {
  ProbeResult p;
  p.id = id;
  p.scope.hosts = {a, b};
  p.scope.ranks = {rail, 8 + rail};
  p.scope.devices = {"mlx5_" + std::to_string(rail) + ":1", "mlx5_" + std::to_string(rail) + ":1"};
  p.params = {{"size_B", std::uint64_t{8388608}}, {"direction", "bidir"}, {"retest", 1}};
  return p;
}

TEST(ResultFacts, ReadsPairsAndTheirJudgedNumbers) {
  std::vector<ProbeResult> probes;
  probes.push_back(pair("net.verbs.write_bw", "n1", "n2", 0));
  probes.back().metrics["bw_avg_GBps"] = Metric::of(48.5);
  probes.push_back(pair("net.verbs.write_lat", "n1", "n2", 0));
  Stats s;
  s.p50 = 1.5;
  s.p99 = 2.5;
  probes.back().metrics["lat_us"] = Metric::of(s);
  probes.push_back(pair("net.verbs.write_bw", "n2", "n3", 1));
  probes.back().status = ProbeStatus::timeout;
  const ResultFacts facts(probes);

  ASSERT_EQ(facts.size(), 3u);
  const ResultFact& bw = facts[0];
  EXPECT_TRUE(facts.is_pair(bw));
  EXPECT_TRUE(facts.traits(bw).bandwidth && facts.traits(bw).verbs && !facts.traits(bw).local);
  EXPECT_EQ(bw.judged, Judged::pair_bandwidth);
  EXPECT_EQ(facts.hosts().name(bw.host[0]), "n1");
  EXPECT_EQ(facts.hosts().name(bw.host[1]), "n2");
  EXPECT_EQ(facts.devices().name(bw.device[1]), "mlx5_0:1");
  EXPECT_EQ(bw.rank[1], 8);
  EXPECT_TRUE(bw.has_size && bw.retest);
  EXPECT_EQ(bw.size, 8388608u);
  EXPECT_EQ(facts.directions().name(bw.direction), "bidir");
  EXPECT_TRUE(bw.has_value[0] && !bw.has_value[1]);
  EXPECT_DOUBLE_EQ(bw.value[0], 48.5);

  const ResultFact& lat = facts[1];
  EXPECT_EQ(lat.judged, Judged::pair_latency);
  EXPECT_EQ(lat.host[0], bw.host[0]);
  ASSERT_TRUE(lat.has_value[0] && lat.has_value[1]);
  EXPECT_DOUBLE_EQ(lat.value[0], 1.5);
  EXPECT_DOUBLE_EQ(lat.value[1], 2.5);

  // Not ok: nothing of it is judged, but its ends are known.
  const ResultFact& lost = facts[2];
  EXPECT_EQ(lost.status, ProbeStatus::timeout);
  EXPECT_EQ(lost.judged, Judged::none);
  EXPECT_EQ(lost.probe, bw.probe);
  EXPECT_EQ(lost.host[0], bw.host[1]);
  EXPECT_EQ(facts.hosts().name(lost.host[1]), "n3");
  EXPECT_FALSE(lost.has_size);
}

TEST(ResultFacts, ReadsOneHostResultsAndAllReduceShapes) {
  std::vector<ProbeResult> probes(3);
  probes[0].id = "gpu.cuda.copy_bw";
  probes[0].scope = Scope{{"n1"}, {0}, {"gpu0"}};
  probes[0].metrics["h2d_GBps"] = Metric::of(50);
  probes[0].metrics["d2h_GBps"] = Metric::of(40);
  probes[1].id = "collective.nccl.all_reduce";
  probes[1].scope = Scope{{"n1", "n2", "n3"}, {}, {}};
  probes[1].params = {{"size_B", std::uint64_t{1024}}, {"in_place", true}, {"nranks", 24}};
  probes[1].metrics["busbw_GBps"] = Metric::of(300);
  probes[2].id = "net.verbs.write_bw";  // one host: not a pair, not judged
  probes[2].scope = Scope{{"n1"}, {}, {}};
  probes[2].metrics["bw_avg_GBps"] = Metric::of(1);
  const ResultFacts facts(probes);

  EXPECT_TRUE(facts.traits(facts[0]).local);
  EXPECT_EQ(facts[0].judged, Judged::gpu_copy_bw);
  EXPECT_DOUBLE_EQ(facts[0].value[0], 40);  // the slower direction
  EXPECT_EQ(facts[0].device[0], ResultFact::kNone);  // only two-device scopes

  EXPECT_EQ(facts[1].judged, Judged::allreduce);
  EXPECT_EQ(facts[1].host_count, 3u);
  EXPECT_EQ(facts.hosts().name(facts[1].host[1]), "n2");
  EXPECT_TRUE(facts[1].in_place && facts[1].has_nranks);
  EXPECT_EQ(facts[1].nranks, 24);

  EXPECT_FALSE(facts.is_pair(facts[2]));
  EXPECT_EQ(facts[2].judged, Judged::none);
}

}  // namespace
}  // namespace ibgpu
