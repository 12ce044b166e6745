// Work orders over the cabling ibnetdiscover printed for a simulated two-leaf fabric
// (tests/data/cabling): one order per cable, the counters that moved on the host's end, what
// could not be read, and the next act.
#include "health/work_orders.h"

#include <gtest/gtest.h>

#include "core/probe_kind.h"

namespace ibgpu {
namespace {

const Cabling& two_leaves() {
  static const Cabling cabling = read_cabling(std::string(IBGPU_TEST_DATA) + "/cabling/two_leaves.ibnetdiscover");
  return cabling;
}

Verdict bad(Entity e, HealthState state, const std::string& why) {
  Verdict v{std::move(e), state, {Reason{ReasonCode::NET_BW_OUTLIER, why, "bw_avg_GBps", 10.0, 40.0}}, {}};
  v.reasons[0].state = state;
  return v;
}

ProbeResult counters_on(const std::string& host, const std::string& port, std::map<std::string, double> deltas) {
  ProbeResult r;
  r.id = kPortCountersProbe;
  r.scope = Scope{{host}, {}, {port}};
  for (const auto& [name, v] : deltas) r.metrics[name + "_delta"] = Metric::of(v);
  return r;
}

TEST(WorkOrders, APortWithErrorsOnTheWireGetsItsCableReplaced) {
  const std::vector<Verdict> verdicts{bad(Entity::port("h4", "mlx5_0:1"), HealthState::failed, "h4 slow with 5 peers"),
                                      Verdict{Entity::node("h1"), HealthState::healthy, {}, Action::admit}};
  const auto orders = work_orders(
      verdicts, {counters_on("h4", "mlx5_0:1", {{"symbol_error", 12}, {"port_xmit_wait", 900}})}, two_leaves());
  ASSERT_EQ(orders.size(), 1u);
  const WorkOrder& o = orders[0];
  EXPECT_EQ(o.cable, "h4 mlx5_0:1 <-> leaf2 port 1");
  EXPECT_EQ(o.state, HealthState::failed);
  EXPECT_EQ(o.shortfall, "h4 slow with 5 peers");
  EXPECT_EQ(o.counters, (std::map<std::string, double>{{"symbol_error", 12}}));  // congestion is no cable's
  EXPECT_EQ(o.unread, std::vector<std::string>{"leaf2 port 1: a switch's counters are not read by ibgpu "
                                               "(perfquery -G 0xb83fd203004d6a80 1)"});
  EXPECT_EQ(o.next, "replace the cable (bit errors on the wire); if they follow the port, the transceiver");
}

TEST(WorkOrders, OneOrderPerCableHoweverManyVerdictsCrossedIt) {
  // Two links from h4 on its one rail, and the port itself: h4's cable once, serving all three;
  // the far hosts' cables once each.
  Verdict a = bad(Entity::link("h1", "h4"), HealthState::degraded, "h1-h4 slow");
  a.reasons[0].port = "mlx5_0:1";
  a.reasons[0].peer_port = "mlx5_0:1";
  Verdict b = bad(Entity::link("h2", "h4"), HealthState::failed, "h2-h4 at a fifth");
  b.reasons[0].port = "mlx5_0:1";
  b.reasons[0].peer_port = "mlx5_0:1";
  const Verdict port = bad(Entity::port("h4", "mlx5_0:1"), HealthState::degraded, "h4's rail slow");
  const auto orders = work_orders({a, b, port}, {}, two_leaves());
  ASSERT_EQ(orders.size(), 3u);
  EXPECT_EQ(orders[0].cable, "h1 mlx5_0:1 <-> leaf1 port 1");
  EXPECT_EQ(orders[1].cable, "h4 mlx5_0:1 <-> leaf2 port 1");
  EXPECT_EQ(orders[1].entities, (std::vector<Entity>{a.entity, b.entity, port.entity}));
  EXPECT_EQ(orders[1].state, HealthState::failed);  // the worst it serves, with that verdict's words
  EXPECT_EQ(orders[1].shortfall, "h2-h4 at a fifth");
  EXPECT_EQ(orders[2].cable, "h2 mlx5_0:1 <-> leaf1 port 2");
  // No counters were read on any of them: said, not guessed; the act is the quiet port's.
  EXPECT_EQ(orders[1].unread.front(), "h4 mlx5_0:1: no error counters read during the run");
  EXPECT_EQ(orders[1].next.rfind("inspect the switch port", 0), 0u) << orders[1].next;
}

TEST(WorkOrders, AnUplinkVerdictNamesEachOfTheLeafsUplinkCables) {
  const auto orders =
      work_orders({bad(Entity::leaf(EntityKind::uplink, "leaf1", ""), HealthState::degraded, "leaf1's uplinks slow")},
                  {}, two_leaves());
  ASSERT_EQ(orders.size(), 2u);
  EXPECT_EQ(orders[0].cable, "leaf1 port 33 <-> spine1 port 1");
  EXPECT_EQ(orders[1].cable, "leaf1 port 34 <-> spine1 port 2");
  EXPECT_EQ(orders[0].port, "leaf1");
  EXPECT_EQ(orders[0].unread.size(), 2u);  // both ends are switches
  EXPECT_TRUE(orders[0].counters.empty());
}

TEST(WorkOrders, APortTheCablingDoesNotListIsSaidSo) {
  const auto orders =
      work_orders({bad(Entity::port("h9", "mlx5_3:1"), HealthState::failed, "down"),
                   bad(Entity::leaf(EntityKind::uplink, "leaf7", "mlx5_3"), HealthState::degraded, "slow")},
                  {counters_on("h9", "mlx5_3:1", {{"link_downed", 2}})}, two_leaves());
  ASSERT_EQ(orders.size(), 2u);
  EXPECT_EQ(orders[0].cable, "");
  EXPECT_EQ(orders[0].port, "h9 mlx5_3:1");
  EXPECT_EQ(orders[0].unread, std::vector<std::string>{"h9 mlx5_3:1: the cabling lists no cable for this port"});
  EXPECT_EQ(orders[0].next.rfind("reseat both ends", 0), 0u) << orders[0].next;
  EXPECT_EQ(orders[1].unread, std::vector<std::string>{"leaf7: the cabling lists no cable from it to another switch"});
}

// A slow host (a node blamed for what its pairs measured, as the netns lane's slow host is): each
// of its cables, with the counters that moved on it, where its findings cite no rail; the cited
// rail's alone where they do. A node bad for another reason (a GPU) gets none.
TEST(WorkOrders, ASlowHostGetsItsCablesWithTheCountersThatMovedOnThem) {
  const Cabling n1 = read_cabling(std::string(IBGPU_TEST_DATA) + "/cabling/n1_as_built.txt");
  Verdict slow = bad(Entity::node("n1"), HealthState::failed, "n1 slow with 5 of 5 peers");
  // What could not be checked comes first in a node's reasons: no cable's, and not its shortfall.
  Reason skipped{ReasonCode::CHECK_SKIPPED, "gpu.nvml.health: no NVIDIA driver", "", {}, {}};
  skipped.state = HealthState::unknown;
  slow.reasons.insert(slow.reasons.begin(), skipped);
  const auto orders = work_orders(
      {slow}, {counters_on("n1", "mlx5_0:1", {}), counters_on("n1", "mlx5_1:1", {{"link_error_recovery", 3}})}, n1);
  ASSERT_EQ(orders.size(), 2u);
  EXPECT_EQ(orders[0].cable, "n1 mlx5_0:1 <-> leaf1 port 7");
  EXPECT_TRUE(orders[0].counters.empty());
  EXPECT_EQ(orders[0].next.rfind("inspect the switch port", 0), 0u) << orders[0].next;
  EXPECT_EQ(orders[1].cable, "n1 mlx5_1:1 <-> leaf1 port 8");
  EXPECT_EQ(orders[1].entities, std::vector<Entity>{slow.entity});
  EXPECT_EQ(orders[1].shortfall, "n1 slow with 5 of 5 peers");
  EXPECT_EQ(orders[1].counters, (std::map<std::string, double>{{"link_error_recovery", 3}}));
  EXPECT_EQ(orders[1].next.rfind("replace the cable (the link retrains)", 0), 0u) << orders[1].next;

  Verdict cited = slow;
  cited.reasons.back().port = "mlx5_1:1";
  const auto one = work_orders({cited}, {}, n1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].cable, "n1 mlx5_1:1 <-> leaf1 port 8");

  Verdict gpu = bad(Entity::node("n1"), HealthState::failed, "XID 79");
  gpu.reasons[0].code = ReasonCode::GPU_XID;
  EXPECT_TRUE(work_orders({gpu}, {}, n1).empty());
  // Unknown for what could not be checked, with its pairs' finding: still its cables.
  Verdict unknown = slow;
  unknown.state = HealthState::unknown;
  EXPECT_EQ(work_orders({unknown}, {}, n1).size(), 2u);
  const auto uncabled = work_orders({bad(Entity::node("n9"), HealthState::degraded, "n9 slow")}, {}, n1);
  ASSERT_EQ(uncabled.size(), 1u);
  EXPECT_EQ(uncabled[0].port, "n9");
  EXPECT_EQ(uncabled[0].unread, std::vector<std::string>{"n9: the cabling lists no cable of this host"});
}

}  // namespace
}  // namespace ibgpu
