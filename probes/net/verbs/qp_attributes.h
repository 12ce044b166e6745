#pragma once
// The RC queue-pair state machine as pure data: RESET -> INIT -> RTR -> RTS,
// each an ibv_qp_attr plus the mask of fields ibv_modify_qp must read.
// Values follow perftest (see REFERENCE.md), so numbers compare with
// ib_write_bw / ib_write_lat on the same fabric.
#include <infiniband/verbs.h>

#include <cstdint>

#include "probes/net/verbs/connection.h"

namespace ibgpu::verbs {

struct QpTransition {
  ibv_qp_attr attr{};
  int mask = 0;
};

// Writes land in our buffer and reads may be served from it.
inline constexpr int kQpAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

// RC timers: 4.096 us * 2^14 = 67 ms per try, 7 retries (about half a second)
// before a lost peer shows as "transport retry counter exceeded"; 7 RNR
// retries means "retry forever" for receiver-not-ready.
inline constexpr std::uint8_t kAckTimeout = 14;
inline constexpr std::uint8_t kRetryCount = 7;
inline constexpr std::uint8_t kRnrRetry = 7;
inline constexpr std::uint8_t kMinRnrTimer = 12;  // 0.64 ms
// 64 keeps a RoCE v2 packet alive across routed hops; 1 would stop at the first router.
inline constexpr std::uint8_t kHopLimit = 64;

// This side's view of the path, decided before RTR.
struct PathInfo {
  std::uint8_t port = 1;
  bool use_grh = false;        // always on Ethernet (RoCE); on InfiniBand only when a GID index was given
  int gid_index = -1;          // the source GID (sgid_index) when use_grh
  ibv_mtu mtu = IBV_MTU_1024;  // both ends' active MTUs, the smaller
};

// The smaller of two active MTUs; ibv_mtu values grow with the size.
ibv_mtu common_mtu(ibv_mtu a, ibv_mtu b);
int mtu_bytes(ibv_mtu mtu);  // IBV_MTU_4096 -> 4096

// RESET -> INIT: P_Key index 0, the port, remote write/read access.
QpTransition init_transition(std::uint8_t port, int access = kQpAccess);
// INIT -> RTR: where to send (peer QPN, LID or GRH with the peer's GID), what to expect (peer PSN).
QpTransition rtr_transition(const ConnectionInfo& peer, const PathInfo& path);
// RTR -> RTS: our PSN and the retry policy.
QpTransition rts_transition(std::uint32_t sq_psn);

}  // namespace ibgpu::verbs
