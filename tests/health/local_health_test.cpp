// Local health rules: RDMA ports from fixture sysfs trees in kernel format,
// counter deltas between two reads, and GPU rules from recorded NVML values.
#include "health/local_health.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "health/admission.h"
#include "health/judge.h"
#include "health/profile_file.h"
#include "probes/gpu/gpu_health.h"
#include "probes/ib/counters.h"
#include "probes/ib/ports.h"
#include "probes/kernel_log.h"
#include "probes/pci.h"
#include "probes/topology.h"
#include "tests/core/names.h"
#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

HostInventory host_from(const std::string& fixture, const std::string& name = "n1") {
  HostInventory h;
  h.name = name;
  h.hcas = read_hcas(Sysfs(testing::kSysfsFixtures / fixture));
  return h;
}

const Verdict* find(const std::vector<Verdict>& vs, const std::string& kind, const std::string& id) {
  auto it = std::find_if(vs.begin(), vs.end(), [&](const Verdict& v) {
    return v.entity.kind() == testing::kind(kind) && v.entity.id() == id;
  });
  return it == vs.end() ? nullptr : &*it;
}

const Reason* reason(const Verdict* v, const std::string& code) {
  if (!v) return nullptr;
  auto it = std::find_if(v->reasons.begin(), v->reasons.end(),
                         [&](const Reason& r) { return r.code == testing::code(code); });
  return it == v->reasons.end() ? nullptr : &*it;
}

std::vector<std::string> codes(const Verdict* v) {
  std::vector<std::string> out;
  if (v)
    for (const auto& r : v->reasons) out.push_back(std::string(to_string(r.code)));
  return out;
}

// ---- RDMA ports from fixture trees ---------------------------------------------

TEST(LocalHealthPorts, HealthyNdrPortsMeetTheNdrExpectation) {
  Profile limits;
  limits.node.port_rate_gbps = 400;
  limits.node.port_width = 4;
  limits.node.expect_active_ports = 2;
  const auto vs = judge_local_health({host_from("cx7-ndr")}, {}, limits);
  for (const std::string id : {"n1/mlx5_0:1", "n1/mlx5_1:1"}) {
    const Verdict* v = find(vs, "hca_port", id);
    ASSERT_NE(v, nullptr) << id;
    EXPECT_EQ(v->state, HealthState::healthy) << id;
    EXPECT_TRUE(v->reasons.empty()) << id;
  }
  EXPECT_EQ(reason(find(vs, "node", "n1"), "IB_PORTS_MISSING"), nullptr);
}

TEST(LocalHealthPorts, HdrPortOnAnNdrHcaIsDegradedForRateAndCapability) {
  Profile limits;
  limits.node.port_rate_gbps = 400;
  const auto vs = judge_local_health({host_from("degraded")}, {}, limits);
  const Verdict* v = find(vs, "hca_port", "n1/mlx5_0:1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->state, HealthState::degraded);
  const Reason* rate = reason(v, "IB_PORT_RATE_LOW");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->metric, "rate_Gbps");
  EXPECT_EQ(rate->value, 200.0);
  EXPECT_EQ(rate->threshold, 400.0);
  EXPECT_NE(reason(v, "IB_PORT_SPEED_BELOW_CAPABILITY"), nullptr);  // MT4129 trains to NDR
  EXPECT_EQ(reason(v, "IB_PORT_WIDTH_LOW"), nullptr);               // still 4X
}

TEST(LocalHealthPorts, TwoLaneNdrPortIsDegradedForWidthButNotSpeed) {
  Profile limits;
  limits.node.port_width = 4;
  const auto vs = judge_local_health({host_from("degraded")}, {}, limits);
  const Verdict* v = find(vs, "hca_port", "n1/mlx5_1:1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->state, HealthState::degraded);
  const Reason* width = reason(v, "IB_PORT_WIDTH_LOW");
  ASSERT_NE(width, nullptr);
  EXPECT_EQ(width->value, 2.0);
  EXPECT_EQ(width->threshold, 4.0);
  EXPECT_EQ(reason(v, "IB_PORT_SPEED_BELOW_CAPABILITY"), nullptr);
  EXPECT_EQ(reason(v, "IB_PORT_RATE_LOW"), nullptr);  // no rate expectation given
}

TEST(LocalHealthPorts, DownPortFailsAndCountsAgainstExpectedPorts) {
  Profile limits;
  limits.node.expect_active_ports = 4;
  const auto vs = judge_local_health({host_from("degraded")}, {}, limits);
  const Verdict* down = find(vs, "hca_port", "n1/mlx5_2:1");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->state, HealthState::failed);
  EXPECT_EQ(codes(down), std::vector<std::string>{"IB_PORT_DOWN"});
  const Reason* missing = reason(find(vs, "node", "n1"), "IB_PORTS_MISSING");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->value, 3.0);
  EXPECT_EQ(missing->threshold, 4.0);
}

