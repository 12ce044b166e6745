// The GPU path without a GPU: ibgpu's own loader (Nvml) opens the test-only
// NVML injection library (tests/nvml_injection) by path, the library answers
// from a scenario file (tests/data/nvml), and the inventory, the
// gpu.nvml.health records, the judge's verdicts and the node's admission on
// the hgx-h100-ndr profile are checked GPU by GPU.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "health/admission.h"
#include "health/local_health.h"
#include "health/profile_file.h"
#include "probes/gpu/gpu_health.h"
#include "probes/gpu/nvml.h"
#include "probes/ib/ports.h"
#include "probes/sysfs.h"
#include "tests/core/names.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(IBGPU_TEST_DATA);

// Points the injection library at one scenario file while it lives.
class ScenarioFile {
 public:
  explicit ScenarioFile(const std::string& name) {
    setenv("IBGPU_NVML_SCENARIO", (kData / "nvml" / (name + ".toml")).c_str(), 1);
  }
  ~ScenarioFile() { unsetenv("IBGPU_NVML_SCENARIO"); }
  ScenarioFile(const ScenarioFile&) = delete;
  ScenarioFile& operator=(const ScenarioFile&) = delete;
};

// N NDR rails, mlx5_0..: the cx7-ndr fixture's two ACTIVE 400G ports, copied.
std::vector<Hca> ndr_rails(int n) {
  const std::vector<Hca> two = read_hcas(Sysfs(kData / "sysfs" / "cx7-ndr"));
  std::vector<Hca> out;
  for (int i = 0; i < n && two.size() == 2; ++i) {
    Hca h = two[static_cast<std::size_t>(i % 2)];
    h.name = "mlx5_" + std::to_string(i);
    out.push_back(std::move(h));
  }
  return out;
}

struct Checked {
  GpuSystem system;
  std::vector<ProbeResult> health;
  std::vector<Verdict> verdicts;

  const ProbeResult& record(const std::string& gpu) const {
    const auto it = std::find_if(health.begin(), health.end(), [&](const ProbeResult& p) {
      return p.scope.devices == std::vector<std::string>{gpu};
    });
    if (it == health.end()) throw std::runtime_error("no gpu.nvml.health record for " + gpu);
    return *it;
  }
  const Verdict& verdict(const std::string& kind, const std::string& id) const {
    const auto it = std::find_if(verdicts.begin(), verdicts.end(), [&](const Verdict& v) {
      return v.entity == Entity::from_text(testing::kind(kind), id);
    });
    if (it == verdicts.end()) throw std::runtime_error("no verdict for " + kind + " " + id);
    return *it;
  }
  const Verdict& gpu(int index) const { return verdict("gpu", "n1/gpu" + std::to_string(index)); }
  const Verdict& node() const { return verdict("node", "n1"); }
};

std::vector<std::string> codes(const Verdict& v) {
  std::vector<std::string> out;
  for (const auto& r : v.reasons) out.push_back(std::string(to_string(r.code)));
  return out;
}

// Inventory and health through NVML on host n1, judged with admission on a profile (hgx-h100-ndr:
// eight NDR rails) or gb200-nvl72-tray (four).
Checked check(const std::string& scenario, const std::string& profile_name = "hgx-h100-ndr") {
  const ScenarioFile file(scenario);
  const Nvml nvml(IBGPU_NVML_INJECTION);
  if (!nvml.ok()) throw std::runtime_error("injection library did not load: " + nvml.why_not());
  Checked c;
  c.system = nvml.query();
  c.health = check_gpu_health("n1", nvml);
  HostInventory host;
  host.name = "n1";
  host.gpus = c.system.gpus;
  const Profile profile = load_profile_file(fs::path(IBGPU_PROFILES) / (profile_name + ".toml"));
  host.hcas = ndr_rails(profile.node.expect_active_ports.value_or(0));
  c.verdicts = judge_local_health({host}, c.health, profile);
  decide_admission(c.verdicts, {host});
  return c;
}

// Every GPU but `except` healthy, with no reasons.
void expect_others_healthy(const Checked& c, std::vector<int> except) {
  for (int i = 0; i < 8; ++i) {
    if (std::find(except.begin(), except.end(), i) != except.end()) continue;
    SCOPED_TRACE("gpu" + std::to_string(i));
    EXPECT_EQ(c.record("gpu" + std::to_string(i)).status, ProbeStatus::ok);
    EXPECT_EQ(c.gpu(i).state, HealthState::healthy);
    EXPECT_TRUE(c.gpu(i).reasons.empty());
  }
}

