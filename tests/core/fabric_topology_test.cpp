#include "core/fabric_topology.h"

#include <gtest/gtest.h>

#include "core/bounded_input.h"
#include "core/hostlist.h"

namespace ibgpu {
namespace {

const std::string kData = std::string(IBGPU_TEST_DATA) + "/topology/";

std::vector<std::string> names(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

TEST(Hostlist, ExpandsRangesKeepingTheirZeroPadding) {
  EXPECT_EQ(expand_hostlist("gpu[001-003]", 100), names({"gpu001", "gpu002", "gpu003"}));
  EXPECT_EQ(expand_hostlist("gpu[01-02,10]", 100), names({"gpu01", "gpu02", "gpu10"}));
  EXPECT_EQ(expand_hostlist("n[8-10]", 100), names({"n8", "n9", "n10"}));
  EXPECT_EQ(expand_hostlist("login1,stor[1-2],x", 100), names({"login1", "stor1", "stor2", "x"}));
  EXPECT_EQ(expand_hostlist("a[1-2]b[3-4]", 100), names({"a1b3", "a1b4", "a2b3", "a2b4"}));
  EXPECT_EQ(expand_hostlist("rack[1-2]-gpu", 100), names({"rack1-gpu", "rack2-gpu"}));
}

TEST(Hostlist, RefusesWhatItCannotRead) {
  for (const char* bad : {"gpu[001-032", "gpu]1", "gpu[5-1]", "gpu[a-c]", "gpu[]", "a,,b", "gpu[1-2-3]", ","})
    EXPECT_THROW(expand_hostlist(bad, 100), InputError) << bad;
  EXPECT_THROW(expand_hostlist("n[0-99999999]", 1000), InputError);
  EXPECT_THROW(expand_hostlist("a[1-40]b[1-40]", 1000), InputError);  // 1600 names
  EXPECT_EQ(expand_hostlist("a[1-40]b[1-25]", 1000).size(), 1000u);
}

TEST(Hostlist, CompressesToRangesAndRoundTrips) {
  EXPECT_EQ(compress_hostlist(names({"gpu003", "gpu001", "gpu002", "gpu010", "login"})), "gpu[001-003,010],login");
  EXPECT_EQ(compress_hostlist(names({"h1"})), "h1");
  EXPECT_EQ(compress_hostlist(names({"h1", "h2", "h4"})), "h[1-2,4]");
  EXPECT_EQ(compress_hostlist(names({"h9", "h10", "h11"})), "h[9-11]");
  EXPECT_EQ(compress_hostlist(names({"gpu099", "gpu100", "gpu101"})), "gpu[099-101]");
  const auto many = expand_hostlist("gpu[001-032],spare[1-2],login1", 100);
  EXPECT_EQ(expand_hostlist(compress_hostlist(many), 100).size(), many.size());
}

TEST(FabricTopology, TwoLeavesUnderASpine) {
  const FabricTopology t = read_topology_conf(kData + "two_leaves.conf");
  ASSERT_EQ(t.switches.size(), 3u);
  EXPECT_EQ(t.leaf("gpu001"), "leaf1");
  EXPECT_EQ(t.leaf("gpu008"), "leaf1");
  EXPECT_EQ(t.leaf("gpu009"), "leaf2");
  EXPECT_EQ(t.leaf("gpu017"), "");
  EXPECT_EQ(t.parent("leaf2"), "spine1");
  EXPECT_EQ(t.parent("spine1"), "");
  EXPECT_EQ(t.leaf_of.size(), 16u);
}

TEST(FabricTopology, FourLeavesTwoSpinesACoreCommentsAndBlankLines) {
  const FabricTopology t = read_topology_conf(kData + "four_leaves_spine.conf");
  ASSERT_EQ(t.switches.size(), 8u);
  EXPECT_EQ(t.leaf("gpu032"), "leaf1");
  EXPECT_EQ(t.leaf("gpu033"), "leaf2");
  EXPECT_EQ(t.leaf("gpu096"), "leaf3");  // the comment after the list is not part of it
  EXPECT_EQ(t.leaf("gpu120"), "leaf4");
  EXPECT_EQ(t.leaf("gpu121"), "");  // the gap in leaf4's list
  EXPECT_EQ(t.leaf("gpu125"), "leaf4");
  EXPECT_EQ(t.leaf("spare2"), "leaf4");
  EXPECT_EQ(t.leaf("stor02"), "service");
  EXPECT_EQ(t.leaf_of.size(), 32u * 3 + 28 + 2 + 3);
  EXPECT_EQ(t.parent("leaf3"), "spine2");
  EXPECT_EQ(t.parent("service"), "spine2");
  EXPECT_EQ(t.parent("spine1"), "core");  // lower-case keys, as Slurm reads them
  EXPECT_EQ(unplaced_hosts(t, names({"gpu001", "gpu121", "node7"})), names({"gpu121", "node7"}));
}

TEST(FabricTopology, MultipliedBracketGroups) {
  const FabricTopology t = read_topology_conf(kData + "racks.conf");
  EXPECT_EQ(t.leaf("a2b3"), "r1");
  EXPECT_EQ(t.leaf("c09"), "r2");
  EXPECT_EQ(t.leaf_of.size(), 7u);
}

std::string error_of(const std::string& text) {
  try {
    parse_topology_conf(text, "topo.conf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FabricTopology, BadLinesNameTheFileTheLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("SwitchName=a Nodes=n1\n\nNodes=n[1-2]\n"),
            "topo.conf:3: expected a line that starts with SwitchName= or BlockName=");
  EXPECT_EQ(error_of("SwitchName=a Nodes=n[1-2\n"), "topo.conf:1: a '[' without its ']' in 'n[1-2'");
  EXPECT_EQ(error_of("SwitchName=a Nodes=n1 Color=red\n"),
            "topo.conf:1: unknown key 'color' (expected SwitchName, Nodes, Switches, LinkSpeed; or BlockName, Nodes, "
            "BlockSizes)");
  EXPECT_EQ(
      error_of("SwitchName=a Nodes\n"),
      "topo.conf:1: expected KEY=VALUE (SwitchName=, Nodes=, Switches=, LinkSpeed=; BlockName=, BlockSizes=), not "
      "'Nodes'");
  EXPECT_EQ(error_of("SwitchName=a Nodes=n1\nSwitchName=a Nodes=n2\n"), "topo.conf:2: switch a is defined twice");
  EXPECT_EQ(error_of("SwitchName=s Switches=s\n"), "topo.conf:1: switch s is below itself");
  EXPECT_EQ(error_of("# nothing\n\n"), "topo.conf: no SwitchName= or BlockName= line: expected Slurm's topology.conf");
  // The block form: one form a file, a block of nodes only, sizes that are counts.
  EXPECT_EQ(error_of("SwitchName=a Nodes=n1\nBlockName=b1 Nodes=n[2-4]\n"),
            "topo.conf:2: a topology/block line in a file of the other form: a topology.conf is one or the other");
  EXPECT_EQ(error_of("BlockName=b1 Nodes=n[1-4]\nSwitchName=top Switches=b1\n"),
            "topo.conf:2: a topology/tree line in a file of the other form: a topology.conf is one or the other");
  EXPECT_EQ(error_of("BlockName=b1 Switches=x\n"),
            "topo.conf:1: a block lists nodes, not switches (Switches= is topology/tree's)");
  EXPECT_EQ(error_of("BlockName=b1\n"), "topo.conf:1: block b1 lists no Nodes=");
  EXPECT_EQ(error_of("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n4\n"),
            "topo.conf:2: host n4 is on two blocks (b1 and b2)");
  EXPECT_EQ(error_of("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,x\n"),
            "topo.conf:2: expected BlockSizes= a list of block sizes (counts of nodes), not '4,x'");
  EXPECT_EQ(error_of("BlockName=b1 Nodes=n[1-4] BlockSizes=4\n"), "topo.conf:1: BlockSizes= goes on a line of its own");
  EXPECT_EQ(error_of("BlockSizes=4\n"), "topo.conf: no SwitchName= or BlockName= line: expected Slurm's topology.conf");
  EXPECT_EQ(error_of("SwitchName=a Nodes=n[0-9999999]\n"), "topo.conf:1: more than 1000000 names");
  EXPECT_EQ(error_of(std::string(kTopologyMaxLine + 1, ' ')), "topo.conf:1: a line of more than 65536 bytes");
}

// Slurm's topology/block, as Topograph writes it for NVL72 racks: each block is its hosts' leaf.
TEST(FabricTopology, BlocksOfRacks) {
  const FabricTopology t = read_topology_conf(kData + "nvl72_blocks.conf");
  EXPECT_EQ(t.form, TopologyForm::block);
  EXPECT_STREQ(t.group_word(), "block");
  ASSERT_EQ(t.switches.size(), 2u);
  EXPECT_EQ(t.leaf("tray001"), "rack01");
  EXPECT_EQ(t.leaf("tray018"), "rack01");
  EXPECT_EQ(t.leaf("tray019"), "rack02");
  EXPECT_EQ(t.leaf("tray037"), "");
  EXPECT_EQ(t.leaf_of.size(), 36u);
  EXPECT_EQ(t.block_sizes, (std::vector<int>{18, 36}));
  EXPECT_EQ(t.parent("rack01"), "");
  EXPECT_STREQ(read_topology_conf(kData + "two_leaves.conf").group_word(), "leaf");
}

TEST(FabricTopology, RealFilesWithMistakes) {
  try {
    read_topology_conf(kData + "undefined_switch.conf");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              kData + "undefined_switch.conf:2: switch spine lists switch leaf2, which no line defines");
  }
  try {
    read_topology_conf(kData + "host_twice.conf");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), kData + "host_twice.conf:3: host gpu004 is on two switches (leaf1 and leaf2)");
  }
  EXPECT_THROW(read_topology_conf("/dev/zero"), InputError);  // not a regular file: never read
  EXPECT_THROW(read_topology_conf(kData + "no_such.conf"), InputError);
}

TEST(FabricTopology, LeafNumbersFollowFirstAppearanceAndUnplacedHostsAreMinusOne) {
  const FabricTopology t = parse_topology_conf(
      "SwitchName=leafA Nodes=gpu[01-02]\nSwitchName=leafB Nodes=gpu[03-04]\nSwitchName=top Switches=leafA,leafB\n",
      "topo.conf");
  EXPECT_EQ(leaf_numbers(t, {"gpu03", "gpu01", "other", "gpu04", "gpu02"}), (std::vector<int>{0, 1, -1, 0, 1}));
}

}  // namespace
}  // namespace ibgpu
