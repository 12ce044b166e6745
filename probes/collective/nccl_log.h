#pragma once
// What NCCL says it used, from its own log (NCCL_DEBUG=INFO): a low all-reduce figure alone cannot
// tell a socket fallback or a rail NCCL never opened from a slow fabric. Read from the lines NCCL
// 2.18 to 2.28 print (their format strings in NCCL's init.cc, net.cc, net_ib.cc, net_socket.cc,
// p2p.cc, shm.cc, nvls.cc):
//   "Using network IB"                                   the network plugin a communicator took
//   "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>"   its devices
//     (2.20-2.23 may merge ports: " [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB}")
//   "NET/Socket : Using [0]eth0:10.0.0.1<0>"             the socket transport's interfaces
//   "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA", "... via P2P/IPC/read",
//   "... via P2P/MNNVL", "Channel 07 : 2[6] -> 3[7] via SHM/direct/direct"   each connection
//   "comm 0x... rank 0 nRanks 8 nNodes 2 localRanks 4 localRank 0 MNNVL 1"  (2.20+)
//   "NVLS multicast support is [not ]available on dev 0"
// Lines may carry a launcher's prefix and NCCL's "host:pid:tid [dev] NCCL INFO "; both are skipped.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ibgpu {

struct NcclTransportLog {
  std::string network;                     // "IB", "Socket", "IBext_v8", ...; empty: the log does not say
  std::vector<std::string> net_devices;    // NET/IB's "mlx5_0:1", or NET/Socket's interfaces "eth0"
  std::map<std::string, int> channels;     // connections by transport: "NET/IB", "NET/Socket", "P2P/IPC", "SHM", ...
  int net_channels = 0, gdr_channels = 0;  // connections over the network, and of them with GPUDirect RDMA
  std::optional<int> nodes;                // the init summary's nNodes (2.20+)
  std::optional<bool> mnnvl;               // the init summary's MNNVL
  std::optional<bool> nvls;                // NVLS multicast available on this rank's device
  std::size_t lines = 0;                   // NCCL INFO lines read
  // NCCL's warnings (its "NCCL WARN " lines, which NCCL prints whatever the subsystems asked for),
  // the last kMaxWarnings, each cut at kMaxWarningChars: what NCCL said of an error it returned,
  // e.g. "NET/IB : Got completion from peer 10.0.0.5<48213> with status=12 opcode=0 len=0 vendor
  // err 129 (Send)" for a queue pair that broke.
  std::vector<std::string> warnings;
  static constexpr std::size_t kMaxWarnings = 4, kMaxWarningChars = 400;
};

// Pure. Unknown lines are ignored; a later line of a kind replaces an earlier one's value.
NcclTransportLog parse_nccl_log(std::string_view text);

// NCCL's log of this process in a file without a name while the object lives: NCCL_DEBUG=INFO,
// NCCL_DEBUG_SUBSYS=INIT,NET and NCCL_DEBUG_FILE=/proc/self/fd/N, N an unnamed temporary file
// (O_TMPFILE, else made and unlinked at once) that this object holds open, set before the
// process's first NCCL call (NCCL reads them once). Nothing is left on disk however the process
// ends. Once NCCL has written, the variables are taken back, so no process ibgpu starts inherits
// them. Where the caller set NCCL_DEBUG or NCCL_DEBUG_FILE, NCCL's log is the caller's: nothing is
// changed, and why_off() says so.
class NcclLogCapture {
 public:
  NcclLogCapture();
  ~NcclLogCapture();
  NcclLogCapture(const NcclLogCapture&) = delete;
  NcclLogCapture& operator=(const NcclLogCapture&) = delete;

  const std::string& why_off() const { return why_off_; }  // empty: capturing
  const std::string& path() const { return path_; }        // "/proc/self/fd/N", where capturing
  // What NCCL wrote since the last call, parsed; the devices NCCL lists once a process (at its
  // first communicator) are kept from earlier calls. At most kMaxRead new bytes are read.
  NcclTransportLog take();
  static constexpr std::size_t kMaxRead = std::size_t{8} << 20;

 private:
  void give_back_environment();
  std::string why_off_, path_;
  int fd_ = -1;
  bool environment_set_ = false;
  std::size_t offset_ = 0;
  std::vector<std::string> devices_;
  std::string network_devices_of_;  // the network those devices belong to
};

// Pure: a rank's record of what NCCL used for one placement's group (id collective.nccl.transport,
// scope: the host, the rank, its device), with params network, net_devices, channels, placement
// and group, and metrics nccl_nodes, nccl_net_devices, nccl_gdr_channels, nccl_mnnvl, nccl_nvls.
// On an error or a timeout of the all-reduce, what NCCL warned of: params.nccl_warnings, and the
// last warning at the end of the error's text, "(NCCL warned: ...)". Nothing where NCCL warned of
// nothing, or on another status.
void attach_nccl_warnings(ProbeResult& r, const NcclTransportLog& log);

ProbeResult nccl_transport_result(const std::string& host, int rank, const std::string& device,
                                  const NcclTransportLog& log);

}  // namespace ibgpu