// One GPU failed and excluded, seven usable: the node is admitted degraded.
void expect_admitted_without(const Checked& c, int failed_gpu) {
  const Verdict& node = c.node();
  EXPECT_EQ(node.state, HealthState::degraded);
  EXPECT_EQ(node.action, Action::admit_degraded);
  EXPECT_EQ(codes(node), std::vector<std::string>{"GPUS_UNHEALTHY"});
  ASSERT_FALSE(node.reasons.empty());
  EXPECT_EQ(node.reasons[0].value, 7.0);
  EXPECT_EQ(node.excluded, std::vector<std::string>{"gpu" + std::to_string(failed_gpu)});
  EXPECT_EQ(
      std::count_if(node.usable.begin(), node.usable.end(), [](const std::string& d) { return d.starts_with("gpu"); }),
      7);
}

TEST(NvmlInjection, EightHealthyH100sAreAdmitted) {
  const Checked c = check("h100_healthy");
  EXPECT_EQ(c.system.driver_version, "550.90.07");
  EXPECT_EQ(c.system.cuda_driver_version, 12040);
  ASSERT_EQ(c.system.gpus.size(), 8u);
  EXPECT_TRUE(c.system.failures.empty());
  EXPECT_EQ(c.system.gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.system.gpus[0].pci_bus_id, "00000000:1B:00.0");
  EXPECT_EQ(c.system.gpus[7].uuid, "GPU-6cf90723-be5f-4a3d-87cf-129ebf3d4f5a");
  EXPECT_NEAR(*c.system.gpus[0].memory_total_GiB, 79.65, 0.01);
  ASSERT_EQ(c.health.size(), 8u);
  const ProbeResult& r = c.record("gpu0");
  EXPECT_EQ(r.metrics.at("nvlink_links").value, 18.0);
  EXPECT_EQ(r.metrics.at("nvlink_links_up").value, 18.0);
  EXPECT_EQ(r.metrics.at("pcie_gen").value, 5.0);
  EXPECT_EQ(r.metrics.at("pcie_width").value, 16.0);
  EXPECT_EQ(r.metrics.at("ecc_uncorrected_volatile").value, 0.0);
  // H100 remaps rows and retires no pages: NOT_SUPPORTED is a null, never a 0 or a finding.
  EXPECT_FALSE(r.metrics.at("retired_pages_dbe").value.has_value());
  EXPECT_FALSE(r.metrics.at("retired_pages_pending").value.has_value());
  expect_others_healthy(c, {});
  EXPECT_EQ(c.node().state, HealthState::healthy);
  EXPECT_EQ(c.node().action, Action::admit);
  EXPECT_TRUE(c.node().excluded.empty());
}

TEST(NvmlInjection, UncorrectableEccFailsAndExcludesThatGpu) {
  const Checked c = check("h100_ecc_uncorrectable");
  EXPECT_EQ(c.record("gpu3").metrics.at("ecc_uncorrected_volatile").value, 2.0);
  EXPECT_EQ(c.gpu(3).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(3)), std::vector<std::string>{"GPU_ECC_UNCORRECTABLE"});
  expect_others_healthy(c, {3});
  expect_admitted_without(c, 3);
}

TEST(NvmlInjection, PendingRemapFailsThatGpu) {
  const Checked c = check("h100_remap_pending");
  EXPECT_EQ(c.gpu(5).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(5)), std::vector<std::string>{"GPU_REMAP_PENDING"});
  expect_others_healthy(c, {5});
  expect_admitted_without(c, 5);
}

TEST(NvmlInjection, SeventeenOfEighteenNvlinksFailsThatGpu) {
  const Checked c = check("h100_nvlink_down");
  EXPECT_EQ(c.record("gpu4").metrics.at("nvlink_links").value, 18.0);
  EXPECT_EQ(c.record("gpu4").metrics.at("nvlink_links_up").value, 17.0);
  EXPECT_EQ(c.gpu(4).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(4)), std::vector<std::string>{"GPU_NVLINK_DOWN"});
  EXPECT_EQ(c.gpu(4).reasons[0].message, "1 of 18 NVLinks down (link 11)");
  expect_others_healthy(c, {4});
  expect_admitted_without(c, 4);
}

