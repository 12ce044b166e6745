// The bytes a verbs pair's own port counted against what the pair wrote (net.verbs.rail_bytes),
// read from sysfs trees in the kernel's formats: a Soft-RoCE host whose ports count on their
// netdevs, and an mlx5 port's own data counters (4-byte words).
#include "probes/ib/traffic.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/probe_kind.h"
#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

// A host with rxe_a1 on veth_a1 and rxe_a2 on veth_a2, as the Soft-RoCE lane builds it; each
// port's netdev as gid_attrs/ndevs/0 names it, each netdev's statistics as the kernel writes them.
class TwoRailHost : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::path(::testing::TempDir()) / ("ibgpu_traffic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(root_);
    for (const char* rail : {"1", "2"}) {
      const fs::path port = root_ / "class/infiniband" / (std::string("rxe_a") + rail) / "ports/1";
      fs::create_directories(port / "gid_attrs/ndevs");
      write(port / "gid_attrs/ndevs/0", std::string("veth_a") + rail + "\n");
      write(port / "state", "4: ACTIVE\n");
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  void set_bytes(const std::string& netdev, std::uint64_t tx, std::uint64_t rx) {
    const fs::path stats = root_ / "class/net" / netdev / "statistics";
    fs::create_directories(stats);
    write(stats / "tx_bytes", std::to_string(tx) + "\n");
    write(stats / "rx_bytes", std::to_string(rx) + "\n");
  }
  std::vector<PortBytes> read() const { return read_port_bytes(Sysfs(root_)); }

  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  fs::path root_;
};

RailBytesTarget writer_on(const std::string& port, std::uint64_t payload) {
  return RailBytesTarget{"a", 1, port, RailSide::writer, payload, "host b rank 3"};
}

TEST_F(TwoRailHost, APortsBytesAreItsNetdevsWhereThePortKeepsNoCounters) {
  set_bytes("veth_a1", 1000, 2000);
  set_bytes("veth_a2", 3000, 4000);
  const auto ports = read();
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0].port, "rxe_a1:1");
  EXPECT_EQ(ports[0].source, "netdev veth_a1");
  EXPECT_EQ(ports[0].tx, 1000u);
  EXPECT_EQ(ports[1].rx, 4000u);
}

TEST_F(TwoRailHost, AWriterWhoseBytesLeftThroughTheOtherRailHasNoShareOfThem) {
  set_bytes("veth_a1", 1000, 2000);
  set_bytes("veth_a2", 3000, 4000);
  const auto before = read();
  // Rail 2's pair wrote 10 MB; rail 1's netdev sent them (and their headers), rail 2's only took acks.
  set_bytes("veth_a1", 1000 + 10'600'000, 2000);
  set_bytes("veth_a2", 3000, 4000 + 90'000);
  const ProbeResult r = rail_bytes_result(writer_on("rxe_a2:1", 10'000'000), before, read());
  EXPECT_EQ(r.id, kRailBytesProbe);
  EXPECT_EQ(r.status, ProbeStatus::ok);
  EXPECT_EQ(r.scope.hosts, std::vector<std::string>{"a"});
  EXPECT_EQ(r.scope.devices, std::vector<std::string>{"rxe_a2:1"});
  EXPECT_EQ(typical(r, metrics::payload_bytes), 10'000'000.0);
  EXPECT_EQ(typical(r, metrics::port_bytes), 0.0);
  EXPECT_EQ(typical(r, metrics::port_share), 0.0);
  EXPECT_EQ(r.params.at("counted"), "sent");
  EXPECT_EQ(r.params.at("source"), "netdev veth_a2");
  EXPECT_EQ(r.params.at("ports").at("rxe_a1:1"), 10'600'000);
  EXPECT_EQ(r.params.at("ports").at("rxe_a2:1"), 0);
}

TEST_F(TwoRailHost, AReaderCountsWhatArrivedOnItsPort) {
  set_bytes("veth_a1", 0, 0);
  set_bytes("veth_a2", 0, 0);
  const auto before = read();
  set_bytes("veth_a2", 80'000, 10'500'000);
  RailBytesTarget reader = writer_on("rxe_a2:1", 10'000'000);
  reader.side = RailSide::reader;
  const ProbeResult r = rail_bytes_result(reader, before, read());
  EXPECT_EQ(r.status, ProbeStatus::ok);
  EXPECT_EQ(r.params.at("counted"), "received");
  EXPECT_DOUBLE_EQ(*typical(r, metrics::port_share), 1.05);
}

TEST_F(TwoRailHost, APortWithoutCountersIsSkippedSayingSoNeverReadAsNothingMoved) {
  set_bytes("veth_a1", 0, 0);  // veth_a2 has no statistics
  const auto before = read();
  const ProbeResult r = rail_bytes_result(writer_on("rxe_a2:1", 10'000'000), before, read());
  EXPECT_EQ(r.status, ProbeStatus::skipped);
  EXPECT_NE(r.reason.value_or("").find("rxe_a2:1's byte counters (netdev veth_a2) could not be read"),
            std::string::npos)
      << r.reason.value_or("");
  EXPECT_TRUE(r.metrics.empty());
}

// A port without the extended counters stops its 32-bit data counters at 2^32 - 1: unreadable.
TEST_F(TwoRailHost, AStoppedThirtyTwoBitCounterIsUnreadable) {
  const fs::path counters = root_ / "class/infiniband/mlx5_0/ports/1/counters";
  fs::create_directories(counters);
  write(counters / "port_xmit_data", "4294967295\n");
  write(counters / "port_rcv_data", "12\n");
  set_bytes("veth_a1", 0, 0);
  set_bytes("veth_a2", 0, 0);
  const auto ports = read();
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].port, "mlx5_0:1");
  EXPECT_EQ(ports[0].source, "port counters");
  EXPECT_FALSE(ports[0].tx);
  EXPECT_EQ(ports[0].rx, 48u);
  EXPECT_EQ(rail_bytes_result(RailBytesTarget{"a", 0, "mlx5_0:1", RailSide::writer, 1, "b"}, ports, ports).status,
            ProbeStatus::skipped);
}

// An mlx5 port keeps its own data counters, in 4-byte words.
TEST(PortBytes, AnHcaPortCountsItsOwnDataInFourByteWords) {
  const auto before = read_port_bytes(Sysfs(testing::kSysfsFixtures / "counters-before"));
  const auto after = read_port_bytes(Sysfs(testing::kSysfsFixtures / "counters-after"));
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].port, "mlx5_0:1");
  EXPECT_EQ(before[0].source, "port counters");
  EXPECT_EQ(before[0].tx, 4 * 500000000000ull);
  const ProbeResult r =
      rail_bytes_result(RailBytesTarget{"n1", 0, "mlx5_0:1", RailSide::writer, 40'000'000'000ull, "n2"}, before, after);
  EXPECT_EQ(typical(r, metrics::port_bytes), 4 * 12000000000.0);
  EXPECT_DOUBLE_EQ(*typical(r, metrics::port_share), 1.2);
}

}  // namespace
}  // namespace ibgpu
