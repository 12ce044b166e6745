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
  // the same text under two kinds is two entities.
  constexpr int kHosts = 5000;
  for (int i = 0; i < kHosts; ++i) {
    const std::string host = "node" + std::to_string(i);
    book.at(Entity::node(host));
    book.at(Entity::port(host, "mlx5_0:1"));
    book.at(Entity::leaf(EntityKind::leaf_switch, host, ""));
  }
  for (int i = kHosts - 1; i >= 0; --i) {
    const std::string host = "node" + std::to_string(i);
    ASSERT_NE(book.find(Entity::node(host)), nullptr) << host;
    EXPECT_EQ(book.find(Entity::node(host))->entity, Entity::node(host));
    EXPECT_EQ(book.find(Entity::leaf(EntityKind::leaf_switch, host, ""))->entity.kind(), EntityKind::leaf_switch);
    EXPECT_EQ(book.index(Entity::port(host, "mlx5_0:1")), static_cast<std::size_t>(3 * i + 1));
  }
  EXPECT_EQ(book.find(Entity::node("node5000")), nullptr);
  EXPECT_EQ(book.find(Entity::leaf(EntityKind::uplink, "node1", "")), nullptr);  // the same text, another kind
  const auto verdicts = book.take();
  ASSERT_EQ(verdicts.size(), static_cast<std::size_t>(3 * kHosts));
  EXPECT_EQ(verdicts[3].entity, Entity::node("node1"));
  EXPECT_EQ(verdicts[5].entity, Entity::leaf(EntityKind::leaf_switch, "node1", ""));
}

TEST(VerdictBook, StatesOnlyWorsenAndReasonsAccumulate) {
  VerdictBook book;
  book.add(Entity::gpu("n", "gpu0"), HealthState::failed, Reason{ReasonCode::GPU_XID, "a", "m", 1.0, 0.0});
  book.add(Entity::gpu("n", "gpu0"), HealthState::degraded, Reason{ReasonCode::GPU_TEMP_HIGH, "b", "m", 2.0, 0.0});
  book.add(Entity::gpu("n", "gpu0"), HealthState::healthy);
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
  const std::vector<Blame> blamed{{Entity::port("a", "mlx5_1:1"), HealthState::degraded, {}}};
  EXPECT_EQ(known_good_hosts(observations, blamed), (std::vector<std::string>{"b", "c"}));
  // A blamed link clears neither of its ends.
  const std::vector<Blame> link{{Entity::link("c", "b"), HealthState::degraded, {}}};
  EXPECT_EQ(known_good_hosts(observations, link), (std::vector<std::string>{"a"}));
}

TEST(Entity, NamesItsPartsAndReadsThemBackFromItsText) {
  struct Case {
    Entity entity;
    std::string text, host, part, peer;
  };
  const std::vector<Case> cases{
      {Entity::node("node1"), "node node1", "node1", "", ""},
      {Entity::gpu("node1", "gpu3"), "gpu node1/gpu3", "node1", "gpu3", ""},
      {Entity::port("node1", "mlx5_0:1"), "hca_port node1/mlx5_0:1", "node1", "mlx5_0:1", ""},
      {Entity::link("node1", "node2"), "link node1<->node2", "node1", "", "node2"},
      {Entity::hosts_group({"a", "b", "c"}), "link a<->..<->c (3 hosts)", "", "", ""},
      {Entity::hosts_group({"a", "b"}), "link a<->b", "a", "", "b"},
      {Entity::leaf(EntityKind::leaf_switch, "leaf1", ""), "switch leaf1", "leaf1", "", ""},
      {Entity::leaf(EntityKind::uplink, "leaf1", "mlx5_0"), "uplink leaf1/mlx5_0", "leaf1", "mlx5_0", ""},
      {Entity::path("a[1-2]", "b[1-2]"), "path a[1-2]<->b[1-2]", "a[1-2]", "", "b[1-2]"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(entity_text(c.entity), c.text);
    EXPECT_EQ(c.entity.host(), c.host) << c.text;
    EXPECT_EQ(c.entity.part(), c.part) << c.text;
    EXPECT_EQ(c.entity.peer(), c.peer) << c.text;
    // What the JSON reader makes of the text is the same entity, parts and all.
    const auto back = Entity::from_text(c.entity.kind(), c.entity.id());
    ASSERT_TRUE(back) << c.text;
    EXPECT_EQ(*back, c.entity);
    EXPECT_EQ(back->host(), c.host) << c.text;
    EXPECT_EQ(back->part(), c.part) << c.text;
    EXPECT_EQ(back->peer(), c.peer) << c.text;
  }
  EXPECT_FALSE(Entity::from_text(EntityKind::link, "node1"));
  EXPECT_FALSE(Entity::from_text(EntityKind::path, "leaf1"));
  EXPECT_FALSE(Entity::from_text(EntityKind::hca_port, "node1"));
}

}  // namespace
}  // namespace ibgpu
