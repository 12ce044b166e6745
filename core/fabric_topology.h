#pragma once
// The switch fabric as Slurm's topology.conf describes it, which many GPU clusters already keep,
// in either of Slurm's two forms. topology/tree:
//   # comments
//   SwitchName=leaf1 Nodes=gpu[001-032]
//   SwitchName=spine Switches=leaf[1-4] LinkSpeed=400
// A switch that lists nodes is their leaf. topology/block (an NVL72 rack's trays, one NVLink
// domain, a block; Topograph writes it so):
//   BlockName=rack01 Nodes=tray[001-018]
//   BlockName=rack02 Nodes=tray[019-036]
//   BlockSizes=18,36
// A block is judged as a leaf is (its hosts bad together: the block's switch or its uplinks); a
// file is of one form. Keys are case-insensitive as Slurm reads them; LinkSpeed and BlockSizes are
// checked and not used to judge. Pure but for read_topology_conf, which reads the file with the
// bounds of core/bounded_input.h.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

// A switch of the tree form, or a block of the block form (nodes only).
struct FabricSwitch {
  std::string name;
  std::vector<std::string> nodes;     // hosts cabled to it (a leaf)
  std::vector<std::string> switches;  // switches below it (a spine)
};

enum class TopologyForm { tree, block };

struct FabricTopology {
  TopologyForm form = TopologyForm::tree;
  std::vector<FabricSwitch> switches;          // in the file's order (the blocks, in the block form)
  std::vector<int> block_sizes;                // BlockSizes=, as given (block form)
  std::map<std::string, std::string> leaf_of;  // host -> the switch that lists it
  std::string origin;                          // the file, for notes

  // The host's leaf switch, or "" when the file does not place it.
  std::string leaf(std::string_view host) const;
  // The switch above a switch (the first that lists it), or "" for a top switch.
  std::string parent(std::string_view name) const;
  // What a group of hosts is called in findings: "leaf" (tree) or "block".
  const char* group_word() const { return form == TopologyForm::block ? "block" : "leaf"; }
};

// Throws InputError "ORIGIN:LINE: what was expected" for a line Slurm would not take or that
// contradicts another (a switch defined twice, a host on two leaves, an undefined switch below
// a spine, a switch below itself).
FabricTopology parse_topology_conf(std::string_view text, const std::string& origin);

// The file at `path`, bounded (core/bounded_input.h: regular files only); InputError as above.
FabricTopology read_topology_conf(const std::string& path);

// Of `hosts`, those the topology does not place, in their order.
std::vector<std::string> unplaced_hosts(const FabricTopology& topology, const std::vector<std::string>& hosts);

// Per host of `hosts`, its leaf as a number (hosts on one leaf share it; numbered in order of
// first appearance), -1 for a host the topology does not place.
std::vector<int> leaf_numbers(const FabricTopology& topology, const std::vector<std::string>& hosts);

}  // namespace ibgpu
