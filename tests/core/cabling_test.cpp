// The cabling as infiniband-diags print it: the fixtures are what ibnetdiscover printed for a
// fabric ibsim simulated (tests/data/cabling/record.sh), and the file ibsim read, in the same form.
#include "core/cabling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/bounded_input.h"

namespace ibgpu {
namespace {

const std::string kCablingData = std::string(IBGPU_TEST_DATA) + "/cabling/";

std::vector<std::string> cable_texts(const Cabling& c) {
  std::vector<std::string> out;
  for (const Cable& cable : c.cables) out.push_back(cable.text());
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> cable_texts(const std::vector<const Cable*>& cables) {
  std::vector<std::string> out;
  for (const Cable* cable : cables) out.push_back(cable->text());
  return out;
}

TEST(Cabling, ReadsWhatIbnetdiscoverPrintedEachCableOnce) {
  const Cabling c = read_cabling(kCablingData + "two_leaves.ibnetdiscover");
  ASSERT_EQ(c.cables.size(), 10u);  // six hosts' ports and four uplinks, each printed from both ends
  const Cable* h4 = c.of_port("h4", "mlx5_0:1");
  ASSERT_NE(h4, nullptr);
  EXPECT_EQ(h4->text(), "h4 mlx5_0:1 <-> leaf2 port 1");
  EXPECT_EQ(h4->a.guid, "0c42a10300b1c240");
  EXPECT_EQ(h4->b.guid, "b83fd203004d6a80");
  EXPECT_EQ(h4->rate, "4xSDR");  // what ibsim's links train to
  EXPECT_EQ(c.of_port("h4", "mlx5_1:1"), nullptr);
  EXPECT_EQ(c.of_port("h9", "mlx5_0:1"), nullptr);
  EXPECT_EQ(cable_texts(c.between_switches("leaf1")),
            (std::vector<std::string>{"leaf1 port 33 <-> spine1 port 1", "leaf1 port 34 <-> spine1 port 2"}));
  EXPECT_EQ(c.between_switches("spine1").size(), 4u);
  EXPECT_TRUE(c.between_switches("leaf9").empty());
}

TEST(Cabling, TheFileIbsimReadHoldsTheSameCables) {
  const Cabling printed = read_cabling(kCablingData + "two_leaves.ibnetdiscover");
  const Cabling written = read_cabling(kCablingData + "two_leaves.net");
  EXPECT_EQ(sorted(cable_texts(printed)), sorted(cable_texts(written)));
  EXPECT_EQ(written.of_port("h1", "mlx5_0:1")->rate, "4xNDR");
}

// iblinkinfo prints the same fabric by LID: the same cables, each once, the switch ends' GUIDs
// from their headers (what a work order's perfquery needs), an HCA end's its port's.
TEST(Cabling, WhatIblinkinfoPrintedHoldsTheSameCables) {
  const Cabling linkinfo = read_cabling(kCablingData + "two_leaves.iblinkinfo");
  const Cabling discovered = read_cabling(kCablingData + "two_leaves.ibnetdiscover");
  EXPECT_EQ(sorted(cable_texts(linkinfo)), sorted(cable_texts(discovered)));
  const Cable* h4 = linkinfo.of_port("h4", "mlx5_0:1");
  ASSERT_NE(h4, nullptr);
  EXPECT_EQ(h4->a.guid, "0c42a10300b1c241");
  EXPECT_EQ(h4->b.guid, "b83fd203004d6a80");
  EXPECT_EQ(h4->rate, "4X 2.5 Gbps");
  EXPECT_EQ(cable_texts(linkinfo.between_switches("leaf1")),
            (std::vector<std::string>{"leaf1 port 33 <-> spine1 port 1", "leaf1 port 34 <-> spine1 port 2"}));
}

TEST(Cabling, AnIblinkinfoLineItCannotPlaceNamesFileAndLine) {
  const std::string header = "Switch: 0xb83fd203004d6a80 MF0;leaf2:MQM9700/U1:\n";
  auto error_of = [&](const std::string& text) {
    try {
      parse_iblinkinfo(text, "links.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(header + "  3    1[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  14    1[  ] \"h4 mlx5_0\" ( )\n"),
            "links.txt:2: port 1's far end, LID 14, is no node this output lists");
  EXPECT_EQ(error_of("  3    1[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  14    1[  ] \"h4 mlx5_0\" ( )\n"),
            "links.txt:1: a port line before any node's header (CA: or Switch:)");
  EXPECT_EQ(error_of(header + "  3    x[  ] ==( 4X 2.5 Gbps Active/ LinkUp)==>  14    1[  ] \"h4\" ( )\n"),
            "links.txt:2: expected the LID and port number before the port's '['");
  // A port with nothing at its end is no cable.
  EXPECT_TRUE(
      parse_iblinkinfo(header + "  3    4[  ] ==(    Down/ Polling)==>    [  ] \"\" ( )\n", "l").cables.empty());
}

// topology.conf from the cabling: the two-leaf fabric's tree, as the netns lane's topology.conf
// writes it by hand; none for a host on two leaves (a rail per leaf).
TEST(Cabling, DescribesTheTreeTopologyConfWouldAndSaysWhenItCannot) {
  const CablingTree tree = tree_of(read_cabling(kCablingData + "two_leaves.iblinkinfo"));
  ASSERT_TRUE(tree.topology) << tree.why_not;
  const FabricTopology& t = *tree.topology;
  ASSERT_EQ(t.switches.size(), 3u);
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> got;
  for (const FabricSwitch& s : t.switches) {
    auto nodes = s.nodes, switches = s.switches;
    std::sort(nodes.begin(), nodes.end());
    std::sort(switches.begin(), switches.end());
    got[s.name] = {nodes, switches};
  }
  using Lists = std::pair<std::vector<std::string>, std::vector<std::string>>;
  EXPECT_EQ(got["leaf1"], (Lists{{"h1", "h2", "h3"}, {}}));
  EXPECT_EQ(got["leaf2"], (Lists{{"h4", "h5", "h6"}, {}}));
  EXPECT_EQ(got["spine1"], (Lists{{}, {"leaf1", "leaf2"}}));
  EXPECT_EQ(t.leaf("h5"), "leaf2");
  EXPECT_EQ(t.parent("leaf1"), "spine1");
  EXPECT_EQ(t.origin, "the cabling " + kCablingData + "two_leaves.iblinkinfo");

  const CablingTree rails = tree_of(parse_ibnetdiscover(R"(
Switch	65 "S-b83fd203004d1100"		# "MF0;rail1:MQM9700/U1" enhanced port 0 lid 1 lmc 0
[1]	"H-0c42a10300a1a100"[1](c42a10300a1a100) 		# "a mlx5_0" lid 11 4xNDR
Switch	65 "S-b83fd203004d2200"		# "MF0;rail2:MQM9700/U1" enhanced port 0 lid 2 lmc 0
[1]	"H-0c42a10300a2a200"[1](c42a10300a2a200) 		# "a mlx5_1" lid 21 4xNDR
)",
                                                        "rails.txt"));
  EXPECT_FALSE(rails.topology);
  EXPECT_EQ(
      rails.why_not,
      "host a is cabled to rail1 and rail2 (a rail-optimised fabric: a topology.conf tree gives a host one leaf)");
}

TEST(Cabling, NamesHostsRailsAndSwitchesFromTheirDescriptions) {
  CableEnd hca{"0c42a10300b1c210", "gpu001 mlx5_3", 1, false};
  EXPECT_EQ(hca.host(), "gpu001");
  EXPECT_EQ(hca.rail(), "mlx5_3:1");
  EXPECT_EQ(hca.text(), "gpu001 mlx5_3:1");
  CableEnd old_style{"0c42a10300b1c210", "HCA-1", 2, false};  // no host in it: named by its description
  EXPECT_EQ(old_style.host(), "");
  EXPECT_EQ(old_style.text(), "\"HCA-1\" port 2");
  EXPECT_EQ((CableEnd{"b83fd203004d5e40", "MF0;leaf1:MQM9700/U1", 7, true}).text(), "leaf1 port 7");
  EXPECT_EQ((CableEnd{"b83fd203004d5e40", "spine-a", 1, true}).switch_name(), "spine-a");
}

TEST(Cabling, RefusesWhatItCannotReadNamingTheLine) {
  auto error = [](const std::string& text) {
    try {
      parse_ibnetdiscover(text, "as-built.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string leaf = "Switch\t65 \"S-b83fd203004d5e40\"\t\t# \"leaf1\" enhanced port 0 lid 1 lmc 0\n";
  EXPECT_EQ(error("vendid=0x2c9\n[1]\t\"H-0c42a10300b1c210\"[1]\t\t# \"h1 mlx5_0\" lid 11 4xNDR\n"),
            "as-built.txt:2: a port line before any node's header (Switch or Ca)");
  EXPECT_EQ(error(leaf + "[1]\t\"H-0c42a1zz00b1c210\"[1]\t\t# \"h1 mlx5_0\" lid 11 4xNDR\n"),
            "as-built.txt:2: expected the far end's node, \"S-<guid>\" or \"H-<guid>\", after [1]");
  EXPECT_EQ(error(leaf + "[1]\t\"H-0c42a10300b1c210\"\t\t# \"h1 mlx5_0\" lid 11 4xNDR\n"),
            "as-built.txt:2: expected the far end's [PORT] after its node");
  EXPECT_EQ(error(leaf + "[1]\t\"H-0c42a10300b1c210\"[1]\t\tlid 11 4xNDR\n"),
            "as-built.txt:2: expected # and the far end's description in quotes");
  EXPECT_EQ(error("Switch\t65 S-b83fd203004d5e40\t\t# \"leaf1\"\n"),
            "as-built.txt:1: expected the node's name after its type and port count, \"S-<guid>\" or \"H-<guid>\"");
  // One port cabled to two places: a typo in an as-built file.
  EXPECT_EQ(error(leaf + "[1]\t\"H-0c42a10300b1c210\"[1]\t\t# \"h1 mlx5_0\" lid 11 4xNDR\n" +
                  "[2]\t\"H-0c42a10300b1c210\"[1]\t\t# \"h1 mlx5_0\" lid 11 4xNDR\n"),
            "as-built.txt:3: port 0c42a10300b1c210[1] is cabled to b83fd203004d5e40[2] here and to "
            "b83fd203004d5e40[1] at line 2");
  EXPECT_EQ(error("# nothing but comments\n\nvendid=0x2c9\n"), "no error");
}

TEST(Cabling, ReadsOnlyRegularFilesWithinItsBound) {
  EXPECT_THROW(read_cabling("/dev/zero"), InputError);
  EXPECT_THROW(read_cabling(kCablingData + "no-such-file"), InputError);
}

}  // namespace
}  // namespace ibgpu
