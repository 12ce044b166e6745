// Fabric localisation: switches, uplinks and cuts between groups, on hand-made pair sets.
#include "health/fabric.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/fabric_topology.h"
#include "health/localise.h"

namespace ibgpu {
namespace {

constexpr auto kBad = HealthState::degraded;
constexpr auto kGood = HealthState::healthy;

// Every pair of hosts h1..hN measured once per rail, bad where `bad` says.
struct Fleet {
  std::vector<std::string> hosts;
  std::vector<std::string> rails = {""};
  std::vector<PairObservation> observations;

  explicit Fleet(int n) {
    for (int i = 1; i <= n; ++i) hosts.push_back("h" + std::to_string(i));
  }
  template <class Bad>
  std::vector<PairObservation>& measure(Bad bad) {
    observations.clear();
    for (const auto& rail : rails)
      for (std::size_t i = 0; i < hosts.size(); ++i)
        for (std::size_t j = i + 1; j < hosts.size(); ++j) {
          PairObservation o;
          o.group = "net.mpi.bw@8388608:bw_avg_GBps";
          o.a = Endpoint{hosts[i], rail};
          o.b = Endpoint{hosts[j], rail};
          o.state = bad(static_cast<int>(i) + 1, static_cast<int>(j) + 1, rail) ? kBad : kGood;
          if (o.state != kGood) o.reason = Reason{ReasonCode::NET_BW_OUTLIER, "low", "bw_avg_GBps", 2.0, 8.5};
          observations.push_back(o);
        }
    return observations;
  }
};

std::map<std::string, std::string> blamed(const std::vector<Blame>& blames) {
  std::map<std::string, std::string> out;
  for (const auto& b : blames) out[entity_text(b.entity)] = to_string(b.reason.code);
  return out;
}

using Blamed = std::map<std::string, std::string>;

// h1-h4 on leaf1, h5-h8 on leaf2, ... four hosts per leaf.
FabricTopology leaves_of_four(int leaves) {
  std::string text = "# test fabric\n";
  for (int l = 0; l < leaves; ++l)
    text += "SwitchName=leaf" + std::to_string(l + 1) + " Nodes=h[" + std::to_string(4 * l + 1) + "-" +
            std::to_string(4 * l + 4) + "]\n";
  text += "SwitchName=spine Switches=leaf[1-" + std::to_string(leaves) + "]\n";
  return parse_topology_conf(text, "test.conf");
}

int leaf(int host) { return (host - 1) / 4; }

TEST(FabricLocalise, WithoutTopologyACutBetweenTwoGroupsDrainsNeitherSide) {
  // h5-h7 are bad with each of h1-h4 (a majority of their peers) and good together: without the
  // cut they would be culprits. A cut: one path verdict, no node, no link.
  Fleet f(7);
  const auto found = localise(f.measure([](int a, int b, auto) { return (a <= 4) != (b <= 4); }));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(blamed(found), (Blamed{{"path h[1-4]<->h[5-7]", "FABRIC_PATH_BAD"}}));
  EXPECT_EQ(found[0].state, kBad);
  EXPECT_NE(found[0].reason.message.find("pairs across these groups are bad (12 measured, every one)"),
            std::string::npos)
      << found[0].reason.message;
  EXPECT_NE(found[0].reason.message.find("network team"), std::string::npos);
}

TEST(FabricLocalise, WithoutTopologyTwoSlowNodesWhosePairPassesStayNodes) {
  // Slow h3 and h6, their own pair read good by noise: a group of two good together and bad with
  // everyone else is no more than that, not a cut.
  Fleet f(8);
  const auto& o = f.measure([](int a, int b, auto) { return (a == 3 || a == 6 || b == 3 || b == 6) && a * b != 18; });
  EXPECT_EQ(blamed(localise(o)), (Blamed{{"node h3", "NET_BW_OUTLIER"}, {"node h6", "NET_BW_OUTLIER"}}));
}

TEST(FabricLocalise, TwoSlowNodesWhosePairPassesOnOneRailStayNodes) {
  // The fleet's case: slow h2 (leaf1) and h7 (leaf2) on both rails; their pair passes on one. Their
  // leaf-mates are good with the rest: the two are not whole leaves cut off, with or without the
  // topology.
  const FabricTopology t = leaves_of_four(4);
  Fleet f(16);
  f.rails = {"mlx5_0:1", "mlx5_1:1"};
  const auto& o = f.measure([](int a, int b, const std::string& rail) {
    if (a == 2 && b == 7) return rail == "mlx5_0:1";
    return a == 2 || a == 7 || b == 2 || b == 7;
  });
  const Blamed nodes{{"node h2", "NET_BW_OUTLIER"}, {"node h7", "NET_BW_OUTLIER"}};
  EXPECT_EQ(blamed(localise(o, &t)), nodes);
  EXPECT_EQ(blamed(localise(o)), nodes);
}

TEST(FabricLocalise, TwoSlowNodesOnOneLeafWhosePairPassesStayNodes) {
  const FabricTopology t = leaves_of_four(4);
  Fleet f(16);
  const auto& o = f.measure([](int a, int b, auto) { return (a == 2 || a == 3 || b == 2 || b == 3) && a * b != 6; });
  EXPECT_EQ(blamed(localise(o, &t)), (Blamed{{"node h2", "NET_BW_OUTLIER"}, {"node h3", "NET_BW_OUTLIER"}}));
}

TEST(FabricLocalise, HostsOffTheTopologyCutOffAreAPath) {
  // h9-h11 are in no leaf of the topology: three of them good together are a cut, as without one.
  const FabricTopology t = leaves_of_four(2);
  Fleet f(11);
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return (a <= 8) != (b <= 8); }), &t)),
            (Blamed{{"path h[1-8]<->h[9-11]", "FABRIC_PATH_BAD"}}));
}