TEST(LocalHealthPorts, EthernetPortIsNotHeldToInfinibandCapability) {
  const auto vs = judge_local_health({host_from("degraded")}, {}, Profile{});
  const Verdict* roce = find(vs, "hca_port", "n1/mlx5_3:1");
  ASSERT_NE(roce, nullptr);
  EXPECT_EQ(roce->state, HealthState::healthy);
}

// ---- counters: two reads of a port that errs during the run --------------------------

std::vector<ProbeResult> fixture_deltas(double seconds) {
  const auto before = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-before"), 100.0);
  const auto after = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-after"), 100.0 + seconds);
  return counter_deltas("n1", before, after);
}

TEST(LocalHealthCounters, LinkDownedDuringTheRunFailsThePort) {
  const auto vs = judge_local_health({host_from("counters-after")}, fixture_deltas(600), Profile{});
  const Verdict* v = find(vs, "hca_port", "n1/mlx5_0:1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->state, HealthState::failed);
  const Reason* downed = reason(v, "IB_LINK_DOWNED");
  ASSERT_NE(downed, nullptr);
  EXPECT_EQ(downed->value, 1.0);
}

TEST(LocalHealthCounters, SymbolErrorRateIsJudgedPerHourNotAsAnyError) {
  // symbol_error rose 2 -> 29 (27 errors) and link_error_recovery 0 -> 1.
  Profile limits;
  limits.counters.symbol_error_per_hour_degraded = 100;
  limits.counters.link_error_recovery_per_hour_degraded = 100;
  // 27 in 10 minutes is 162 per hour: over the limit.
  auto vs = judge_local_health({host_from("counters-after")}, fixture_deltas(600), limits);
  const Reason* fast = reason(find(vs, "hca_port", "n1/mlx5_0:1"), "IB_SYMBOL_ERRORS");
  ASSERT_NE(fast, nullptr);
  EXPECT_DOUBLE_EQ(*fast->value, 162.0);
  EXPECT_EQ(fast->threshold, 100.0);
  EXPECT_EQ(reason(find(vs, "hca_port", "n1/mlx5_0:1"), "IB_LINK_ERROR_RECOVERY"), nullptr);  // 6 per hour
  // The same 27 over two hours is 13.5 per hour: within the limit.
  vs = judge_local_health({host_from("counters-after")}, fixture_deltas(7200), limits);
  EXPECT_EQ(reason(find(vs, "hca_port", "n1/mlx5_0:1"), "IB_SYMBOL_ERRORS"), nullptr);
}

TEST(LocalHealthCounters, QuietCountersLeaveAHealthyPortHealthy) {
  const auto snap = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-before"), 0);
  auto later = snap;
  later.taken_s = 60;
  const auto vs = judge_local_health({host_from("counters-before")}, counter_deltas("n1", snap, later), Profile{});
  const Verdict* v = find(vs, "hca_port", "n1/mlx5_0:1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->state, HealthState::healthy);
}

// ---- GPUs from recorded NVML values ---------------------------------------------------

HostInventory gpu_host(int gpus) {
  HostInventory h;
  h.name = "g1";
  for (int i = 0; i < gpus; ++i) {
    char pci[32];
    std::snprintf(pci, sizeof pci, "00000000:%02X:00.0", 0x18 + i);
    h.gpus.push_back(GpuInfo{i, "NVIDIA H200", "GPU-" + std::to_string(i), pci, 139.8, ""});
  }
  return h;
}

GpuHealth good_gpu(int index) {
  GpuHealth g;
  g.index = index;
  g.ecc_enabled = true;
  g.ecc_uncorrected_volatile = 0;
  g.ecc_uncorrected_aggregate = 0;
  g.retired_pages_pending = false;
  g.remap_pending = false;
  g.remap_failed = false;
  g.temp_C = 40;
  g.clocks_event_reasons = 0x1;  // idle: no fault
  g.pstate = 0;
  g.pcie_gen = 5;
  g.pcie_gen_max = 5;
  g.pcie_width = 16;
  g.pcie_width_max = 16;
  g.nvlink_links_total = 18;
  g.nvlink_links_up = 18;
  g.persistence_mode = true;
  return g;
}

struct GpuCase {
  std::string name;
  void (*spoil)(GpuHealth&);
  HealthState state;
  std::string code;
};

TEST(LocalHealthGpu, EachRuleOnOneSpoiledValue) {
  const std::vector<GpuCase> cases{
      {"volatile uncorrectable ECC", [](GpuHealth& g) { g.ecc_uncorrected_volatile = 2; }, HealthState::failed,
       "GPU_ECC_UNCORRECTABLE"},
      {"ECC off", [](GpuHealth& g) { g.ecc_enabled = false; }, HealthState::degraded, "GPU_ECC_DISABLED"},
      {"remap pending", [](GpuHealth& g) { g.remap_pending = true; }, HealthState::failed, "GPU_REMAP_PENDING"},
      {"remap failed", [](GpuHealth& g) { g.remap_failed = true; }, HealthState::failed, "GPU_REMAP_FAILED"},
      {"retirement pending", [](GpuHealth& g) { g.retired_pages_pending = true; }, HealthState::failed,
       "GPU_RETIRED_PAGES_PENDING"},
      {"HW thermal slowdown", [](GpuHealth& g) { g.clocks_event_reasons = 0x40; }, HealthState::degraded,
       "GPU_THERMAL_SLOWDOWN"},
      {"SW thermal slowdown", [](GpuHealth& g) { g.clocks_event_reasons = 0x20 | 0x4; }, HealthState::degraded,
       "GPU_THERMAL_SLOWDOWN"},
      {"power brake", [](GpuHealth& g) { g.clocks_event_reasons = 0x80; }, HealthState::degraded, "GPU_POWER_SLOWDOWN"},
      {"x8 of x16", [](GpuHealth& g) { g.pcie_width = 8; }, HealthState::degraded, "GPU_PCIE_DOWNTRAINED"},
      {"Gen4 of Gen5 at P0", [](GpuHealth& g) { g.pcie_gen = 4; }, HealthState::degraded, "GPU_PCIE_DOWNTRAINED"},
      {"one NVLink down", [](GpuHealth& g) { g.nvlink_links_up = 17; }, HealthState::failed, "GPU_NVLINK_DOWN"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    GpuHealth bad = good_gpu(1);
    c.spoil(bad);
    const auto vs = judge_local_health({gpu_host(2)},
                                       {gpu_health_result("g1", good_gpu(0)), gpu_health_result("g1", bad)}, Profile{});
    const Verdict* v = find(vs, "gpu", "g1/gpu1");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->state, c.state);
    EXPECT_EQ(codes(v), std::vector<std::string>{c.code});
    const Verdict* healthy = find(vs, "gpu", "g1/gpu0");
    ASSERT_NE(healthy, nullptr);
    EXPECT_EQ(healthy->state, HealthState::healthy);
    EXPECT_TRUE(healthy->reasons.empty());
  }
}

TEST(LocalHealthGpu, EveryNvLinkDownIsNotJudgedAsAFault) {
  // A PCIe GPU without a bridge: NVML lists its links, all down.
  GpuHealth pcie = good_gpu(0);
  pcie.nvlink_links_up = 0;
  const auto vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", pcie)}, Profile{});
  const Verdict* v = find(vs, "gpu", "g1/gpu0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->state, HealthState::healthy);
}

// With the profile's NVLink keys: every link down is a fault (the profile says the GPU has links),
// fewer links than it says, and a link up below its speed; each judged alone, the rest healthy.
TEST(LocalHealthGpu, NvLinksAgainstTheProfile) {
  Profile nvl;
  nvl.gpu.nvlink_links = 18;
  nvl.gpu.nvlink_speed_MBps = 53125;
  struct Case {
    std::string name;
    void (*spoil)(GpuHealth&);
    HealthState state;
    std::string code, message;
  };
  const std::vector<Case> cases{
      {"every link down",
       [](GpuHealth& g) {
         g.nvlink_links_up = 0;
         g.nvlinks_down = {0, 1};  // (a shortened list: the message names what NVML named)
       },
       HealthState::failed, "GPU_NVLINK_DOWN", "18 of 18 NVLinks down (link 0, 1)"},
      {"twelve links", [](GpuHealth& g) { g.nvlink_links_total = g.nvlink_links_up = 12; }, HealthState::failed,
       "GPU_NVLINK_DOWN", "12 NVLinks, the profile expects 18"},
      {"a slow link",
       [](GpuHealth& g) {
         g.nvlink_speed_min_MBps = 26562;
         g.nvlink_slowest = 4;
       },
       HealthState::degraded, "GPU_NVLINK_SLOW", "link 4 at 26562 MB/s, the profile expects 53125"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    GpuHealth g = good_gpu(0);
    g.nvlink_speed_min_MBps = 53125;
    g.nvlink_slowest = 0;
    c.spoil(g);
    const auto vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", g)}, nvl);
    const Verdict* v = find(vs, "gpu", "g1/gpu0");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->state, c.state);
    EXPECT_EQ(codes(v), std::vector<std::string>{c.code});
    ASSERT_FALSE(v->reasons.empty());
    EXPECT_EQ(v->reasons[0].message, c.message);
  }
  // Without the keys, a slow link and twelve links are not judged.
  GpuHealth slow = good_gpu(0);
  slow.nvlink_speed_min_MBps = 26562;
  slow.nvlink_links_total = slow.nvlink_links_up = 12;
  EXPECT_EQ(
      find(judge_local_health({gpu_host(1)}, {gpu_health_result("g1", slow)}, Profile{}), "gpu", "g1/gpu0")->state,
      HealthState::healthy);
}

// The NVLink fabric, judged only where the profile says the GPUs register with one (NVL72 trays).
TEST(LocalHealthGpu, NvLinkFabricRegistrationWhenTheProfileAsks) {
  Profile tray;
  tray.gpu.nvlink_fabric = true;
  struct Case {
    std::string name;
    void (*set)(GpuHealth&);
    HealthState state;
    std::string code;  // "" for none
  };
  const std::vector<Case> cases{
      {"registered, healthy",
       [](GpuHealth& g) {
         g.fabric_state = 3;
         g.fabric_health = 1;
       },
       HealthState::healthy, ""},
      {"registered, no health summary (v2)", [](GpuHealth& g) { g.fabric_state = 3; }, HealthState::healthy, ""},
      {"in progress", [](GpuHealth& g) { g.fabric_state = 2; }, HealthState::failed, "GPU_FABRIC_NOT_REGISTERED"},
      {"completed with an error",
       [](GpuHealth& g) {
         g.fabric_state = 3;
         g.fabric_error = "Timeout";
       },
       HealthState::failed, "GPU_FABRIC_NOT_REGISTERED"},
      {"unhealthy",
       [](GpuHealth& g) {
         g.fabric_state = 3;
         g.fabric_health = 2;
       },
       HealthState::failed, "GPU_FABRIC_UNHEALTHY"},
      {"limited capacity",
       [](GpuHealth& g) {
         g.fabric_state = 3;
         g.fabric_health = 3;
       },
       HealthState::degraded, "GPU_FABRIC_UNHEALTHY"},
      {"no fabric state", [](GpuHealth&) {}, HealthState::unknown, "GPU_FABRIC_NOT_REGISTERED"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    GpuHealth g = good_gpu(0);
    c.set(g);
    const auto vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", g)}, tray);
    const Verdict* v = find(vs, "gpu", "g1/gpu0");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->state, c.state);
    EXPECT_EQ(codes(v), c.code.empty() ? std::vector<std::string>{} : std::vector<std::string>{c.code});
    // Without nvlink_fabric the same GPU is not judged on its fabric.
    EXPECT_EQ(find(judge_local_health({gpu_host(1)}, {gpu_health_result("g1", g)}, Profile{}), "gpu", "g1/gpu0")->state,
              HealthState::healthy);
  }
}

TEST(LocalHealthGpu, IdleGpuAtALowerPcieGenerationIsNotDowntrained) {
  GpuHealth idle = good_gpu(0);
  idle.pcie_gen = 1;  // power saving at P8
  idle.pstate = 8;
  const auto vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", idle)}, Profile{});
  EXPECT_EQ(find(vs, "gpu", "g1/gpu0")->state, HealthState::healthy);
}

TEST(LocalHealthGpu, PersistenceModeOffIsDegradedOnlyWhenTheProfileRequiresIt) {
  GpuHealth off = good_gpu(0);
  off.persistence_mode = false;
  EXPECT_EQ(find(judge_local_health({gpu_host(1)}, {gpu_health_result("g1", off)}, Profile{}), "gpu", "g1/gpu0")->state,
            HealthState::healthy);
  Profile strict;
  strict.gpu.require_persistence_mode = true;
  const auto vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", off)}, strict);
  EXPECT_EQ(find(vs, "gpu", "g1/gpu0")->state, HealthState::degraded);
  EXPECT_NE(reason(find(vs, "gpu", "g1/gpu0"), "GPU_PERSISTENCE_OFF"), nullptr);
}

TEST(LocalHealthGpu, TemperatureLimitsApplyOnlyWhenSet) {
  GpuHealth hot = good_gpu(0);
  hot.temp_C = 91;
  EXPECT_EQ(find(judge_local_health({gpu_host(1)}, {gpu_health_result("g1", hot)}, Profile{}), "gpu", "g1/gpu0")->state,
            HealthState::healthy);
  Profile limits;
  limits.gpu.temp_degraded_C = 85;
  limits.gpu.temp_failed_C = 95;
  auto vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", hot)}, limits);
  EXPECT_EQ(find(vs, "gpu", "g1/gpu0")->state, HealthState::degraded);
  hot.temp_C = 96;
  vs = judge_local_health({gpu_host(1)}, {gpu_health_result("g1", hot)}, limits);
  const Verdict* v = find(vs, "gpu", "g1/gpu0");
  EXPECT_EQ(v->state, HealthState::failed);
  ASSERT_NE(reason(v, "GPU_TEMP_HIGH"), nullptr);
  EXPECT_EQ(reason(v, "GPU_TEMP_HIGH")->threshold, 95.0);
}

TEST(LocalHealthGpu, MissingGpusFailTheNode) {
  Profile limits;
  limits.node.expect_gpus = 8;
  const auto vs = judge_local_health({gpu_host(7)}, {}, limits);
  const Reason* r = reason(find(vs, "node", "g1"), "GPU_MISSING");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(find(vs, "node", "g1")->state, HealthState::failed);
  EXPECT_EQ(r->value, 7.0);
  EXPECT_EQ(r->threshold, 8.0);
}

TEST(LocalHealthGpu, SkippedNvmlLeavesTheNodeUnknownUnlessNoGpusAreExpected) {
  const HostInventory cpu_only = gpu_host(0);
  const std::vector<ProbeResult> probes{skipped(kGpuHealthProbe, Scope{{"g1"}, {}, {}}, "libnvidia-ml.so.1 not found")};
  auto vs = judge_local_health({cpu_only}, probes, Profile{});
  EXPECT_EQ(find(vs, "node", "g1")->state, HealthState::unknown);
  EXPECT_NE(reason(find(vs, "node", "g1"), "CHECK_SKIPPED"), nullptr);
  Profile none;
  none.node.expect_gpus = 0;
  vs = judge_local_health({cpu_only}, probes, none);
  const Verdict* node = find(vs, "node", "g1");
  EXPECT_TRUE(node == nullptr || node->state == HealthState::healthy);
}

TEST(LocalHealthGpu, GpuWithoutAHealthRecordIsUnknownNeverHealthy) {
  const auto vs = judge_local_health({gpu_host(2)}, {gpu_health_result("g1", good_gpu(0))}, Profile{});
  EXPECT_EQ(find(vs, "gpu", "g1/gpu0")->state, HealthState::healthy);
  EXPECT_EQ(find(vs, "gpu", "g1/gpu1")->state, HealthState::unknown);
}

TEST(LocalHealthGpu, SkippedCudaProbeOnAGpuIsUnknownAndWrongComputeFails) {
  ProbeResult copy = skipped("gpu.cuda.copy_bw", Scope{{"g1"}, {}, {"gpu0"}}, "no CUDA driver");
  ProbeResult compute;
  compute.id = "gpu.cuda.compute";
  compute.status = ProbeStatus::failed;
  compute.scope = Scope{{"g1"}, {}, {"gpu1"}};
  compute.error = "3 of 100 results wrong";
  const auto vs = judge_local_health(
      {gpu_host(2)}, {gpu_health_result("g1", good_gpu(0)), gpu_health_result("g1", good_gpu(1)), copy, compute},
      Profile{});
  EXPECT_EQ(find(vs, "gpu", "g1/gpu0")->state, HealthState::unknown);
  EXPECT_NE(reason(find(vs, "gpu", "g1/gpu0"), "CHECK_SKIPPED"), nullptr);
  EXPECT_EQ(find(vs, "gpu", "g1/gpu1")->state, HealthState::failed);
  EXPECT_NE(reason(find(vs, "gpu", "g1/gpu1"), "GPU_COMPUTE_WRONG"), nullptr);
}

TEST(LocalHealthGpu, OneFailedGpuOfTwoLeavesTheNodeDegradedWithTheUsableCount) {
  GpuHealth bad = good_gpu(1);
  bad.remap_pending = true;
  const auto vs = judge_local_health({gpu_host(2)},
                                     {gpu_health_result("g1", good_gpu(0)), gpu_health_result("g1", bad)}, Profile{});
  const Verdict* node = find(vs, "node", "g1");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->state, HealthState::degraded);
  const Reason* usable = reason(node, "GPUS_UNHEALTHY");
  ASSERT_NE(usable, nullptr);
  EXPECT_EQ(usable->value, 1.0);
  EXPECT_EQ(usable->threshold, 2.0);
}

// ---- kernel log findings ------------------------------------------------------------

TEST(LocalHealthKernelLog, HardwareXidFailsItsGpuAndAnApplicationXidDegrades) {
  const auto findings = parse_kernel_log(
      "[  10.0] NVRM: Xid (PCI:0000:19:00): 79, pid=1, name=python, GPU has fallen off the bus.\n"
      "[  11.0] NVRM: Xid (PCI:0000:18:00): 13, pid=2, name=python, Graphics Exception\n");
  const auto vs = judge_local_health(
      {gpu_host(2)},
      [&] {
        auto p = kernel_log_results("g1", findings, "fixture");
        p.push_back(gpu_health_result("g1", good_gpu(0)));
        p.push_back(gpu_health_result("g1", good_gpu(1)));
        return p;
      }(),
      Profile{});
  EXPECT_EQ(find(vs, "gpu", "g1/gpu1")->state, HealthState::failed);
  EXPECT_EQ(reason(find(vs, "gpu", "g1/gpu1"), "GPU_XID")->value, 79.0);
  EXPECT_EQ(find(vs, "gpu", "g1/gpu0")->state, HealthState::degraded);
}

TEST(LocalHealthKernelLog, RepeatedLinkDropsOnAnHcaDegradeItsPorts) {
  std::string log;
  for (int i = 0; i < 3; ++i) log += "mlx5_core 0000:17:00.0: mlx5_0: Port 1 link state changed to DOWN\n";
  const auto probes = kernel_log_results("n1", parse_kernel_log(log), "fixture");
  auto vs = judge_local_health({host_from("cx7-ndr")}, probes, Profile{});
  const Verdict* flapping = find(vs, "hca_port", "n1/mlx5_0:1");
  EXPECT_EQ(flapping->state, HealthState::degraded);
  EXPECT_EQ(reason(flapping, "IB_LINK_FLAP")->value, 3.0);
  EXPECT_EQ(find(vs, "hca_port", "n1/mlx5_1:1")->state, HealthState::healthy);
  Profile tolerant;
  tolerant.counters.link_down_events_degraded = 4;
  vs = judge_local_health({host_from("cx7-ndr")}, probes, tolerant);
  EXPECT_EQ(find(vs, "hca_port", "n1/mlx5_0:1")->state, HealthState::healthy);
}

// ---- through the general judge --------------------------------------------------------

TEST(LocalHealthInJudge, ProfileExpectationsReachTheLocalRules) {
  Profile profile;
  profile.node.expect_gpus = 1;
  HostInventory h = host_from("degraded");
  const Judgement j = judge({h}, {}, profile);
  const auto node = std::find_if(j.verdicts.begin(), j.verdicts.end(),
                                 [](const Verdict& v) { return v.entity.kind() == EntityKind::node; });
  ASSERT_NE(node, j.verdicts.end());
  EXPECT_NE(reason(&*node, "GPU_MISSING"), nullptr);
  EXPECT_EQ(node->state, HealthState::failed);
  EXPECT_EQ(node->action, Action::drain);
}

TEST(LocalHealthInJudge, OnlyPortDegradedLeavesTheNodeDegradedNotFailed) {
  HostInventory h = host_from("cx7-ndr");
  h.hcas.resize(1);
  auto& rate = h.hcas.at(0).ports.at(0);
  rate.rate_text = "200 Gb/sec (4X HDR)";
  rate.rate = parse_rate(rate.rate_text);
  const Judgement j = judge({h}, {}, Profile{});
  const auto node = std::find_if(j.verdicts.begin(), j.verdicts.end(),
                                 [](const Verdict& v) { return v.entity.kind() == EntityKind::node; });
  ASSERT_NE(node, j.verdicts.end());
  EXPECT_EQ(node->state, HealthState::degraded);
  EXPECT_EQ(node->action, Action::admit_degraded);
  EXPECT_EQ(j.summary.exit_code, 1);
}

}  // namespace
}  // namespace ibgpu

