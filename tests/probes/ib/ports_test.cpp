// RDMA port parsing against strings the kernel writes (drivers/infiniband/core/sysfs.c)
// and against fixture sysfs trees laid out like a real host.
#include "probes/ib/ports.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

// ---- parse_coded_state ----------------------------------------------------

struct CodedCase {
  std::string text;
  int code;
  std::string name;
};

TEST(ParseCodedState, EveryStateTheKernelNames) {
  // state_show and phys_state_show print "%d: %s"; these are all the names they use.
  const std::vector<CodedCase> cases{
      {"0: NOP", 0, "NOP"},
      {"1: DOWN", 1, "DOWN"},
      {"2: INIT", 2, "INIT"},
      {"3: ARMED", 3, "ARMED"},
      {"4: ACTIVE", 4, "ACTIVE"},
      {"5: ACTIVE_DEFER", 5, "ACTIVE_DEFER"},
      {"1: Sleep", 1, "Sleep"},
      {"2: Polling", 2, "Polling"},
      {"3: Disabled", 3, "Disabled"},
      {"4: PortConfigurationTraining", 4, "PortConfigurationTraining"},
      {"5: LinkUp", 5, "LinkUp"},
      {"6: LinkErrorRecovery", 6, "LinkErrorRecovery"},
      {"7: Phy Test", 7, "Phy Test"},
      {"4: ACTIVE\n", 4, "ACTIVE"},
      {"  4 :  ACTIVE  ", 4, "ACTIVE"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto parsed = parse_coded_state(c.text);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->code, c.code);
    EXPECT_EQ(parsed->name, c.name);
  }
}

TEST(ParseCodedState, MalformedIsNullopt) {
  for (const std::string text : {"", " ", "ACTIVE", "4", "4:", "4: ", ": ACTIVE", "4 ACTIVE", "x: ACTIVE", "-1: DOWN",
                                 "4.0: ACTIVE", "99999999999: ACTIVE"}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_FALSE(parse_coded_state(text).has_value());
  }
}

// ---- parse_rate -------------------------------------------------------------

struct RateCase {
  std::string text;
  double gbps;
  int lanes;
  std::string speed;
};