TEST(FabricLocalise, WithoutTopologyAnEvenCutIsOnePathNotNineLinks) {
  Fleet f(6);
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return (a <= 3) != (b <= 3); }))),
            (Blamed{{"path h[1-3]<->h[4-6]", "FABRIC_PATH_BAD"}}));
}

TEST(FabricLocalise, TwoSlowNodesWhosePairIsBadStayNodes) {
  Fleet f(6);
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return a == 2 || a == 5 || b == 2 || b == 5; }))),
            (Blamed{{"node h2", "NET_BW_OUTLIER"}, {"node h5", "NET_BW_OUTLIER"}}));
}

TEST(FabricLocalise, UplinkBetweenTwoLeavesIsOneUplinkVerdict) {
  // The netns fabric lane: 3 hosts per leaf, the veth between the bridges throttled.
  const FabricTopology t = parse_topology_conf("SwitchName=leafA Nodes=h[1-3]\nSwitchName=leafB Nodes=h[4-6]\n", "t");
  Fleet f(6);
  const auto found = localise(f.measure([](int a, int b, auto) { return (a <= 3) != (b <= 3); }), &t);
  EXPECT_EQ(blamed(found), (Blamed{{"uplink leafA", "FABRIC_UPLINK_BAD"}}));
}

// The netns fabric lane again: the uplink's bandwidth blames it, and the one pair across it whose
// latency also crossed its limit is the uplink's too, not a link verdict of its own. A latency bad
// on a pair whose bandwidth was fine stays its link's.
TEST(FabricLocalise, APairTheUplinkExplainsInOneKindIsItsInEveryKind) {
  const FabricTopology t = parse_topology_conf("SwitchName=leafA Nodes=h[1-3]\nSwitchName=leafB Nodes=h[4-6]\n", "t");
  Fleet f(6);
  std::vector<PairObservation> all = f.measure([](int a, int b, auto) { return (a <= 3) != (b <= 3); });
  const std::vector<PairObservation> latency =
      f.measure([](int a, int b, auto) { return (a == 2 && b == 5) || (a == 1 && b == 2); });
  for (PairObservation o : latency) {
    o.group = "net.mpi.lat@8:lat_us.p50";
    if (o.reason) *o.reason = Reason{ReasonCode::LAT_OUTLIER, "high", "lat_us.p50", 900.0, 200.0};
    all.push_back(o);
  }
  EXPECT_EQ(blamed(localise(all, &t)),
            (Blamed{{"uplink leafA", "FABRIC_UPLINK_BAD"}, {"link h1<->h2", "LAT_OUTLIER"}}));
}

