// The verdict book: entities found again by kind and id at fleet scale, in
// order of first mention, states only worsening; the hosts localisation
// offers as known good, in order of first mention; a link's id and its ends.
#include "health/verdict_book.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "health/localise.h"

namespace ibgpu {
namespace {

TEST(VerdictBook, FindsEveryEntityAgainInOrderOfFirstMention) {
  VerdictBook book;
  // More entities than any starting size, so the index grows several times;
  // the same id under two kinds is two entities.
  constexpr int kHosts = 5000;
  for (int i = 0; i < kHosts; ++i) {
    const std::string host = "node" + std::to_string(i);
    book.at(EntityKind::node, host);
    book.at(EntityKind::hca_port, host + "/mlx5_0:1");
    book.at(EntityKind::link, host);
  }
  for (int i = kHosts - 1; i >= 0; --i) {
    const std::string host = "node" + std::to_string(i);
    ASSERT_NE(book.find(EntityKind::node, host), nullptr) << host;
    EXPECT_EQ(book.find(EntityKind::node, host)->entity, (Entity{EntityKind::node, host}));
    EXPECT_EQ(book.find(EntityKind::link, host)->entity, (Entity{EntityKind::link, host}));
    EXPECT_EQ(book.index(EntityKind::hca_port, host + "/mlx5_0:1"), static_cast<std::size_t>(3 * i + 1));
  }
  EXPECT_EQ(book.find(EntityKind::node, "node5000"), nullptr);
  EXPECT_EQ(book.find(EntityKind::gpu, "node1"), nullptr);
  const auto verdicts = book.take();
  ASSERT_EQ(verdicts.size(), static_cast<std::size_t>(3 * kHosts));
  EXPECT_EQ(verdicts[3].entity, (Entity{EntityKind::node, "node1"}));
  EXPECT_EQ(verdicts[5].entity, (Entity{EntityKind::link, "node1"}));
}

TEST(VerdictBook, StatesOnlyWorsenAndReasonsAccumulate) {
  VerdictBook book;
  book.add({EntityKind::gpu, "n/gpu0"}, HealthState::failed, Reason{ReasonCode::GPU_XID, "a", "m", 1.0, 0.0});
  book.add({EntityKind::gpu, "n/gpu0"}, HealthState::degraded, Reason{ReasonCode::GPU_TEMP_HIGH, "b", "m", 2.0, 0.0});
  book.add({EntityKind::gpu, "n/gpu0"}, HealthState::healthy);
  const auto verdicts = book.take();
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].state, HealthState::failed);
  ASSERT_EQ(verdicts[0].reasons.size(), 2u);
  EXPECT_EQ(verdicts[0].reasons[1].code, ReasonCode::GPU_TEMP_HIGH);
}

TEST(KnownGoodHosts, AreTheObservedHostsInOrderOfFirstMention) {
  const std::vector<PairObservation> observations{
      {"g1",
       {"b", "mlx5_0:1", 3},
       {"a", "mlx5_1:1", 7},
       HealthState::degraded,
       Reason{ReasonCode::IB_LINK_BW_LOW, "low", "bw_avg_GBps", 5.0, 10.0}},
      {"g2", {"c", "", -1}, {"b", "", -1}, HealthState::healthy, std::nullopt}};
  EXPECT_EQ(known_good_hosts(observations, {}), (std::vector<std::string>{"b", "a", "c"}));
  const std::vector<Blame> blamed{{{EntityKind::hca_port, "a/mlx5_1:1"}, HealthState::degraded, {}}};
  EXPECT_EQ(known_good_hosts(observations, blamed), (std::vector<std::string>{"b", "c"}));
  // A blamed link clears neither of its ends.
  const std::vector<Blame> link{{{EntityKind::link, link_id("c", "b")}, HealthState::degraded, {}}};
  EXPECT_EQ(known_good_hosts(observations, link), (std::vector<std::string>{"a"}));
}

TEST(LinkId, NamesBothEndsAndReadsThemBack) {
  EXPECT_EQ(link_id("node1", "node2"), "node1<->node2");
  const std::string id = link_id("a[1-2]", "b[1-2]");
  const auto ends = link_ends(id);
  ASSERT_TRUE(ends);
  EXPECT_EQ(ends->first, "a[1-2]");
  EXPECT_EQ(ends->second, "b[1-2]");
  EXPECT_FALSE(link_ends("node1"));
  EXPECT_FALSE(link_ends("node1/mlx5_0:1"));
}

}  // namespace
}  // namespace ibgpu
