// NVIDIA GPUs and PCIe links from sysfs, without a driver, against the HGX
// H100 and DGX A100 fixture trees (tests/data/sysfs/README.md has their
// shape and sources).
#include "probes/pci.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probes/ib/ports.h"
#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

TEST(PciLinkSpeed, KernelTextIsParsedAndJunkIsNot) {
  EXPECT_EQ(parse_link_speed("32.0 GT/s PCIe"), 32.0);
  EXPECT_EQ(parse_link_speed("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(parse_link_speed("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(parse_link_speed("8.0 GT/s"), 8.0);  // older kernels print no "PCIe"
  EXPECT_EQ(parse_link_speed("Unknown"), std::nullopt);
  EXPECT_EQ(parse_link_speed("Unknown speed"), std::nullopt);
  EXPECT_EQ(parse_link_speed("32.0"), std::nullopt);
  EXPECT_EQ(parse_link_speed("-1 GT/s"), std::nullopt);
  EXPECT_EQ(parse_link_speed(""), std::nullopt);
}

TEST(PciGpus, HgxH100HasEightH100sOnTwoNumaNodesAtGen5X16) {
  const auto gpus = read_pci_gpus(Sysfs(testing::kSysfsFixtures / "hgx-h100"));
  ASSERT_EQ(gpus.size(), 8u);
  const std::vector<std::string> addresses{"0000:1b:00.0", "0000:20:00.0", "0000:4e:00.0", "0000:52:00.0",
                                           "0000:9d:00.0", "0000:a2:00.0", "0000:cd:00.0", "0000:d1:00.0"};
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    EXPECT_EQ(gpus[i].pci_address, addresses[i]);
    EXPECT_EQ(gpus[i].device_id, "0x2330");
    EXPECT_EQ(gpus[i].numa_node, i < 4 ? 0 : 1) << gpus[i].pci_address;
    EXPECT_EQ(gpus[i].link.speed_GTps, 32.0);
    EXPECT_EQ(gpus[i].link.width, 16);
    EXPECT_FALSE(gpus[i].link.narrower() || gpus[i].link.slower());
  }
}

TEST(PciGpus, A100sAreGen4AndNothingElseOnTheBusIsAGpu) {
  // The switches, NICs and NVMe drives of the tree are not GPUs.
  const auto gpus = read_pci_gpus(Sysfs(testing::kSysfsFixtures / "dgx-a100"));
  ASSERT_EQ(gpus.size(), 8u);
  for (const auto& g : gpus) {
    EXPECT_EQ(g.device_id, "0x20b2");
    EXPECT_EQ(g.link.max_speed_GTps, 16.0);
  }
  EXPECT_TRUE(read_pci_gpus(Sysfs(testing::kSysfsFixtures / "cx7-ndr")).empty());
  EXPECT_TRUE(read_pci_gpus(Sysfs(testing::kSysfsFixtures / "empty")).empty());
}

TEST(PciLinks, HcasCarryTheirLinkAndADownTrainedOneShows) {
  // A copy of the H100 tree with mlx5_4 trained at x8 Gen4.
  const fs::path root = fs::path(::testing::TempDir()) / "ibgpu_pci_downtrained";
  fs::remove_all(root);
  fs::copy(testing::kSysfsFixtures / "hgx-h100", root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const auto hcas = read_hcas(Sysfs(root));
  const auto mlx5_4 = std::find_if(hcas.begin(), hcas.end(), [](const Hca& h) { return h.name == "mlx5_4"; });
  ASSERT_NE(mlx5_4, hcas.end());
  const fs::path dir = root / "bus/pci/devices" / mlx5_4->pci_address;
  std::ofstream(dir / "current_link_width") << "8\n";
  std::ofstream(dir / "current_link_speed") << "16.0 GT/s PCIe\n";
  for (const auto& hca : read_hcas(Sysfs(root))) {
    EXPECT_EQ(hca.link.max_width, 16) << hca.name;
    EXPECT_EQ(hca.link.narrower(), hca.name == "mlx5_4") << hca.name;
    EXPECT_EQ(hca.link.slower(), hca.name == "mlx5_4") << hca.name;
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace ibgpu