TEST(FabricLocalise, LeafSwitchDownIsTheSwitch) {
  const FabricTopology t = leaves_of_four(4);
  Fleet f(16);
  const auto found = localise(f.measure([](int a, int b, auto) { return leaf(a) == 1 || leaf(b) == 1; }), &t);
  EXPECT_EQ(blamed(found), (Blamed{{"switch leaf2", "FABRIC_SWITCH_BAD"}}));
  EXPECT_NE(found[0].reason.message.find("pairs within it too (6 of 6): the switch"), std::string::npos)
      << found[0].reason.message;
  // Without the topology the leaf's hosts are culprits (nothing tells them from four dead nodes).
  EXPECT_EQ(blamed(localise(f.observations)).size(), 4u);
}

TEST(FabricLocalise, LeafCutOffFromTheRestIsItsUplinks) {
  const FabricTopology t = leaves_of_four(4);
  Fleet f(16);
  const auto& o = f.measure([](int a, int b, auto) { return (leaf(a) == 2) != (leaf(b) == 2); });
  EXPECT_EQ(blamed(localise(o, &t)), (Blamed{{"uplink leaf3", "FABRIC_UPLINK_BAD"}}));
  // Without it: a cut between h9-h12 and the rest.
  EXPECT_EQ(blamed(localise(o)), (Blamed{{"path h[1-8,13-16]<->h[9-12]", "FABRIC_PATH_BAD"}}));
}

// Slurm's block form (an NVL72 rack a block): a block is judged as a leaf, and the findings say block.
TEST(FabricLocalise, ABlockIsJudgedAsALeaf) {
  const FabricTopology t = parse_topology_conf(
      "BlockName=rack1 Nodes=h[1-4]\nBlockName=rack2 Nodes=h[5-8]\nBlockName=rack3 Nodes=h[9-12]\n"
      "BlockName=rack4 Nodes=h[13-16]\nBlockSizes=4,16\n",
      "blocks.conf");
  Fleet f(16);
  const auto cut_off = localise(f.measure([](int a, int b, auto) { return (leaf(a) == 2) != (leaf(b) == 2); }), &t);
  EXPECT_EQ(blamed(cut_off), (Blamed{{"uplink rack3", "FABRIC_UPLINK_BAD"}}));
  EXPECT_NE(cut_off[0].reason.message.find("every host on block rack3 (4) is bad with the hosts off it"),
            std::string::npos)
      << cut_off[0].reason.message;
  Fleet g(16);
  const auto dead = localise(g.measure([](int a, int b, auto) { return leaf(a) == 1 || leaf(b) == 1; }), &t);
  EXPECT_EQ(blamed(dead), (Blamed{{"switch rack2", "FABRIC_SWITCH_BAD"}}));
}

TEST(FabricLocalise, OneBadUplinkOfALeafCarriesSomeOfItsPairs) {
  // Destination-modulo routing: leaf1's uplink 0 carries its pairs with hosts 4, 8, 12, 16 off it.
  // No host is bad with most of its peers: without a topology these are 12 links.
  const FabricTopology t = leaves_of_four(4);
  Fleet f(16);
  auto over_uplink = [](int a, int b, auto) {
    if (leaf(a) == leaf(b)) return false;
    return (leaf(a) == 0 && b % 4 == 0) || (leaf(b) == 0 && a % 4 == 0);
  };
  EXPECT_EQ(blamed(localise(f.measure(over_uplink), &t)), (Blamed{{"uplink leaf1", "FABRIC_UPLINK_BAD"}}));
  const auto links = blamed(localise(f.observations));
  EXPECT_EQ(links.size(), 12u);
  EXPECT_EQ(links.count("link h1<->h8"), 1u);
}