// A GB200 NVL72 tray: four GPUs, each with 18 NVLinks at 53,125 MB/s and registered with the rack's
// NVLink fabric; the domain it joined is in the record, and the tray is admitted whole.
TEST(NvmlInjection, HealthyGb200TrayIsAdmittedWithItsDomain) {
  const Checked c = check("gb200_tray_healthy", "gb200-nvl72-tray");
  ASSERT_EQ(c.health.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("gpu" + std::to_string(i));
    const ProbeResult& r = c.record("gpu" + std::to_string(i));
    EXPECT_EQ(r.metrics.at("nvlink_links_up").value, 18.0);
    EXPECT_EQ(r.metrics.at("nvlink_speed_MBps_min").value, 53125.0);
    EXPECT_EQ(r.metrics.at("fabric_registered").value, 1.0);
    EXPECT_EQ(r.metrics.at("fabric_health").value, 1.0);
    EXPECT_EQ(r.params.at("fabric_cluster_uuid"), "8c1f4a2e-5b3d-4e6f-9a71-0b2c3d4e5f60");
    EXPECT_EQ(r.params.at("fabric_clique"), 32766);
    EXPECT_EQ(c.gpu(i).state, HealthState::healthy);
    EXPECT_TRUE(c.gpu(i).reasons.empty()) << codes(c.gpu(i)).front();
  }
  EXPECT_EQ(c.node().state, HealthState::healthy);
  EXPECT_EQ(c.node().action, Action::admit);
}

// A tray whose GPUs did not register with the NVLink fabric cannot join the rack's jobs: each GPU is
// failed (the message says how far registration got) and the node is drained, nothing usable left.
TEST(NvmlInjection, UnregisteredGb200TrayIsDrained) {
  const Checked c = check("gb200_tray_unregistered", "gb200-nvl72-tray");
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("gpu" + std::to_string(i));
    EXPECT_EQ(c.record("gpu" + std::to_string(i)).metrics.at("fabric_registered").value, 0.0);
    EXPECT_EQ(c.gpu(i).state, HealthState::failed);
    EXPECT_EQ(codes(c.gpu(i)), std::vector<std::string>{"GPU_FABRIC_NOT_REGISTERED"});
  }
  EXPECT_EQ(c.gpu(0).reasons[0].message, "not registered with the NVLink fabric (registration not started)");
  EXPECT_EQ(c.gpu(2).reasons[0].message, "not registered with the NVLink fabric (registration in progress)");
  EXPECT_FALSE(c.record("gpu2").params.contains("fabric_cluster_uuid"));
  EXPECT_EQ(c.node().state, HealthState::failed);
  EXPECT_EQ(c.node().action, Action::drain);
}

// Per link: a link trained slow is degraded and named, a link down is failed and named, a registration
// that ended in an error is failed with NVML's text; the tray is admitted with gpu0 and gpu1.
TEST(NvmlInjection, Gb200TrayLinksAndRegistrationAreJudgedPerGpu) {
  const Checked c = check("gb200_tray_links", "gb200-nvl72-tray");
  EXPECT_EQ(c.gpu(0).state, HealthState::healthy);
  EXPECT_EQ(c.record("gpu1").metrics.at("nvlink_speed_MBps_min").value, 26562.0);
  EXPECT_EQ(c.record("gpu1").params.at("nvlink_slowest"), 7);
  EXPECT_EQ(c.gpu(1).state, HealthState::degraded);
  EXPECT_EQ(codes(c.gpu(1)), std::vector<std::string>{"GPU_NVLINK_SLOW"});
  EXPECT_EQ(c.gpu(1).reasons[0].message, "link 7 at 26562 MB/s, the profile expects 53125");
  EXPECT_EQ(c.gpu(2).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(2)), std::vector<std::string>{"GPU_FABRIC_NOT_REGISTERED"});
  EXPECT_EQ(c.gpu(2).reasons[0].message, "registration with the NVLink fabric failed: Timeout");
  EXPECT_EQ(c.gpu(3).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(3)), std::vector<std::string>{"GPU_NVLINK_DOWN"});
  EXPECT_EQ(c.gpu(3).reasons[0].message, "1 of 18 NVLinks down (link 11)");
  EXPECT_EQ(c.node().action, Action::admit_degraded);
  EXPECT_EQ(c.node().excluded, (std::vector<std::string>{"gpu2", "gpu3"}));
}

