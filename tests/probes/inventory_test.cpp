// Host inventory pieces: CPU lists, the environment that changes behaviour, NCCL
// version codes, and the whole collection against fixture sysfs trees.
#include "probes/inventory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

const ProbeResult* find_probe(const InventoryOutcome& out, const std::string& id) {
  for (const auto& p : out.probes)
    if (p.id == id) return &p;
  return nullptr;
}

double metric(const ProbeResult& p, const std::string& name) {
  const auto it = p.metrics.find(name);
  if (it == p.metrics.end() || !it->second.value) {
    ADD_FAILURE() << p.id << " lacks metric " << name;
    return -1;
  }
  return *it->second.value;
}

TEST(CountCpuList, ListsTheKernelWrites) {
  EXPECT_EQ(count_cpu_list("0"), 1);
  EXPECT_EQ(count_cpu_list("7"), 1);
  EXPECT_EQ(count_cpu_list("0-3"), 4);
  EXPECT_EQ(count_cpu_list("0-3,8-11"), 8);
  EXPECT_EQ(count_cpu_list("0,2,4,6"), 4);
  EXPECT_EQ(count_cpu_list("0-223"), 224);
  EXPECT_EQ(count_cpu_list("0-55,112-167"), 112);
  EXPECT_EQ(count_cpu_list("0-1,3,5-6"), 5);
  EXPECT_EQ(count_cpu_list("4-4"), 1);
}

TEST(CountCpuList, EmptyListIsZero) {
  // A memory-only NUMA node has an empty cpulist.
  EXPECT_EQ(count_cpu_list(""), 0);
  EXPECT_EQ(count_cpu_list(" "), 0);
}

TEST(CountCpuList, GarbageIsZeroNotAGuess) {
  for (const std::string text :
       {"abc", "0-", "-3", "3-1", "0-3x", "1a", "0-3,x", "0--3", "0-3-5", "0:3", "99999999999"}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_EQ(count_cpu_list(text), 0);
  }
}

TEST(ReadCpuInfo, FromFixtureTrees) {
  const CpuInfo big = read_cpu_info(Sysfs(testing::kSysfsFixtures / "cx7-ndr"));
  EXPECT_EQ(big.logical_cpus, 224);
  EXPECT_EQ(big.numa_nodes, 2);
  // read_cpu_info reads only sysfs; the model comes from /proc/cpuinfo in collect_inventory.
  EXPECT_EQ(big.model, "");

  const CpuInfo small = read_cpu_info(Sysfs(testing::kSysfsFixtures / "empty"));
  EXPECT_EQ(small.logical_cpus, 16);
  EXPECT_EQ(small.numa_nodes, 1);

  const CpuInfo none = read_cpu_info(Sysfs(testing::kSysfsFixtures / "no-such-root"));
  EXPECT_EQ(none.logical_cpus, 0);
  EXPECT_EQ(none.numa_nodes, 0);
}

TEST(BehaviourEnv, KeepsSettingsThatChangeBehaviour) {
  // Values may themselves hold '=' or be empty.
  const char* const env[] = {"NCCL_IB_HCA=mlx5_0,mlx5_1", "NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME==ib0",
                             "UCX_NET_DEVICES=mlx5_0:1",  "UCX_TLS=rc,sm",   "OMPI_MCA_btl=^openib",
                             "OMPI_MCA_pml=ucx",          "NCCL_EMPTY=",     nullptr};
  const std::map<std::string, std::string> expected{
      {"NCCL_IB_HCA", "mlx5_0,mlx5_1"}, {"NCCL_DEBUG", "INFO"}, {"NCCL_SOCKET_IFNAME", "=ib0"},
      {"UCX_NET_DEVICES", "mlx5_0:1"},  {"UCX_TLS", "rc,sm"},   {"OMPI_MCA_btl", "^openib"},
      {"OMPI_MCA_pml", "ucx"},          {"NCCL_EMPTY", ""},
  };
  EXPECT_EQ(behaviour_env(env), expected);
}

TEST(BehaviourEnv, DropsEverythingElse) {
  const char* const env[] = {
      "PATH=/usr/bin:/bin",
      "HOME=/root",
      "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
      "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxx",
      "SLURM_JOB_ID=4242",
      "LD_LIBRARY_PATH=/usr/local/cuda/lib64",
      "CUDA_VISIBLE_DEVICES=0,1",
      "nccl_debug=INFO",  // names are case-sensitive: NCCL ignores this one
      "XNCCL_DEBUG=INFO",
      "NCCL",
      "NCCL_NO_EQUALS_SIGN",
      // mpirun's own bookkeeping.
      "OMPI_MCA_orte_hnp_uri=1234.0;tcp://10.0.0.1:4711",
      "OMPI_MCA_orte_ess_num_procs=16",
      "OMPI_MCA_ess_base_jobid=1234",
      "OMPI_MCA_ess=pmi",
      "OMPI_MCA_pmix=^s1,s2",
      "OMPI_MCA_initial_wdir=/home/user",
      "OMPI_COMM_WORLD_RANK=3",
      nullptr,
  };
  EXPECT_TRUE(behaviour_env(env).empty());
}