TEST(FabricLocalise, ASingleBadLinkBetweenLeavesStaysALink) {
  const FabricTopology t = leaves_of_four(2);
  Fleet f(8);
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return a == 2 && b == 7; }), &t)),
            (Blamed{{"link h2<->h7", "NET_BW_OUTLIER"}}));
  // Two from one host: still links (the uplink needs pairs from two of the leaf's hosts).
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return a == 2 && (b == 7 || b == 8); }), &t)).size(),
            2u);
}

TEST(FabricLocalise, LeafOfOneRailDownIsThatRailsSwitch) {
  const FabricTopology t = leaves_of_four(3);
  Fleet f(12);
  f.rails = {"mlx5_0:1", "mlx5_1:1"};
  const auto found = localise(f.measure([](int a, int b, const std::string& rail) {
    return rail == "mlx5_1:1" && (leaf(a) == 0 || leaf(b) == 0);
  }),
                              &t);
  EXPECT_EQ(blamed(found), (Blamed{{"switch leaf1/mlx5_1:1", "FABRIC_SWITCH_BAD"}}));
}

TEST(FabricLocalise, ALeafOfSlowNodesOnEveryRailIsNodes) {
  // A bad batch of nodes that fills a leaf: bad on every rail, which one rail's leaf cannot be.
  const FabricTopology t = leaves_of_four(3);
  Fleet f(12);
  f.rails = {"mlx5_0:1", "mlx5_1:1"};
  const auto found = localise(f.measure([](int a, int b, auto) { return leaf(a) == 0 || leaf(b) == 0; }), &t);
  EXPECT_EQ(blamed(found).size(), 4u);
  EXPECT_EQ(blamed(found).count("node h1"), 1u);
}

TEST(FabricLocalise, ALeafMostlyOfSlowNodesIsNodesThoughTwoOfThemReadWellOnOneRail) {
  // A bad batch fills leaf1 (h1-h8); h7 and h8 read well on mlx5_1:1 by chance, so they are
  // culprits on mlx5_0:1 only. Two hosts of eight do not make leaf1's mlx5_0:1 switch bad.
  const FabricTopology t = parse_topology_conf(
      "SwitchName=leaf1 Nodes=h[1-8]\nSwitchName=leaf2 Nodes=h[9-16]\n"
      "SwitchName=leaf3 Nodes=h[17-24]\nSwitchName=spine Switches=leaf[1-3]\n",
      "test.conf");
  Fleet f(24);
  f.rails = {"mlx5_0:1", "mlx5_1:1"};
  const auto slow = [](int h, const std::string& rail) { return h <= 6 || (h <= 8 && rail == "mlx5_0:1"); };
  const Blamed found = blamed(
      localise(f.measure([&](int a, int b, const std::string& rail) { return slow(a, rail) || slow(b, rail); }), &t));
  for (const auto& [entity, code] : found) EXPECT_EQ(entity.rfind("switch", 0), std::string::npos) << entity;
  for (int h = 1; h <= 6; ++h) EXPECT_EQ(found.count("node h" + std::to_string(h)), 1u) << h;
}

TEST(FabricLocalise, SlowNodeOnALeafIsStillTheNodeAndUnplacedHostsAreJudgedAsBefore) {
  const FabricTopology t = leaves_of_four(1);  // h5, h6 are not in it
  Fleet f(6);
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return a == 2 || b == 2; }), &t)),
            (Blamed{{"node h2", "NET_BW_OUTLIER"}}));
  EXPECT_EQ(blamed(localise(f.measure([](int a, int b, auto) { return a == 6 || b == 6; }), &t)),
            (Blamed{{"node h6", "NET_BW_OUTLIER"}}));
}

TEST(FabricLocalise, FabricBlamesNameNoHostToRetestAgainst) {
  Fleet f(6);
  const auto& o = f.measure([](int a, int b, auto) { return (a <= 3) != (b <= 3); });
  EXPECT_EQ(known_good_hosts(o, localise(o)).size(), 6u);
}

}  // namespace
}  // namespace ibgpu