// The health records of `scenario` with `defaults` (TOML lines) added to its [defaults] table.
std::vector<ProbeResult> health_with(const std::string& scenario, const std::string& defaults) {
  const fs::path dir = fs::temp_directory_path() / ("ibgpu-nvml-edited-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "edited.toml";
  std::string text;
  {
    std::ifstream in(kData / "nvml" / (scenario + ".toml"));
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.replace(text.find("[defaults]\n"), 11, "[defaults]\n" + defaults);
  std::ofstream(file) << text;
  setenv("IBGPU_NVML_SCENARIO", file.c_str(), 1);
  std::vector<ProbeResult> health;
  {
    const Nvml nvml(IBGPU_NVML_INJECTION);
    if (!nvml.ok()) throw std::runtime_error("injection library did not load: " + nvml.why_not());
    health = check_gpu_health("n1", nvml);
  }
  unsetenv("IBGPU_NVML_SCENARIO");
  fs::remove_all(dir);
  return health;
}

// A driver that knows only v2 of the fabric struct answers v3 with ARGUMENT_VERSION_MISMATCH: ibgpu
// asks again with v2 and reads the registration (no health summary in v2).
TEST(NvmlInjection, FabricInfoFallsBackToVersion2) {
  const auto health = health_with("gb200_tray_healthy", "fabric_struct_version = 2\n");
  ASSERT_EQ(health.size(), 4u);
  EXPECT_EQ(health[0].status, ProbeStatus::ok);
  EXPECT_EQ(health[0].metrics.at("fabric_registered").value, 1.0);
  EXPECT_FALSE(health[0].metrics.at("fabric_health").value);
  EXPECT_EQ(health[0].params.at("fabric_clique"), 32766);
}

// NVLink error counters per link, in Hopper's fields and in NVLink 5's (each driver answers its own
// generation's and NOT_SUPPORTED for the other's): the same figures either way, judged against the
// profile's limits where it sets them.
TEST(NvmlInjection, NvlinkErrorCountersAreReadPerLinkInEitherGenerationsFields) {
  const std::string counts = "nvlink_recoveries_by_link = { 5 = 1, 9 = 2 }\nnvlink_errors_by_link = { 5 = 40 }\n";
  for (const std::string fields : {"", "nvlink_counter_fields = \"nvlink5\"\n"}) {
    SCOPED_TRACE(fields.empty() ? "hopper" : "nvlink5");
    const auto health = health_with("gb200_tray_healthy", counts + fields);
    ASSERT_EQ(health.size(), 4u);
    const ProbeResult& r = health[0];
    EXPECT_EQ(r.metrics.at("nvlink_recoveries").value, 3.0);
    EXPECT_EQ(r.metrics.at("nvlink_errors").value, 40.0);
    EXPECT_EQ(r.params.at("nvlink_link_errors"),
              (nlohmann::json{{"5", {{"recoveries", 1}, {"errors", 40}}}, {"9", {{"recoveries", 2}, {"errors", 0}}}}));

    Profile profile = load_profile_file(fs::path(IBGPU_PROFILES) / "gb200-nvl72-tray.toml");
    HostInventory host;
    host.name = "n1";
    auto judged = [&](const Profile& p) { return judge_local_health({host}, {r}, p); };
    const auto gpu0 = [](const std::vector<Verdict>& v) {
      return *std::find_if(v.begin(), v.end(), [](const Verdict& x) { return x.entity == Entity::gpu("n1", "gpu0"); });
    };
    EXPECT_EQ(gpu0(judged(profile)).state, HealthState::healthy);  // not judged: the shipped profile sets no limit
    profile.gpu.nvlink_recoveries_degraded = 3;
    profile.gpu.nvlink_errors_degraded = 41;
    const Verdict v = gpu0(judged(profile));
    EXPECT_EQ(v.state, HealthState::degraded);
    ASSERT_EQ(codes(v), std::vector<std::string>{"GPU_NVLINK_ERRORS"});
    EXPECT_EQ(v.reasons[0].message,
              "3 NVLink recoveries since the counters were reset (most on link 9: 2), the profile allows fewer than 3");
  }
  // A GPU with no errors has its counts (0), and no per-link entry.
  const auto clean = health_with("gb200_tray_healthy", "");
  EXPECT_EQ(clean[1].metrics.at("nvlink_recoveries").value, 0.0);
  EXPECT_FALSE(clean[1].params.contains("nvlink_link_errors"));
}

TEST(NvmlInjection, ThermalSlowdownDegradesThatGpuAndKeepsItUsable) {
  const Checked c = check("h100_thermal_slowdown");
  EXPECT_EQ(c.record("gpu2").metrics.at("temp_C").value, 88.0);
  EXPECT_EQ(c.gpu(2).state, HealthState::degraded);
  EXPECT_EQ(codes(c.gpu(2)), std::vector<std::string>{"GPU_THERMAL_SLOWDOWN"});
  expect_others_healthy(c, {2});
  EXPECT_EQ(c.node().state, HealthState::degraded);
  EXPECT_EQ(c.node().action, Action::admit_degraded);
  EXPECT_TRUE(c.node().excluded.empty());
}

TEST(NvmlInjection, Gen4LinkInAGen5SlotIsDowntrained) {
  const Checked c = check("h100_pcie_gen4");
  EXPECT_EQ(c.gpu(6).state, HealthState::degraded);
  EXPECT_EQ(codes(c.gpu(6)), std::vector<std::string>{"GPU_PCIE_DOWNTRAINED"});
  EXPECT_EQ(c.gpu(6).reasons[0].message, "PCIe Gen4 of Gen5 at P0");
  expect_others_healthy(c, {6});
  EXPECT_EQ(c.node().action, Action::admit_degraded);
  EXPECT_TRUE(c.node().excluded.empty());
}

TEST(NvmlInjection, NoPermissionOnOneGpuIsThatGpusErrorAlone) {
  const Checked c = check("h100_no_permission");
  // NVML counts the GPU: the inventory lists it, undescribed, with the failure.
  ASSERT_EQ(c.system.gpus.size(), 8u);
  EXPECT_TRUE(c.system.gpus[1].pci_bus_id.empty());
  ASSERT_EQ(c.system.failures.count(1), 1u);
  EXPECT_EQ(c.system.failures.at(1).call, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_EQ(c.system.failures.at(1).text, "Insufficient Permissions");
  ASSERT_EQ(c.health.size(), 8u);
  const ProbeResult& r = c.record("gpu1");
  EXPECT_EQ(r.status, ProbeStatus::error);
  EXPECT_EQ(r.error, "gpu1: nvmlDeviceGetHandleByIndex_v2: Insufficient Permissions");
  EXPECT_EQ(c.gpu(1).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(1)), std::vector<std::string>{"PROBE_ERROR"});
  expect_others_healthy(c, {1});
  expect_admitted_without(c, 1);
}

TEST(NvmlInjection, NotSupportedIsNoFindingButALostGpuFails) {
  const Checked c = check("h100_unsupported_vs_lost");
  const ProbeResult& unsupported = c.record("gpu2");
  EXPECT_EQ(unsupported.status, ProbeStatus::ok);
  EXPECT_FALSE(unsupported.metrics.at("temp_C").value.has_value());
  EXPECT_FALSE(unsupported.metrics.at("persistence_mode").value.has_value());
  EXPECT_EQ(unsupported.metrics.at("nvlink_links_up").value, 18.0);
  EXPECT_EQ(c.gpu(2).state, HealthState::healthy);

  const ProbeResult& lost = c.record("gpu6");
  EXPECT_EQ(lost.status, ProbeStatus::failed);
  EXPECT_EQ(lost.error, "gpu6: nvmlDeviceGetPciInfo_v3: GPU is lost");
  EXPECT_EQ(c.gpu(6).state, HealthState::failed);
  EXPECT_EQ(codes(c.gpu(6)), std::vector<std::string>{"GPU_LOST"});
  ASSERT_EQ(c.system.failures.count(6), 1u);
  EXPECT_TRUE(c.system.failures.at(6).gpu_lost);
  expect_others_healthy(c, {6});
  expect_admitted_without(c, 6);
}

TEST(NvmlInjection, WithoutAScenarioNvmlDoesNotInitialise) {
  unsetenv("IBGPU_NVML_SCENARIO");
  const Nvml nvml(IBGPU_NVML_INJECTION);
  EXPECT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.why_not(), "nvmlInit failed: Driver Not Loaded");
  const auto results = check_gpu_health("n1", nvml);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ProbeStatus::skipped);
}

}  // namespace
}  // namespace ibgpu
