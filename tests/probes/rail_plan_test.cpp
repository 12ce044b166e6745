// The rail plan: each rank's GPU and that GPU's nearest compute HCA port, from
// sysfs alone (no driver), against the HGX H100, HGX H200, DGX A100 and GB200 tray trees
// (their answer key is in tests/data/sysfs/README.md).
#include <gtest/gtest.h>

#include <filesystem>

#include "probes/ib/ports.h"
#include "probes/topology.h"
#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ports(const std::vector<RailAssignment>& plan) {
  std::vector<std::string> out;
  for (const auto& a : plan) out.push_back(a.port);
  return out;
}

TEST(RailPlan, HgxH100RanksTakeTheirGpusOwnComputeHcaNeverAStorageOne) {
  const auto plan = read_rail_plan(Sysfs(testing::kSysfsFixtures / "hgx-h100"), 8, nullptr);
  EXPECT_EQ(ports(plan), (std::vector<std::string>{"mlx5_0:1", "mlx5_3:1", "mlx5_4:1", "mlx5_5:1", "mlx5_6:1",
                                                   "mlx5_9:1", "mlx5_10:1", "mlx5_11:1"}));
  for (const auto& a : plan) {
    EXPECT_EQ(a.proximity, PciProximity::same_switch) << a.local_rank;
    EXPECT_EQ(a.note, "") << a.local_rank;
  }
  EXPECT_EQ(plan[0].gpu_pci, "0000:1b:00.0");
  EXPECT_EQ(plan[7].gpu_pci, "0000:d1:00.0");
}

TEST(RailPlan, HgxH200AndDgxA100FollowTheirPublishedRails) {
  EXPECT_EQ(ports(read_rail_plan(Sysfs(testing::kSysfsFixtures / "hgx-h200"), 8, nullptr)),
            (std::vector<std::string>{"mlx5_0:1", "mlx5_3:1", "mlx5_4:1", "mlx5_5:1", "mlx5_6:1", "mlx5_9:1",
                                      "mlx5_10:1", "mlx5_11:1"}));
  EXPECT_EQ(ports(read_rail_plan(Sysfs(testing::kSysfsFixtures / "dgx-a100"), 8, nullptr)),
            (std::vector<std::string>{"mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1", "mlx5_6:1", "mlx5_7:1",
                                      "mlx5_8:1", "mlx5_9:1"}));
}

TEST(RailPlan, Gb200TrayGivesEachGpuAnHcaOfItsGraceNoTwoTheSame) {
  // No PCIe switch on a tray: both HCAs of a Grace are equally near its two GPUs (NODE). Each
  // GPU takes one no earlier GPU took, so all four HCAs are rails; before, both GPUs of a Grace
  // took its first HCA and the second was not a rail at all.
  const Sysfs tray(testing::kSysfsFixtures / "gb200-tray");
  const auto plan = read_rail_plan(tray, 4, nullptr);
  EXPECT_EQ(ports(plan), (std::vector<std::string>{"mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1"}));
  for (const auto& a : plan) {
    EXPECT_EQ(a.proximity, PciProximity::same_numa) << a.local_rank;
    EXPECT_EQ(a.note, "") << a.local_rank;
  }
  EXPECT_EQ(plan[0].gpu_pci, "0008:01:00.0");
  EXPECT_EQ(plan[3].gpu_pci, "0019:01:00.0");
  // A rank's rail does not depend on which GPUs it sees: GPU 1 keeps mlx5_1 alone.
  EXPECT_EQ(ports(read_rail_plan(tray, 1, "1")), (std::vector<std::string>{"mlx5_1:1"}));
}

TEST(RailPlan, CudaVisibleDevicesPicksTheGpusAndRanksWrapAroundThem) {
  const auto plan = read_rail_plan(Sysfs(testing::kSysfsFixtures / "hgx-h100"), 3, "4,5");
  EXPECT_EQ(ports(plan), (std::vector<std::string>{"mlx5_6:1", "mlx5_9:1", "mlx5_6:1"}));
  EXPECT_EQ(plan[2].note, "") << "two ranks on one GPU share its rail: nothing to report";
  EXPECT_EQ(visible_gpus(8, "GPU-6f2c1a8e-3b5d"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));  // UUIDs need NVML
  EXPECT_EQ(visible_gpus(8, "1,9,2"), (std::vector<int>{1}));  // CUDA stops at the first invalid entry
  EXPECT_EQ(visible_gpus(2, ""), (std::vector<int>{0, 1}));
}

TEST(RailPlan, NoGpusNoPlan) {
  EXPECT_TRUE(read_rail_plan(Sysfs(testing::kSysfsFixtures / "cx7-ndr"), 2, nullptr).empty());
  EXPECT_TRUE(read_rail_plan(Sysfs(testing::kSysfsFixtures / "empty"), 1, nullptr).empty());
}

TEST(RailPlan, SharedHcaAndFarHcaAreReported) {
  std::vector<Hca> hcas(1);
  hcas[0].name = "mlx5_0";
  hcas[0].ports.resize(1);
  hcas[0].ports[0].port = 1;
  hcas[0].ports[0].state = CodedState{4, "ACTIVE"};
  std::vector<GpuHcaAffinity> topology(2);
  topology[0] = {0, "0000:1b:00.0", 0, "mlx5_0", "0000:1a:00.0", PciProximity::same_switch};
  topology[1] = {1, "0000:20:00.0", 1, "mlx5_0", "0000:1a:00.0", PciProximity::other};
  const auto plan = rail_plan(topology, hcas, 2, nullptr);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].note, "");
  EXPECT_EQ(plan[1].note, "no HCA near the GPU (other NUMA node)");
  topology[1].proximity = PciProximity::same_numa;
  EXPECT_EQ(rail_plan(topology, hcas, 2, nullptr)[1].note, "shares mlx5_0:1 with local rank 0's GPU");
}

}  // namespace
}  // namespace ibgpu
