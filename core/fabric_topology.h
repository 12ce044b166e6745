#pragma once
// The switch fabric as Slurm's topology.conf (topology/tree) describes it, which many GPU
// clusters already keep:
//   # comments
//   SwitchName=leaf1 Nodes=gpu[001-032]
//   SwitchName=spine Switches=leaf[1-4] LinkSpeed=400
// A switch that lists nodes is their leaf. Keys are case-insensitive as Slurm reads them;
// LinkSpeed is accepted and not used. Pure but for read_topology_conf, which reads the file
// with the bounds of core/bounded_input.h.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

struct FabricSwitch {
  std::string name;
  std::vector<std::string> nodes;     // hosts cabled to it (a leaf)
  std::vector<std::string> switches;  // switches below it (a spine)
};

struct FabricTopology {
  std::vector<FabricSwitch> switches;          // in the file's order
  std::map<std::string, std::string> leaf_of;  // host -> the switch that lists it
  std::string origin;                          // the file, for notes

  // The host's leaf switch, or "" when the file does not place it.
  std::string leaf(std::string_view host) const;
  // The switch above a switch (the first that lists it), or "" for a top switch.
  std::string parent(std::string_view name) const;
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
