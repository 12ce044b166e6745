#pragma once
// The fabric's cabling as `ibnetdiscover` (infiniband-diags) prints it, or an as-built cabling
// file in the same form (the topology file ibdiagnet compares a fabric with). A node's block:
//   switchguid=0xb83fd203004d5e40(b83fd203004d5e40)
//   Switch	41 "S-b83fd203004d5e40"		# "MF0;leaf1:MQM9700/U1" enhanced port 0 lid 1 lmc 0
//   [1]	"H-b83fd2030098aa10"[1](b83fd2030098aa10) 		# "gpu001 mlx5_0" lid 12 4xNDR
//   [33]	"S-b83fd203004d7f00"[5]		# "MF0;spine1:MQM9700/U1" lid 2 4xNDR
//
//   caguid=0xb83fd2030098aa10
//   Ca	1 "H-b83fd2030098aa10"		# "gpu001 mlx5_0"
//   [1](b83fd2030098aa10) 	"S-b83fd203004d5e40"[1]		# lid 12 lmc 0 "MF0;leaf1:MQM9700/U1" lid 1 4xNDR
// Every cable is printed from both of its ends; it is kept once. An HCA's node description is
// "<host> <device>" by rdma-core's default, which names its host and rails ("gpu001",
// "mlx5_0:1"); a switch's name is its description, or the hostname within a managed switch's
// "MF0;<name>:<model>/U1". Pure but for read_cabling, which reads with core/bounded_input.h.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/fabric_topology.h"

namespace ibgpu {

struct CableEnd {
  std::string guid;         // the node's GUID, as printed (hex digits, no 0x)
  std::string description;  // the node's description
  int port = 0;
  bool is_switch = false;

  // An HCA end's host, from its description ("gpu001 mlx5_0" -> "gpu001"); "" for a switch or a
  // description of another form.
  std::string host() const;
  // An HCA end's rail ("mlx5_0:1"); "" where host() is "".
  std::string rail() const;
  // A switch end's name ("MF0;leaf1:MQM9700/U1" -> "leaf1"); "" for an HCA.
  std::string switch_name() const;
  // "gpu001 mlx5_0:1", "leaf1 port 1": how a work order names the end.
  std::string text() const;
};

struct Cable {
  CableEnd a, b;             // an HCA's end first; between switches, in name order (then port)
  std::string rate;          // "4xNDR", as printed
  std::string text() const;  // "gpu001 mlx5_0:1 <-> leaf1 port 1"
};

struct Cabling {
  std::vector<Cable> cables;  // in the order first printed
  std::string origin;         // the file, for notes
  // "<host> <rail>" -> its cable in `cables`, for each HCA end that names a host: rank 0 looks up
  // every host's every port (a fleet's is 32,768 among as many cables).
  std::unordered_map<std::string, std::size_t> port_index;

  // The cable of an HCA port, by host and rail; nullptr when the cabling has none.
  const Cable* of_port(std::string_view host, std::string_view rail) const;
  // The cables of a host's HCA ports, in the order first printed.
  std::vector<const Cable*> of_host(std::string_view host) const;
  // The cables between a switch (by name) and other switches: its uplinks, or a spine's downlinks.
  std::vector<const Cable*> between_switches(std::string_view name) const;
};

// The topology.conf tree the cabling describes (core/fabric_topology.h), for a check given the
// cabling and no --topology: each switch with HCA ports a leaf listing their hosts, each switch
// above them a spine listing the switches below it, level by level. None, saying why, where a
// host's ports reach more than one leaf (a rail-optimised fabric, which a topology.conf tree
// cannot say) or no HCA port is on a switch.
struct CablingTree {
  std::optional<FabricTopology> topology;
  std::string why_not;
};
CablingTree tree_of(const Cabling& cabling);

// Throws InputError "ORIGIN:LINE: what was expected" for a line of a node's block it cannot read
// (a port line before any node, a port without its remote end, a GUID that is not hex) or a
// cable whose two ends disagree (printed from one end to a port the other end says is cabled
// elsewhere). Lines that are not a node's header or port (vendid=, devid=, comments) are skipped.
Cabling parse_ibnetdiscover(std::string_view text, const std::string& origin);

// The same cabling as `iblinkinfo` prints it: "CA: <description>:" and "Switch: 0x<guid>
// <description>:" headers, each followed by its ports ("LID PORT[..] ==( link )==> LID PORT[..]
// "far description""), the far end named by LID (every node's LID is on its own lines). An HCA
// end's GUID is its port's. InputError as above, and for a far LID the output lists no node for.
Cabling parse_iblinkinfo(std::string_view text, const std::string& origin);

// The file at `path`, bounded (core/bounded_input.h: regular files only), in either form (an
// iblinkinfo header decides); InputError as above.
Cabling read_cabling(const std::string& path);

}  // namespace ibgpu