// ---- PCIe links and GPUs on the bus (sysfs, no driver needed) ------------------

namespace ibgpu {
namespace {

HostInventory h100_host_from_pci(int nvml_gpus) {
  HostInventory h;
  h.name = "n1";
  h.pci_gpus = read_pci_gpus(Sysfs(testing::kSysfsFixtures / "hgx-h100"));
  for (int i = 0; i < nvml_gpus; ++i) {
    GpuInfo g;
    g.index = i;
    g.pci_bus_id = "0000" + h.pci_gpus[static_cast<std::size_t>(i)].pci_address;  // NVML pads the domain to 8
    for (auto& c : g.pci_bus_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    h.gpus.push_back(g);
  }
  return h;
}

TEST(LocalHealthPci, GpuOnTheBusThatNvmlDoesNotListIsMissingByBusId) {
  const auto vs = judge_local_health({h100_host_from_pci(7)}, {}, generic_profile());
  const Reason* missing = reason(find(vs, "node", "n1"), "GPU_MISSING");
  ASSERT_NE(missing, nullptr);
  EXPECT_NE(missing->message.find("0000:d1:00.0"), std::string::npos) << missing->message;
  EXPECT_EQ(find(vs, "node", "n1")->state, HealthState::failed);
}

TEST(LocalHealthPci, EveryGpuListedOrNvmlAbsentIsNoFinding) {
  for (const int listed : {8, 0}) {  // 0: no driver, nothing to compare with
    const auto vs = judge_local_health({h100_host_from_pci(listed)}, {}, generic_profile());
    EXPECT_EQ(reason(find(vs, "node", "n1"), "GPU_MISSING"), nullptr) << listed;
  }
}

TEST(LocalHealthPci, NarrowGpuLinkWithoutNvmlDegradesTheNodeAndAnIdleSpeedDoesNot) {
  HostInventory h = h100_host_from_pci(0);
  h.pci_gpus[2].link.speed_GTps = 2.5;  // idle: the GPU lowered its link to save power
  auto vs = judge_local_health({h}, {}, generic_profile());
  EXPECT_EQ(codes(find(vs, "node", "n1")), std::vector<std::string>{});
  h.pci_gpus[3].link.width = 8;
  vs = judge_local_health({h}, {}, generic_profile());
  const Reason* narrow = reason(find(vs, "node", "n1"), "GPU_PCIE_DOWNTRAINED");
  ASSERT_NE(narrow, nullptr);
  EXPECT_NE(narrow->message.find("0000:52:00.0"), std::string::npos) << narrow->message;
  EXPECT_NE(narrow->message.find("x8 of x16"), std::string::npos) << narrow->message;
  EXPECT_EQ(find(vs, "node", "n1")->state, HealthState::degraded);
}

TEST(LocalHealthPci, DownTrainedHcaLinkDegradesItsPorts) {
  HostInventory h = host_from("cx7-ndr");
  ASSERT_EQ(h.hcas.size(), 2u);
  h.hcas[1].link = PciLink{16.0, 32.0, 16, 16};  // Gen4 in a Gen5 slot
  const auto vs = judge_local_health({h}, {}, generic_profile());
  EXPECT_EQ(codes(find(vs, "hca_port", "n1/mlx5_0:1")), std::vector<std::string>{});
  const Reason* slow = reason(find(vs, "hca_port", "n1/mlx5_1:1"), "HCA_PCIE_DOWNTRAINED");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->metric, "pcie_link_speed_GTps");
  EXPECT_EQ(slow->value, 16.0);
  EXPECT_EQ(slow->threshold, 32.0);
  EXPECT_EQ(find(vs, "hca_port", "n1/mlx5_1:1")->state, HealthState::degraded);
}

// The whole hgx-h100 node from its tree: the GPUs NVML lists (the first `nvml_gpus` on the bus),
// its HCAs and each GPU's nearest HCA, as the inventory reads them.
HostInventory hgx_h100_node(int nvml_gpus) {
  HostInventory h = h100_host_from_pci(nvml_gpus);
  const Sysfs sysfs(testing::kSysfsFixtures / "hgx-h100");
  h.hcas = read_hcas(sysfs);
  const auto on_the_bus = gpu_hca_affinity(sysfs, gpus_on_the_bus(h.pci_gpus), h.hcas);
  h.topology = nvml_gpus > 0 ? gpu_hca_affinity(sysfs, h.gpus, h.hcas) : on_the_bus;
  mark_rails(h.hcas, {h.topology, on_the_bus});
  return h;
}

// A clean NVML health record for each of the node's `n` GPUs.
std::vector<ProbeResult> clean_records(int n) {
  std::vector<ProbeResult> out;
  for (int i = 0; i < n; ++i) out.push_back(gpu_health_result("n1", good_gpu(i)));
  return out;
}

TEST(LocalHealthPci, StoragePortsAreNotHeldToTheRailRulesNorCounted) {
  const Profile h100 = load_profile_file(fs::path(IBGPU_SOURCE_DIR) / "profiles" / "hgx-h100-ndr.toml");
  HostInventory h = hgx_h100_node(8);
  auto vs = judge_local_health({h}, clean_records(8), h100);
  // mlx5_1/mlx5_7 (200 Gb/s 2X storage) and mlx5_2/mlx5_8 (in-band Ethernet) break no 400 Gb/s 4X rule.
  for (const char* port : {"n1/mlx5_1:1", "n1/mlx5_2:1", "n1/mlx5_7:1", "n1/mlx5_8:1"})
    EXPECT_EQ(codes(find(vs, "hca_port", port)), std::vector<std::string>{}) << port;
  EXPECT_EQ(codes(find(vs, "node", "n1")), std::vector<std::string>{});
  // A storage port down is degraded, said to be no rail; the eight rails still count.
  for (auto& hca : h.hcas)
    if (hca.name == "mlx5_1") hca.ports[0].state = CodedState{1, "DOWN"};
  vs = judge_local_health({h}, clean_records(8), h100);
  const Verdict* storage = find(vs, "hca_port", "n1/mlx5_1:1");
  ASSERT_NE(storage, nullptr);
  EXPECT_EQ(storage->state, HealthState::degraded);
  EXPECT_EQ(storage->reasons.at(0).message.rfind("not a rail (no GPU near it): state DOWN", 0), 0u)
      << storage->reasons.at(0).message;
  EXPECT_EQ(codes(find(vs, "node", "n1")), std::vector<std::string>{});
  // A rail down is failed and missing from the count.
  for (auto& hca : h.hcas)
    if (hca.name == "mlx5_5") hca.ports[0].state = CodedState{1, "DOWN"};
  vs = judge_local_health({h}, clean_records(8), h100);
  EXPECT_EQ(find(vs, "hca_port", "n1/mlx5_5:1")->state, HealthState::failed);
  EXPECT_EQ(codes(find(vs, "node", "n1")), std::vector<std::string>{"IB_PORTS_MISSING"});
}

TEST(LocalHealthPci, AGpuNvmlLostKeepsItsHcaARail) {
  const HostInventory h = hgx_h100_node(7);  // 0000:d1:00.0, the eighth, is on the bus only
  for (const auto& hca : h.hcas) {
    const bool storage = hca.name == "mlx5_1" || hca.name == "mlx5_2" || hca.name == "mlx5_7" || hca.name == "mlx5_8";
    EXPECT_EQ(hca.rail, !storage) << hca.name;
  }
  // Where no GPU is placed at all, every HCA is a rail.
  std::vector<Hca> hcas = h.hcas;
  mark_rails(hcas, {});
  for (const auto& hca : hcas) EXPECT_TRUE(hca.rail) << hca.name;
}

TEST(LocalHealthPci, NvmlGpuThePciBusDoesNotShowIsReportedOnThatGpu) {
  HostInventory h = hgx_h100_node(8);
  h.gpus[5].pci_bus_id = "00000000:E4:00.0";  // the bus shows no GPU there
  const auto vs = judge_local_health({h}, clean_records(8), generic_profile());
  const Reason* r = reason(find(vs, "gpu", "n1/gpu5"), "GPU_NOT_ON_PCI");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->message.find("0000:e4:00.0"), std::string::npos) << r->message;
  EXPECT_EQ(find(vs, "gpu", "n1/gpu5")->state, HealthState::degraded);
  // The bus GPU it should have been is missing from NVML: named by its own bus id.
  EXPECT_NE(reason(find(vs, "node", "n1"), "GPU_MISSING"), nullptr);
  // A bus that shows no GPUs at all (a container's /sys) is no evidence.
  h.pci_gpus.clear();
  EXPECT_EQ(reason(find(judge_local_health({h}, {}, generic_profile()), "gpu", "n1/gpu5"), "GPU_NOT_ON_PCI"), nullptr);
}

TEST(Admission, AFailedGpuTakesItsRailWhenTheProfileSaysAndStoragePortsAreNoParts) {
  const HostInventory h = hgx_h100_node(8);
  const std::vector<Verdict> judged{
      Verdict{Entity::gpu("n1", "gpu3"), HealthState::failed, {}, std::nullopt},
      Verdict{Entity::port("n1", "mlx5_7:1"), HealthState::failed, {}, std::nullopt},  // storage
  };
  NodeExpectations rail_aligned;
  rail_aligned.exclude_rail_with_gpu = true;
  for (const bool aligned : {true, false}) {
    std::vector<Verdict> vs = judged;
    decide_admission(vs, {h}, aligned ? rail_aligned : NodeExpectations{});
    const Verdict* node = find(vs, "node", "n1");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->action, Action::admit_degraded);
    const std::vector<std::string> excluded =
        aligned ? std::vector<std::string>{"gpu3", "mlx5_5:1"} : std::vector<std::string>{"gpu3"};
    EXPECT_EQ(node->excluded, excluded);
    EXPECT_EQ(node->usable.size(), aligned ? 14u : 15u);  // 7 GPUs and 7 or 8 rails, never a storage port
    EXPECT_EQ(std::count(node->usable.begin(), node->usable.end(), "mlx5_7:1"), 0);
  }
}

}  // namespace
}  // namespace ibgpu
