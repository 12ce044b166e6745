#include "probes/net/verbs/qp_attributes.h"

#include <algorithm>
#include <cstring>

namespace ibgpu::verbs {

ibv_mtu common_mtu(ibv_mtu a, ibv_mtu b) { return std::min(a, b); }

int mtu_bytes(ibv_mtu mtu) {
  const int step = static_cast<int>(mtu);
  return step >= 1 && step <= 5 ? 128 << step : 0;
}

QpTransition init_transition(std::uint8_t port, int access) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_INIT;
  t.attr.pkey_index = 0;
  t.attr.port_num = port;
  t.attr.qp_access_flags = static_cast<unsigned>(access);
  t.mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
  return t;
}

QpTransition rtr_transition(const ConnectionInfo& peer, const PathInfo& path) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_RTR;
  t.attr.path_mtu = path.mtu;
  t.attr.dest_qp_num = peer.qpn;
  t.attr.rq_psn = peer.psn & 0xffffff;
  t.attr.max_dest_rd_atomic = 1;
  t.attr.min_rnr_timer = kMinRnrTimer;
  ibv_ah_attr& ah = t.attr.ah_attr;
  ah.dlid = peer.lid;  // 0 on RoCE, where the GRH routes instead
  ah.sl = 0;
  ah.src_path_bits = 0;
  ah.port_num = path.port;
  ah.is_global = path.use_grh ? 1 : 0;
  if (path.use_grh) {
    std::memcpy(ah.grh.dgid.raw, peer.gid.data(), peer.gid.size());
    ah.grh.sgid_index = static_cast<std::uint8_t>(path.gid_index);
    ah.grh.hop_limit = kHopLimit;
    ah.grh.traffic_class = 0;
    ah.grh.flow_label = 0;
  }
  t.mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
           IBV_QP_MIN_RNR_TIMER;
  return t;
}

QpTransition rts_transition(std::uint32_t sq_psn) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_RTS;
  t.attr.sq_psn = sq_psn & 0xffffff;
  t.attr.timeout = kAckTimeout;
  t.attr.retry_cnt = kRetryCount;
  t.attr.rnr_retry = kRnrRetry;
  t.attr.max_rd_atomic = 1;
  t.mask =
      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
  return t;
}

}  // namespace ibgpu::verbs
