#pragma once
// The bytes each RDMA port of a host moved, as the kernel counts them, and what a verbs pair's own
// port counted of the bytes the pair wrote (net.verbs.rail_bytes). A rail can carry a probe's bytes
// out through another port (a route, a bond, a redirect, NCCL's port failover) and still read a
// fine bandwidth: the port's own counters are the witness.
//   counters/port_xmit_data, port_rcv_data: the port's own data counters, in 4-byte words
//     (InfiniBand, and the RoCE HCAs that keep them). A counter at 2^32 - 1 is a 32-bit one that
//     has stopped (a port without the extended counters): unreadable, never "nothing moved".
//   otherwise the netdev of the port's GIDs (ports/N/gid_attrs/ndevs/0):
//     class/net/<netdev>/statistics/tx_bytes, rx_bytes (Soft-RoCE, whose ports keep no counters).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/sysfs.h"

namespace ibgpu {

struct PortBytes {
  std::string port;                     // "rxe0:1"
  std::string source;                   // "port counters" or "netdev eth1"; empty when unreadable
  std::optional<std::uint64_t> tx, rx;  // bytes sent and received, as counted so far
};

// Every port of every RDMA device under the root, in the devices' order.
std::vector<PortBytes> read_port_bytes(const Sysfs& sysfs);

// Which end of the pair this is: the writer's bytes leave through its port, the reader's arrive.
enum class RailSide { writer, reader };

struct RailBytesTarget {
  std::string host;
  int rank = 0;
  std::string port;  // the one the probe meant to use, "mlx5_0:1"
  RailSide side = RailSide::writer;
  std::uint64_t payload = 0;  // the bytes the pair wrote between the two reads
  std::string peer;           // "host b rank 1", for the message
};

// Pure: net.verbs.rail_bytes for the target's port from two reads of the host's ports around the
// probe. Metrics payload_bytes, port_bytes (sent by a writer, received by a reader) and port_share
// (port_bytes / payload_bytes; headers make a port that carried its probe count a little more);
// params.ports: what every readable port of the host counted in that direction meanwhile.
// Skipped, saying why, when the own port cannot be read both times or its counter went back.
ProbeResult rail_bytes_result(const RailBytesTarget& target, const std::vector<PortBytes>& before,
                              const std::vector<PortBytes>& after);

}  // namespace ibgpu
