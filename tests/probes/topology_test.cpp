// GPU-to-HCA affinity on a sysfs tree built with real symlinks, laid out like
// a host with PCIe switches: /sys/bus/pci/devices/<addr> -> ../../../devices/pci.../<addr>,
// /sys/class/infiniband/<hca> -> ../../devices/.../infiniband/<hca>, <hca>/device -> ../../../<addr>.
#include "probes/topology.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

class TopologyTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ibgpu-topology-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    // Socket 0: GPU0 and mlx5_0 behind one switch (0000:16:00.0), GPU1 on its own root port.
    device("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0", 0);
    device("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0", 0);
    device("pci0000:15/0000:15:02.0/0000:1a:00.0", 0);
    hca("mlx5_0", "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0");
    // Socket 1: GPU2 and mlx5_1 behind another switch.
    device("pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:00.0/0000:9a:00.0", 1);
    device("pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:01.0/0000:9b:00.0", 1);
    hca("mlx5_1", "pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:01.0/0000:9b:00.0");
    // GPU3 where the platform does not say its NUMA node.
    device("pci0000:c5/0000:c5:01.0/0000:c6:00.0", -1);
  }
  void TearDown() override { fs::remove_all(root_); }

  void device(const std::string& path, int numa) {
    const fs::path dir = root_ / "devices" / path;
    fs::create_directories(dir);
    std::ofstream(dir / "numa_node") << numa << "\n";
    const std::string address = fs::path(path).filename().string();
    fs::create_directories(root_ / "bus/pci/devices");
    fs::create_directory_symlink("../../../devices/" + path, root_ / "bus/pci/devices" / address);
  }
  void hca(const std::string& name, const std::string& path) {
    const fs::path dir = root_ / "devices" / path / "infiniband" / name;
    fs::create_directories(dir);
    fs::create_directory_symlink("../../../" + fs::path(path).filename().string(), dir / "device");
    fs::create_directories(root_ / "class/infiniband");
    fs::create_directory_symlink("../../devices/" + path + "/infiniband/" + name, root_ / "class/infiniband" / name);
  }
  static std::vector<Hca> hcas() {
    Hca a, b;
    a.name = "mlx5_0";
    b.name = "mlx5_1";
    return {a, b};
  }
  static std::vector<GpuInfo> gpus() {
    return {GpuInfo{0, "H200", "u0", "00000000:18:00.0", {}, ""}, GpuInfo{1, "H200", "u1", "00000000:1A:00.0", {}, ""},
            GpuInfo{2, "H200", "u2", "00000000:9A:00.0", {}, ""}, GpuInfo{3, "H200", "u3", "00000000:C6:00.0", {}, ""}};
  }

  fs::path root_;
};

TEST_F(TopologyTree, PlaceFollowsTheSymlinkDownThePciTree) {
  const auto place = read_pci_place(Sysfs(root_), "bus/pci/devices/0000:18:00.0");
  ASSERT_TRUE(place.has_value());
  EXPECT_EQ(place->address, "0000:18:00.0");
  EXPECT_EQ(place->host_bridge, "pci0000:15");
  EXPECT_EQ(place->path, (std::vector<std::string>{"0000:15:01.0", "0000:16:00.0", "0000:17:00.0", "0000:18:00.0"}));
  EXPECT_EQ(place->numa_node, 0);
  const auto hca_place = read_pci_place(Sysfs(root_), "class/infiniband/mlx5_0/device");
  ASSERT_TRUE(hca_place.has_value());
  EXPECT_EQ(hca_place->address, "0000:19:00.0");
  EXPECT_EQ(pci_proximity(*place, *hca_place), PciProximity::same_switch);
  EXPECT_FALSE(read_pci_place(Sysfs(root_), "bus/pci/devices/0000:ff:00.0").has_value());
}

TEST_F(TopologyTree, EachGpuGetsItsNearestHca) {
  const auto topology = gpu_hca_affinity(Sysfs(root_), gpus(), hcas());
  ASSERT_EQ(topology.size(), 4u);
  EXPECT_EQ(topology[0].hca, "mlx5_0");
  EXPECT_EQ(topology[0].proximity, PciProximity::same_switch);
  EXPECT_EQ(topology[0].gpu_pci, "0000:18:00.0");
  EXPECT_EQ(topology[0].hca_pci, "0000:19:00.0");
  EXPECT_EQ(topology[1].hca, "mlx5_0");  // own root port, same socket
  EXPECT_EQ(topology[1].proximity, PciProximity::same_numa);
  EXPECT_EQ(topology[2].hca, "mlx5_1");  // not the first HCA: the one behind its switch
  EXPECT_EQ(topology[2].proximity, PciProximity::same_switch);
  EXPECT_EQ(topology[2].gpu_numa_node, 1);
  EXPECT_EQ(topology[3].proximity, PciProximity::other);
  EXPECT_FALSE(topology[3].gpu_numa_node.has_value());
  EXPECT_EQ(nearest_hca(topology, 2), "mlx5_1");
  EXPECT_EQ(nearest_hca(topology, 7), "");
}

TEST_F(TopologyTree, GpuNotInSysfsHasNoHca) {
  const auto topology = gpu_hca_affinity(Sysfs(root_), {GpuInfo{5, "H200", "u5", "00000000:EE:00.0", {}, ""}}, hcas());
  ASSERT_EQ(topology.size(), 1u);
  EXPECT_EQ(topology[0].hca, "");
  EXPECT_FALSE(topology[0].proximity.has_value());
}

TEST(Topology, NormalizesNvmlAddressesToKernelForm) {
  EXPECT_EQ(normalize_pci_address("00000000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(normalize_pci_address("0000:1a:00.0"), "0000:1a:00.0");
  EXPECT_EQ(normalize_pci_address("00000001:1A:00.0"), "0001:1a:00.0");
}

TEST(Topology, ProximityOrderAndNames) {
  PciPlace a{"0000:18:00.0", "pci0000:15", {"0000:15:01.0", "0000:18:00.0"}, 0};
  PciPlace b{"0000:19:00.0", "pci0000:15", {"0000:15:02.0", "0000:19:00.0"}, 0};
  EXPECT_EQ(pci_proximity(a, b), PciProximity::same_numa);  // same host bridge, different root ports
  b.numa_node = 1;
  EXPECT_EQ(pci_proximity(a, b), PciProximity::other);
  for (auto p : {PciProximity::same_switch, PciProximity::same_numa, PciProximity::other})
    EXPECT_EQ(pci_proximity_from_string(to_string(p)), p);
}

}  // namespace
}  // namespace ibgpu
