#include "probes/net/verbs/gid.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.h"

namespace ibgpu::verbs {
namespace {

Gid link_local(std::uint8_t last) {
  return {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, last};
}
Gid ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}
Gid ipv6_global() { return {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}; }

// What Soft-RoCE on a netdev with 10.0.0.1 shows: link-local and IPv4-mapped, each as v1 and v2.
std::vector<GidEntry> rxe_table() {
  return {{0, link_local(0x55), GidType::roce_v1},
          {1, link_local(0x55), GidType::roce_v2},
          {2, ipv4(10, 0, 0, 1), GidType::roce_v1},
          {3, ipv4(10, 0, 0, 1), GidType::roce_v2}};
}

TEST(GidClassification, Ipv4MappedAndLinkLocal) {
  EXPECT_TRUE(is_ipv4_mapped(ipv4(10, 0, 0, 1)));
  EXPECT_FALSE(is_ipv4_mapped(link_local(1)));
  EXPECT_TRUE(is_link_local(link_local(1)));
  EXPECT_TRUE(is_link_local(ipv4(169, 254, 3, 4)));
  EXPECT_FALSE(is_link_local(ipv4(10, 0, 0, 1)));
  EXPECT_FALSE(is_link_local(ipv6_global()));
  EXPECT_TRUE(is_zero(Gid{}));
  EXPECT_EQ(format_gid(ipv4(10, 0, 0, 1)), "::ffff:10.0.0.1");
  EXPECT_EQ(format_gid(ipv6_global()), "2001:db8::1");
}

TEST(ChooseGid, Ipv4MappedRoceV2BeatsLinkLocalAndV1) { EXPECT_EQ(choose_gid(rxe_table()), 3); }

TEST(ChooseGid, OrderOfTheTableDoesNotMatter) {
  auto table = rxe_table();
  std::reverse(table.begin(), table.end());
  EXPECT_EQ(choose_gid(table), 3);
}

TEST(ChooseGid, RoutableBeatsIpv4LinkLocal) {
  const std::vector<GidEntry> table{{0, ipv4(169, 254, 1, 1), GidType::roce_v2},
                                    {1, ipv6_global(), GidType::roce_v2},
                                    {2, ipv4(192, 168, 1, 7), GidType::roce_v2}};
  EXPECT_EQ(choose_gid(table), 2);
  EXPECT_EQ(choose_gid({table[0], table[1]}), 1);
}

TEST(ChooseGid, V1OnlyPortStillGetsItsIpv4Entry) {
  const std::vector<GidEntry> table{{0, link_local(1), GidType::roce_v1}, {1, ipv4(10, 1, 1, 1), GidType::roce_v1}};
  EXPECT_EQ(choose_gid(table), 1);
}

TEST(ChooseGid, LowestIndexBreaksTies) {
  const std::vector<GidEntry> table{{5, ipv4(10, 0, 0, 2), GidType::roce_v2}, {4, ipv4(10, 0, 0, 1), GidType::roce_v2}};
  EXPECT_EQ(choose_gid(table), 4);
}

TEST(ChooseGid, ZeroEntriesNeverQualify) {
  EXPECT_EQ(choose_gid({}), std::nullopt);
  EXPECT_EQ(choose_gid({{0, Gid{}, GidType::roce_v2}}), std::nullopt);
  EXPECT_EQ(choose_gid({{0, Gid{}, GidType::roce_v2}, {1, link_local(1), GidType::roce_v1}}), 1);
}

TEST(SelectGid, GivenIndexIsUsedAsGiven) {
  const GidEntry e = select_gid(rxe_table(), 1, "rxe0:1");
  EXPECT_EQ(e.index, 1);
  EXPECT_EQ(e.type, GidType::roce_v2);
}

TEST(SelectGid, InvalidIndexIsAUsageErrorListingTheValidOnes) {
  try {
    select_gid(rxe_table(), 7, "rxe0:1");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("GID index 7 on rxe0:1"), std::string::npos) << text;
    EXPECT_NE(text.find("3 (RoCE v2 ::ffff:10.0.0.1)"), std::string::npos) << text;
  }
  auto table = rxe_table();
  table[2].gid = Gid{};  // a hole in the table is as invalid as a missing index
  EXPECT_THROW(select_gid(table, 2, "rxe0:1"), UsageError);
}

TEST(SelectGid, NothingUsableIsARuntimeErrorNotAUsageError) {
  try {
    select_gid({}, -1, "rxe0:1");
    FAIL() << "expected an error";
  } catch (const UsageError&) {
    FAIL() << "a port without addresses is not the operator's mistake";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no usable GID on rxe0:1"), std::string::npos);
  }
}

TEST(SelectGid, IndicesBeyondEightBitsCannotReachVerbs) {
  const std::vector<GidEntry> table{{300, ipv4(10, 0, 0, 1), GidType::roce_v2}, {2, link_local(1), GidType::roce_v2}};
  EXPECT_EQ(choose_gid(table), 2);
  EXPECT_THROW(select_gid(table, 300, "rxe0:1"), UsageError);
}

}  // namespace
}  // namespace ibgpu::verbs