TEST(BehaviourEnv, NullOrEmptyBlock) {
  EXPECT_TRUE(behaviour_env(nullptr).empty());
  const char* const env[] = {nullptr};
  EXPECT_TRUE(behaviour_env(env).empty());
}

TEST(DecodeNcclVersion, CurrentAndOldEncodings) {
  EXPECT_EQ(decode_nccl_version(22803), "2.28.3");
  EXPECT_EQ(decode_nccl_version(21903), "2.19.3");
  EXPECT_EQ(decode_nccl_version(20900), "2.9.0");
  EXPECT_EQ(decode_nccl_version(2708), "2.7.8");
  EXPECT_EQ(decode_nccl_version(2406), "2.4.6");
}

TEST(CollectInventory, HostWithoutRdma) {
  const InventoryOutcome out = collect_inventory(Sysfs(testing::kSysfsFixtures / "empty"), "node-a");
  EXPECT_EQ(out.host.name, "node-a");
  EXPECT_TRUE(out.host.hcas.empty());
  EXPECT_EQ(out.host.cpu.logical_cpus, 16);
  EXPECT_EQ(out.host.cpu.numa_nodes, 1);

  const ProbeResult* rdma = find_probe(out, "inventory.rdma");
  ASSERT_NE(rdma, nullptr);
  EXPECT_EQ(rdma->status, ProbeStatus::skipped);
  ASSERT_TRUE(rdma->reason.has_value());
  EXPECT_NE(rdma->reason->find("class/infiniband"), std::string::npos) << *rdma->reason;
  EXPECT_EQ(rdma->scope.hosts, std::vector<std::string>{"node-a"});
  EXPECT_TRUE(rdma->metrics.empty());
}

TEST(CollectInventory, HostWithTwoNdrPorts) {
  const InventoryOutcome out = collect_inventory(Sysfs(testing::kSysfsFixtures / "cx7-ndr"), "node-b");
  EXPECT_EQ(out.host.name, "node-b");
  ASSERT_EQ(out.host.hcas.size(), 2u);
  EXPECT_EQ(out.host.hcas[0].name, "mlx5_0");
  EXPECT_EQ(out.host.hcas[1].name, "mlx5_1");
  EXPECT_EQ(out.host.cpu.logical_cpus, 224);
  EXPECT_EQ(out.host.cpu.numa_nodes, 2);
  // Only behaviour-changing variables, whatever this test process inherited.
  for (const auto& [key, value] : out.host.env)
    EXPECT_TRUE(key.rfind("NCCL_", 0) == 0 || key.rfind("UCX_", 0) == 0 || key.rfind("OMPI_MCA_", 0) == 0) << key;

  const ProbeResult* rdma = find_probe(out, "inventory.rdma");
  ASSERT_NE(rdma, nullptr);
  EXPECT_EQ(rdma->status, ProbeStatus::ok);
  EXPECT_FALSE(rdma->reason.has_value());
  EXPECT_EQ(rdma->scope.hosts, std::vector<std::string>{"node-b"});
  EXPECT_EQ(rdma->scope.devices, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ(metric(*rdma, "hca_count"), 2);
  EXPECT_EQ(metric(*rdma, "port_count"), 2);
  EXPECT_EQ(metric(*rdma, "active_port_count"), 2);
}

TEST(CollectInventory, DegradedHostCountsOnlyActivePorts) {
  const InventoryOutcome out = collect_inventory(Sysfs(testing::kSysfsFixtures / "degraded"), "node-c");
  const ProbeResult* rdma = find_probe(out, "inventory.rdma");
  ASSERT_NE(rdma, nullptr);
  EXPECT_EQ(rdma->status, ProbeStatus::ok);
  EXPECT_EQ(metric(*rdma, "hca_count"), 4);
  EXPECT_EQ(metric(*rdma, "port_count"), 4);
  EXPECT_EQ(metric(*rdma, "active_port_count"), 3);
}

TEST(CollectInventory, GpuSkippedWithoutDriver) {
  const InventoryOutcome out = collect_inventory(Sysfs(testing::kSysfsFixtures / "empty"), "node-a");
  const ProbeResult* gpu = find_probe(out, "inventory.gpu");
  ASSERT_NE(gpu, nullptr);
  const std::string reason = gpu->reason.value_or("");
  if (gpu->status != ProbeStatus::skipped || reason.find("libnvidia-ml") == std::string::npos)
    GTEST_SKIP() << "an NVIDIA driver answers here (status " << to_string(gpu->status)
                 << (reason.empty() ? "" : ", reason: " + reason) << ")";
  EXPECT_TRUE(out.host.gpus.empty());
  EXPECT_TRUE(gpu->metrics.empty());
  EXPECT_EQ(out.host.versions.count("nvidia_driver"), 0u);
}

}  // namespace
}  // namespace ibgpu
