#pragma once
// RDMA devices and ports as the kernel shows them under
// <sysfs-root>/class/infiniband/<dev>/ports/<n>/.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "probes/sysfs.h"

namespace ibgpu {

// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}.
struct CodedState {
  int code = 0;
  std::string name;
};
std::optional<CodedState> parse_coded_state(const std::string& text);

// "400 Gb/sec (4X NDR)" -> {400, 4, "NDR"}; "10 Gb/sec (1X QDR)"; "100 Gb/sec (2X HDR)".
struct LinkRate {
  double gbps = 0;
  std::optional<int> lanes;
  std::string speed;  // NDR, HDR, EDR, ... empty when the kernel prints none
};
std::optional<LinkRate> parse_rate(const std::string& text);

struct IbPort {
  int port = 0;
  std::optional<CodedState> state;       // 4: ACTIVE
  std::optional<CodedState> phys_state;  // 5: LinkUp
  std::string rate_text;                 // as the kernel wrote it
  std::optional<LinkRate> rate;
  std::string link_layer;  // InfiniBand | Ethernet
  std::optional<std::string> lid;
  std::map<std::string, std::uint64_t> counters;  // counters/<name>

  bool active() const { return state && state->code == 4; }
};

struct Hca {
  std::string name;  // mlx5_0
  std::string node_guid;
  std::string fw_ver;
  std::string board_id;
  std::string hca_type;
  std::string pci_address;  // 0000:17:00.0, from the `device` link
  std::optional<int> numa_node;
  std::vector<IbPort> ports;
};

// Every RDMA device under the root's class/infiniband; empty when there is none.
std::vector<Hca> read_hcas(const Sysfs& sysfs);
IbPort read_port(const Sysfs& sysfs, const std::string& device, int port);

}  // namespace ibgpu
