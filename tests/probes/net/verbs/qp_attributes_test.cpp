#include "probes/net/verbs/qp_attributes.h"

#include <gtest/gtest.h>

namespace ibgpu::verbs {
namespace {

ConnectionInfo roce_peer() {
  ConnectionInfo peer;
  peer.lid = 0;
  peer.qpn = 0x1234;
  peer.psn = 0xabcdef;
  peer.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
  peer.gid_index = 3;
  peer.gid_type = GidType::roce_v2;
  peer.mtu = IBV_MTU_1024;
  peer.link_layer = IBV_LINK_LAYER_ETHERNET;
  return peer;
}

TEST(InitTransition, PkeyZeroPortAndRemoteAccess) {
  const QpTransition t = init_transition(2);
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_INIT);
  EXPECT_EQ(t.attr.pkey_index, 0);
  EXPECT_EQ(t.attr.port_num, 2);
  EXPECT_EQ(t.attr.qp_access_flags,
            static_cast<unsigned>(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ));
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

TEST(RtrTransition, RoceCarriesAGrhWithThePeersGid) {
  PathInfo path;
  path.port = 1;
  path.use_grh = true;
  path.gid_index = 3;
  path.mtu = IBV_MTU_1024;
  const ConnectionInfo peer = roce_peer();
  const QpTransition t = rtr_transition(peer, path);
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTR);
  EXPECT_EQ(t.attr.path_mtu, IBV_MTU_1024);
  EXPECT_EQ(t.attr.dest_qp_num, 0x1234u);
  EXPECT_EQ(t.attr.rq_psn, 0xabcdefu);
  EXPECT_EQ(t.attr.max_dest_rd_atomic, 1);
  EXPECT_EQ(t.attr.min_rnr_timer, 12);
  const ibv_ah_attr& ah = t.attr.ah_attr;
  EXPECT_EQ(ah.is_global, 1);
  EXPECT_EQ(ah.dlid, 0);
  EXPECT_EQ(ah.sl, 0);
  EXPECT_EQ(ah.src_path_bits, 0);
  EXPECT_EQ(ah.port_num, 1);
  EXPECT_EQ(ah.grh.sgid_index, 3);
  EXPECT_EQ(ah.grh.hop_limit, 64);
  EXPECT_EQ(ah.grh.traffic_class, 0);
  EXPECT_EQ(ah.grh.flow_label, 0u);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(ah.grh.dgid.raw[i], peer.gid[i]) << "byte " << i;
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

TEST(RtrTransition, InfinibandRoutesByLidWithoutGrh) {
  ConnectionInfo peer = roce_peer();
  peer.lid = 17;
  peer.link_layer = IBV_LINK_LAYER_INFINIBAND;
  PathInfo path;
  path.port = 1;
  path.use_grh = false;
  path.mtu = IBV_MTU_4096;
  const QpTransition t = rtr_transition(peer, path);
  EXPECT_EQ(t.attr.ah_attr.is_global, 0);
  EXPECT_EQ(t.attr.ah_attr.dlid, 17);
  EXPECT_EQ(t.attr.ah_attr.grh.hop_limit, 0);
  EXPECT_EQ(t.attr.ah_attr.grh.dgid.global.interface_id, 0u);
  EXPECT_EQ(t.attr.path_mtu, IBV_MTU_4096);
  // The address vector is still part of the transition: it carries the LID.
  EXPECT_NE(t.mask & IBV_QP_AV, 0);
}

TEST(RtrTransition, PsnIsCutTo24Bits) {
  ConnectionInfo peer = roce_peer();
  peer.psn = 0xff123456;
  EXPECT_EQ(rtr_transition(peer, PathInfo{}).attr.rq_psn, 0x123456u);
}

TEST(RtsTransition, PerftestTimersAndOurPsn) {
  const QpTransition t = rts_transition(0x1abcdef);
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(t.attr.sq_psn, 0xabcdefu);
  EXPECT_EQ(t.attr.timeout, 14);
  EXPECT_EQ(t.attr.retry_cnt, 7);
  EXPECT_EQ(t.attr.rnr_retry, 7);
  EXPECT_EQ(t.attr.max_rd_atomic, 1);
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                        IBV_QP_MAX_QP_RD_ATOMIC);
}

TEST(Mtu, TheSmallerActiveMtuWins) {
  EXPECT_EQ(common_mtu(IBV_MTU_4096, IBV_MTU_1024), IBV_MTU_1024);
  EXPECT_EQ(common_mtu(IBV_MTU_2048, IBV_MTU_4096), IBV_MTU_2048);
  EXPECT_EQ(mtu_bytes(IBV_MTU_256), 256);
  EXPECT_EQ(mtu_bytes(IBV_MTU_4096), 4096);
  EXPECT_EQ(mtu_bytes(static_cast<ibv_mtu>(0)), 0);
}

}  // namespace
}  // namespace ibgpu::verbs