TEST(ParseRate, EveryWidthAndSpeedTheKernelPrints) {
  // rate_show prints "%d%s Gb/sec (%dX%s)": per-lane rate times width, ".5" for 1X SDR.
  const std::vector<RateCase> cases{
      {"2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR"},   {"10 Gb/sec (4X SDR)", 10, 4, "SDR"},
      {"30 Gb/sec (12X SDR)", 30, 12, "SDR"},   {"5 Gb/sec (1X DDR)", 5, 1, "DDR"},
      {"20 Gb/sec (4X DDR)", 20, 4, "DDR"},     {"40 Gb/sec (4X QDR)", 40, 4, "QDR"},
      {"40 Gb/sec (4X FDR10)", 40, 4, "FDR10"}, {"14 Gb/sec (1X FDR)", 14, 1, "FDR"},
      {"56 Gb/sec (4X FDR)", 56, 4, "FDR"},     {"25 Gb/sec (1X EDR)", 25, 1, "EDR"},
      {"50 Gb/sec (2X EDR)", 50, 2, "EDR"},     {"100 Gb/sec (4X EDR)", 100, 4, "EDR"},
      {"300 Gb/sec (12X EDR)", 300, 12, "EDR"}, {"50 Gb/sec (1X HDR)", 50, 1, "HDR"},
      {"100 Gb/sec (2X HDR)", 100, 2, "HDR"},   {"200 Gb/sec (4X HDR)", 200, 4, "HDR"},
      {"100 Gb/sec (1X NDR)", 100, 1, "NDR"},   {"200 Gb/sec (2X NDR)", 200, 2, "NDR"},
      {"400 Gb/sec (4X NDR)", 400, 4, "NDR"},   {"800 Gb/sec (8X NDR)", 800, 8, "NDR"},
      {"800 Gb/sec (4X XDR)", 800, 4, "XDR"},   {"400 Gb/sec (4X NDR)\n", 400, 4, "NDR"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto rate = parse_rate(c.text);
    ASSERT_TRUE(rate.has_value());
    EXPECT_DOUBLE_EQ(rate->gbps, c.gbps);
    EXPECT_EQ(rate->lanes, c.lanes);
    EXPECT_EQ(rate->speed, c.speed);
  }
}

TEST(ParseRate, RateWithoutWidthHasNoLanesOrSpeed) {
  const auto rate = parse_rate("100 Gb/sec");
  ASSERT_TRUE(rate.has_value());
  EXPECT_DOUBLE_EQ(rate->gbps, 100);
  EXPECT_FALSE(rate->lanes.has_value());
  EXPECT_EQ(rate->speed, "");
}

TEST(ParseRate, MalformedIsNullopt) {
  for (const std::string text :
       {"", "Gb/sec", "400", "400 Gb/s (4X NDR)", "400 Gbps (4X NDR)", "400 Gb/sec (4X NDR", "400 Gb/sec 4X NDR",
        "400 Gb/sec (X NDR)", "400 Gb/sec (4 NDR)", "-400 Gb/sec (4X NDR)", "4.0.0 Gb/sec (4X NDR)",
        ".5 Gb/sec (1X SDR)", "400 Gb/sec (4X NDR) extra", "fast", "4: ACTIVE"}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_FALSE(parse_rate(text).has_value());
  }
}

TEST(ParseRate, HugeAttributesAreNulloptNotACrash) {
  // A backtracking regex overflowed the stack on these; stod threw on 1,000 digits.
  EXPECT_FALSE(parse_rate(std::string(50000, '4') + " Gb/sec (4X NDR)").has_value());
  EXPECT_FALSE(parse_rate(std::string(1000, '9') + " Gb/sec").has_value());
  EXPECT_FALSE(parse_rate("400 Gb/sec (4X " + std::string(100000, 'N') + ")").has_value());
  EXPECT_FALSE(parse_coded_state("4: " + std::string(100000, 'A')).has_value());
  EXPECT_FALSE(parse_coded_state(std::string(100000, ' ')).has_value());
}

// ---- read_hcas on fixture hosts -------------------------------------------

TEST(ReadHcas, TwoHealthyConnectX7NdrPorts) {
  const auto hcas = read_hcas(Sysfs(testing::kSysfsFixtures / "cx7-ndr"));
  ASSERT_EQ(hcas.size(), 2u);

  const Hca& a = hcas[0];
  EXPECT_EQ(a.name, "mlx5_0");
  EXPECT_EQ(a.node_guid, "a088:c203:00b1:2c30");
  EXPECT_EQ(a.fw_ver, "28.39.1002");
  EXPECT_EQ(a.board_id, "MT_0000000838");
  EXPECT_EQ(a.hca_type, "MT4129");
  EXPECT_EQ(a.pci_address, "0000:17:00.0");
  EXPECT_EQ(a.numa_node, 0);
  ASSERT_EQ(a.ports.size(), 1u);

  const IbPort& p = a.ports[0];
  EXPECT_EQ(p.port, 1);
  ASSERT_TRUE(p.state.has_value());
  EXPECT_EQ(p.state->code, 4);
  EXPECT_EQ(p.state->name, "ACTIVE");
  ASSERT_TRUE(p.phys_state.has_value());
  EXPECT_EQ(p.phys_state->code, 5);
  EXPECT_EQ(p.phys_state->name, "LinkUp");
  EXPECT_TRUE(p.active());
  EXPECT_EQ(p.rate_text, "400 Gb/sec (4X NDR)");
  ASSERT_TRUE(p.rate.has_value());
  EXPECT_DOUBLE_EQ(p.rate->gbps, 400);
  EXPECT_EQ(p.rate->lanes, 4);
  EXPECT_EQ(p.rate->speed, "NDR");
  EXPECT_EQ(p.link_layer, "InfiniBand");
  EXPECT_EQ(p.lid, "0x1a");
  const std::map<std::string, std::uint64_t> expected_counters{
      {"VL15_dropped", 0},
      {"excessive_buffer_overrun_errors", 0},
      {"link_downed", 0},
      {"link_error_recovery", 0},
      {"local_link_integrity_errors", 0},
      {"multicast_rcv_packets", 728},
      {"multicast_xmit_packets", 736},
      {"port_rcv_constraint_errors", 0},
      {"port_rcv_data", 918270112234ULL},
      {"port_rcv_errors", 0},
      {"port_rcv_packets", 3487203318ULL},
      {"port_rcv_remote_physical_errors", 0},
      {"port_rcv_switch_relay_errors", 0},
      {"port_xmit_constraint_errors", 0},
      {"port_xmit_data", 918273645501ULL},
      {"port_xmit_discards", 0},
      {"port_xmit_packets", 3487211937ULL},
      {"port_xmit_wait", 84215},
      {"symbol_error", 0},
      {"unicast_rcv_packets", 3487202590ULL},
      {"unicast_xmit_packets", 3487211201ULL},
  };
  EXPECT_EQ(p.counters, expected_counters);

  const Hca& b = hcas[1];
  EXPECT_EQ(b.name, "mlx5_1");
  EXPECT_EQ(b.node_guid, "a088:c203:00b1:3f5a");
  EXPECT_EQ(b.fw_ver, "28.39.1002");
  EXPECT_EQ(b.board_id, "MT_0000000838");
  EXPECT_EQ(b.hca_type, "MT4129");
  EXPECT_EQ(b.pci_address, "0000:99:00.0");
  EXPECT_EQ(b.numa_node, 1);
  ASSERT_EQ(b.ports.size(), 1u);
  EXPECT_TRUE(b.ports[0].active());
  EXPECT_EQ(b.ports[0].rate_text, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(b.ports[0].lid, "0x1b");
  EXPECT_EQ(b.ports[0].counters.size(), 21u);
  EXPECT_EQ(b.ports[0].counters.at("link_error_recovery"), 1u);
  EXPECT_EQ(b.ports[0].counters.at("port_xmit_wait"), 90113u);
}

TEST(ReadHcas, DegradedHost) {
  const auto hcas = read_hcas(Sysfs(testing::kSysfsFixtures / "degraded"));
  ASSERT_EQ(hcas.size(), 4u);
  EXPECT_EQ(hcas[0].name, "mlx5_0");
  EXPECT_EQ(hcas[1].name, "mlx5_1");
  EXPECT_EQ(hcas[2].name, "mlx5_2");
  EXPECT_EQ(hcas[3].name, "mlx5_3");
  for (const auto& hca : hcas) ASSERT_EQ(hca.ports.size(), 1u) << hca.name;

  // Trained at the previous generation's speed.
  const IbPort& hdr = hcas[0].ports[0];
  EXPECT_EQ(hcas[0].pci_address, "0000:17:00.0");
  EXPECT_EQ(hcas[0].numa_node, 0);
  EXPECT_TRUE(hdr.active());
  EXPECT_EQ(hdr.rate_text, "200 Gb/sec (4X HDR)");
  ASSERT_TRUE(hdr.rate.has_value());
  EXPECT_DOUBLE_EQ(hdr.rate->gbps, 200);
  EXPECT_EQ(hdr.rate->lanes, 4);
  EXPECT_EQ(hdr.rate->speed, "HDR");

  // Right speed, half the lanes.
  const IbPort& narrow = hcas[1].ports[0];
  EXPECT_EQ(hcas[1].pci_address, "0000:3f:00.0");
  EXPECT_EQ(hcas[1].numa_node, 0);
  EXPECT_TRUE(narrow.active());
  EXPECT_EQ(narrow.rate_text, "200 Gb/sec (2X NDR)");
  ASSERT_TRUE(narrow.rate.has_value());
  EXPECT_DOUBLE_EQ(narrow.rate->gbps, 200);
  EXPECT_EQ(narrow.rate->lanes, 2);
  EXPECT_EQ(narrow.rate->speed, "NDR");
  EXPECT_EQ(narrow.counters.at("symbol_error"), 1473u);
  EXPECT_EQ(narrow.counters.at("link_error_recovery"), 12u);
  EXPECT_EQ(narrow.counters.at("port_rcv_errors"), 88u);
  EXPECT_EQ(narrow.counters.at("port_xmit_wait"), 2290114u);

  // No partner: the port polls and the kernel shows the SDR default rate.
  const IbPort& down = hcas[2].ports[0];
  EXPECT_EQ(hcas[2].pci_address, "0000:99:00.0");
  EXPECT_EQ(hcas[2].numa_node, 1);
  EXPECT_FALSE(down.active());
  ASSERT_TRUE(down.state.has_value());
  EXPECT_EQ(down.state->code, 1);
  EXPECT_EQ(down.state->name, "DOWN");
  ASSERT_TRUE(down.phys_state.has_value());
  EXPECT_EQ(down.phys_state->code, 2);
  EXPECT_EQ(down.phys_state->name, "Polling");
  EXPECT_EQ(down.rate_text, "10 Gb/sec (4X SDR)");
  ASSERT_TRUE(down.rate.has_value());
  EXPECT_DOUBLE_EQ(down.rate->gbps, 10);
  EXPECT_EQ(down.rate->lanes, 4);
  EXPECT_EQ(down.rate->speed, "SDR");
  EXPECT_EQ(down.lid, "0x0");
  EXPECT_EQ(down.counters.at("link_downed"), 3u);

  // RoCE: an Ethernet port on a ConnectX-6 Dx.
  const Hca& roce = hcas[3];
  EXPECT_EQ(roce.hca_type, "MT4125");
  EXPECT_EQ(roce.fw_ver, "22.39.1002");
  EXPECT_EQ(roce.board_id, "MT_0000000359");
  EXPECT_EQ(roce.node_guid, "b859:9f03:00d6:1a2e");
  EXPECT_EQ(roce.pci_address, "0000:c7:00.0");
  EXPECT_EQ(roce.numa_node, 1);
  const IbPort& eth = roce.ports[0];
  EXPECT_EQ(eth.link_layer, "Ethernet");
  EXPECT_TRUE(eth.active());
  EXPECT_EQ(eth.rate_text, "100 Gb/sec (4X EDR)");
  EXPECT_EQ(eth.lid, "0x0");
  EXPECT_EQ(eth.counters.at("port_xmit_data"), 55443322110ULL);
}

TEST(ReadHcas, HostWithoutRdmaHasNone) {
  EXPECT_TRUE(read_hcas(Sysfs(testing::kSysfsFixtures / "empty")).empty());
  EXPECT_TRUE(read_hcas(Sysfs(testing::kSysfsFixtures / "no-such-root")).empty());
}

TEST(ReadHcas, CounterDeltaBetweenTwoSamples) {
  const auto before = read_hcas(Sysfs(testing::kSysfsFixtures / "counters-before"));
  const auto after = read_hcas(Sysfs(testing::kSysfsFixtures / "counters-after"));
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(after.size(), 1u);
  ASSERT_EQ(before[0].ports.size(), 1u);
  ASSERT_EQ(after[0].ports.size(), 1u);
  const auto& b = before[0].ports[0].counters;
  const auto& a = after[0].ports[0].counters;
  ASSERT_EQ(a.size(), b.size());

  std::map<std::string, std::uint64_t> rise;
  for (const auto& [name, value] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    ASSERT_GE(value, b.at(name)) << name;
    if (value != b.at(name)) rise[name] = value - b.at(name);
  }
  const std::map<std::string, std::uint64_t> expected{
      {"symbol_error", 27},
      {"link_downed", 1},
      {"link_error_recovery", 1},
      {"port_xmit_wait", 9157060},
      {"port_xmit_data", 12000000000ULL},
      {"port_rcv_data", 12000000000ULL},
      {"port_xmit_packets", 45600000},
      {"port_rcv_packets", 45600000},
  };
  EXPECT_EQ(rise, expected);
}

TEST(ReadPort, ReadsOnePortByDeviceAndNumber) {
  const IbPort p = read_port(Sysfs(testing::kSysfsFixtures / "degraded"), "mlx5_3", 1);
  EXPECT_EQ(p.port, 1);
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_TRUE(p.active());
}

TEST(ReadPort, MissingPortHasNothing) {
  const IbPort p = read_port(Sysfs(testing::kSysfsFixtures / "cx7-ndr"), "mlx5_0", 2);
  EXPECT_EQ(p.port, 2);
  EXPECT_FALSE(p.state.has_value());
  EXPECT_FALSE(p.phys_state.has_value());
  EXPECT_FALSE(p.active());
  EXPECT_EQ(p.rate_text, "");
  EXPECT_FALSE(p.rate.has_value());
  EXPECT_EQ(p.link_layer, "");
  EXPECT_FALSE(p.lid.has_value());
  EXPECT_TRUE(p.counters.empty());
}

// Cases the fixture trees do not cover: a plain directory in class/infiniband instead of the
// kernel's symlink, numa_node -1 (firmware gave no locality), and counters that do not parse.
TEST(ReadHcas, PlainDirectoryUnknownNumaAndUnparseableCounter) {
  const fs::path root = fs::path(::testing::TempDir()) / "ibgpu_ports_plain_dir";
  fs::remove_all(root);
  const fs::path dev = root / "class/infiniband/mlx5_4";
  const fs::path pci = root / "devices/pci0000:00/0000:00:02.0";
  auto put = [](const fs::path& file, const std::string& content) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << content << "\n";
  };
  put(pci / "numa_node", "-1");
  put(dev / "fw_ver", "20.31.1014");
  put(dev / "ports/1/state", "4: ACTIVE");
  put(dev / "ports/1/counters/symbol_error", "5");
  put(dev / "ports/1/counters/port_xmit_wait", "N/A");
  put(dev / "ports/1/counters/link_downed", "-1");
  fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:02.0", dev / "device");

  const auto hcas = read_hcas(Sysfs(root));
  ASSERT_EQ(hcas.size(), 1u);
  EXPECT_EQ(hcas[0].name, "mlx5_4");
  EXPECT_EQ(hcas[0].fw_ver, "20.31.1014");
  EXPECT_EQ(hcas[0].node_guid, "");
  EXPECT_EQ(hcas[0].pci_address, "0000:00:02.0");
  EXPECT_FALSE(hcas[0].numa_node.has_value());
  ASSERT_EQ(hcas[0].ports.size(), 1u);
  EXPECT_TRUE(hcas[0].ports[0].active());
  EXPECT_EQ(hcas[0].ports[0].counters, (std::map<std::string, std::uint64_t>{{"symbol_error", 5}}));
  fs::remove_all(root);
}

// ---- part names -------------------------------------------------------------

TEST(PartNames, AGpuNameCarriesItsIndexAndNothingElseIsOne) {
  EXPECT_EQ(gpu_name(3), "gpu3");
  EXPECT_EQ(gpu_index(gpu_name(12)), 12);
  for (const char* text : {"mlx5_0:1", "gpu", "gpu3x", "gpu-1", "GPU3", ""}) EXPECT_FALSE(gpu_index(text)) << text;
}

}  // namespace
}  // namespace ibgpu
