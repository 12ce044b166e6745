// Rank 0's assemble at fleet scale, from payloads serialised as the ranks
// send them: 1,024 hosts x 8 ranks with peers:16 bring 131,072 pair results.
// Assemble once compared every pair result with every result kept (tens of
// minutes at 4,096 hosts); CTest gives this suite a time limit
// (tests/CMakeLists.txt) that a quadratic assemble runs past, and the test
// asserts what is kept, never a time.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "app/pipeline.h"
#include "tests/app/fleet_payloads.h"

namespace ibgpu {
namespace {

using testing::fleet_payloads;
using testing::FleetPayloadShape;

TEST(AssembleAtScale, DropsEveryEchoAndNothingElse) {
  FleetPayloadShape shape;
  shape.fleet.hosts = 1024;
  shape.broken_host = 5;  // its 16 peers x 8 rails time out at both ends
  shape.retests = 1;      // and meet again: a re-test is not an echo
  const auto sent = fleet_payloads(shape);
  ASSERT_GE(sent.results - sent.echoes, std::size_t{100000});
  ASSERT_GT(sent.echoes, 0u);

  const Report report = assemble(sent.world, sent.payloads, "within 60 s");
  EXPECT_EQ(report.probes.size(), sent.results - sent.echoes);
  ASSERT_EQ(report.hosts.size(), 1024u);
  EXPECT_EQ(report.hosts[5].name, "node05");
  EXPECT_EQ(report.hosts[5].ranks, (std::vector<int>{40, 41, 42, 43, 44, 45, 46, 47}));
  EXPECT_EQ(report.hosts[5].gpus.size(), 8u);  // the inventory of its first rank

  // Each pair result once; of a silent pair the initiator's account, which names its partner.
  std::set<std::tuple<std::string, std::vector<int>, std::string, int>> keys;
  std::map<int, int> silent_by_pass;
  for (const ProbeResult& p : report.probes) {
    if (p.scope.ranks.size() != 2) continue;
    const int retest = p.params.value("retest", 0);
    EXPECT_TRUE(keys.emplace(p.id, p.scope.ranks, p.params.value("size_B", nlohmann::json()).dump(), retest).second)
        << p.id << " ranks " << p.scope.ranks[0] << "," << p.scope.ranks[1];
    if (p.status != ProbeStatus::timeout) continue;
    ++silent_by_pass[retest];
    ASSERT_TRUE(p.error);
    EXPECT_NE(p.error->find("from host " + p.scope.hosts[1]), std::string::npos) << *p.error;
  }
  const int silent = 16 * 8 * 2;  // peers x rails x (bandwidth, latency)
  EXPECT_EQ(silent_by_pass, (std::map<int, int>{{0, silent}, {1, silent}}));
}

}  // namespace
}  // namespace ibgpu
