#include "probes/net/verbs/connection.h"

#include <gtest/gtest.h>

namespace ibgpu::verbs {
namespace {

ConnectionInfo sample() {
  ConnectionInfo info;
  info.state = SetupState::ready;
  info.message = "fine";
  info.lid = 0xbeef;
  info.qpn = 0x00abcdef;
  info.psn = 0x00123456;
  info.rkey = 0xdeadbeef;
  info.addr = 0x00007f1234567000ull;
  info.region_bytes = 8ull << 30;
  info.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 7, 9};
  info.gid_index = 3;
  info.gid_type = GidType::roce_v2;
  info.mtu = IBV_MTU_4096;
  info.link_layer = IBV_LINK_LAYER_ETHERNET;
  info.node_guid = 0x0c42a10300b1c2d3ull;
  return info;
}

TEST(ConnectionWire, RoundTripKeepsEveryField) {
  const ConnectionInfo info = sample();
  const auto back = decode_connection(encode(info));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, info);
}

TEST(ConnectionWire, NegativeGidIndexAndFailureStatesSurvive) {
  ConnectionInfo info;
  info.state = SetupState::skipped;
  info.message = "host a rank 0: libcuda.so.1 not found: no GPU memory on this host";
  info.gid_index = -1;
  const auto back = decode_connection(encode(info));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, info);
  info.state = SetupState::usage;
  EXPECT_EQ(decode_connection(encode(info))->state, SetupState::usage);
}

TEST(ConnectionWire, LayoutIsLittleEndianAtFixedOffsets) {
  const WireBytes bytes = encode(sample());
  EXPECT_EQ(bytes[0], 'I');
  EXPECT_EQ(bytes[3], 'C');
  EXPECT_EQ(bytes[12], 0xef);  // qpn, low byte first
  EXPECT_EQ(bytes[13], 0xcd);
  EXPECT_EQ(bytes[14], 0xab);
  EXPECT_EQ(bytes[15], 0x00);
  EXPECT_EQ(bytes[40 + 12], 192);  // GID in network order, as verbs holds it
}

TEST(ConnectionWire, LongMessagesAreCutNotOverflowed) {
  ConnectionInfo info = sample();
  info.message = std::string(2000, 'x');
  const auto back = decode_connection(encode(info));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, std::string(kMessageBytes, 'x'));
  EXPECT_EQ(back->qpn, info.qpn);
}

TEST(ConnectionWire, ForeignBytesAreRejected) {
  EXPECT_FALSE(decode_connection(WireBytes{}));
  WireBytes bytes = encode(sample());
  bytes[4] = 99;  // another protocol version
  EXPECT_FALSE(decode_connection(bytes));
  bytes = encode(sample());
  bytes[5] = 42;  // no such state
  EXPECT_FALSE(decode_connection(bytes));
  EXPECT_FALSE(decode_connection(encode(Notice{})));
  EXPECT_FALSE(decode_notice(encode(sample())));
}

TEST(NoticeWire, RoundTrip) {
  const Notice notice{NoticeCode::timeout, "no write completion from host b rank 1 within 60 s", 50ull << 30};
  const auto back = decode_notice(encode(notice));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, notice);
  EXPECT_EQ(decode_notice(encode(Notice{}))->code, NoticeCode::ok);
}

TEST(Incompatibility, MatchingRoceSidesCanTalk) { EXPECT_EQ(incompatibility(sample(), sample()), ""); }

TEST(Incompatibility, LinkLayersMustMatch) {
  ConnectionInfo ib = sample();
  ib.link_layer = IBV_LINK_LAYER_INFINIBAND;
  EXPECT_NE(incompatibility(sample(), ib).find("link layers differ"), std::string::npos);
}

TEST(Incompatibility, RoceVersionsAndAddressFamiliesMustMatch) {
  ConnectionInfo v1 = sample();
  v1.gid_type = GidType::roce_v1;
  EXPECT_NE(incompatibility(sample(), v1).find("GID types differ"), std::string::npos);
  ConnectionInfo v6 = sample();
  v6.gid = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_NE(incompatibility(sample(), v6).find("address families differ"), std::string::npos);
}

TEST(Incompatibility, InfinibandIgnoresGids) {
  ConnectionInfo a = sample(), b = sample();
  a.link_layer = b.link_layer = IBV_LINK_LAYER_INFINIBAND;
  a.gid_type = GidType::ib;
  b.gid_type = GidType::roce_v1;
  EXPECT_EQ(incompatibility(a, b), "");
}

}  // namespace
}  // namespace ibgpu::verbs
