#pragma once
// Judged fleet reports for the table's golden and size tests: the synthetic
// fleet of tests/health/synthetic_fleet.h (hosts x 8 GPUs x 8 rails, verbs
// bandwidth and latency per rail), judged with the generic profile as a check
// run judges it, with faults: a slow node, a slow rail of another node, a pair
// that timed out on one rail, and a node without a driver (every local GPU check
// skipped, its all-reduce too). Hosts sit 32 to a leaf switch. At fleet scale (`many`), also one node in 64
// slow and two dead (every pair with them timed out). Header-only: the test build globs only
// *_test.cpp files.
#include <string>

#include "core/report.h"
#include "health/judge.h"
#include "health/profile.h"
#include "scheduler/kubernetes.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu::testing {

inline constexpr int kSlowNode = 5, kSlowRailNode = 2, kSlowRail = 3, kNoDriverNode = 1;

// The local results of a host without an NVIDIA driver, as a check writes them.
inline void without_driver(std::vector<ProbeResult>& probes, const std::string& host) {
  std::erase_if(probes, [&](const ProbeResult& p) {
    return p.scope.hosts.size() == 1 && p.scope.hosts[0] == host &&
           (p.id == kGpuHealthProbe || p.id == kNcclAllReduceProbe);
  });
  const Scope scope{{host}, {}, {}};
  probes.push_back(skipped(kGpuHealthProbe, scope,
                           "libnvidia-ml.so.1 not found (no NVIDIA driver on this host): libnvidia-ml.so.1: cannot "
                           "open shared object file: No such file or directory"));
  for (const char* id : {kGpuCopyBwProbe, kGpuMemBwProbe, kGpuComputeProbe})
    probes.push_back(
        skipped(id, scope, "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version"));
  probes.push_back(skipped(kNcclAllReduceProbe, Scope{{host}, {}, {}},
                           "libnccl.so.2 not found: libnccl.so.2: cannot open shared object file: No such file or "
                           "directory"));
}

// The leaf switch a topology file would place host i under: 32 hosts per leaf.
inline std::string leaf_name(int host) { return "leaf" + std::to_string(host / 32 + 1); }

inline bool slow_one_in_64(int host) { return host % 64 == 33; }
inline bool dead(int host) { return host == 4000 || host == 4001; }

inline Report fleet_report(int hosts, int rounds, bool many = false) {
  FleetShape f;
  f.hosts = hosts;
  f.rounds = rounds;
  SyntheticRun run = synthetic_run(f, [&](int a, int b, int rail, PairShape& s) {
    if (a == kSlowNode || b == kSlowNode) s.bw_GBps = 30;
    if ((a == kSlowRailNode || b == kSlowRailNode) && rail == kSlowRail) s.bw_GBps = 30;
    if (a == 0 && b == hosts - 1 && rail == 6) s.status = ProbeStatus::timeout;
    if (many && (slow_one_in_64(a) || slow_one_in_64(b))) s.bw_GBps = 30;
    if (many && (dead(a) || dead(b))) s.status = ProbeStatus::timeout;
  });
  without_driver(run.probes, host_name(kNoDriverNode));
  Report r;
  r.tool = ToolInfo{"ibgpu", "0.1.0", "0123456789ab"};
  r.run.id = "f1ee7f1ee7f1ee70";
  r.run.started = "2026-01-02T03:04:05Z";
  r.run.finished = "2026-01-02T03:09:05Z";
  r.run.command = {"ibgpu", "check", "--json", "fleet.json"};
  r.run.ranks = hosts * f.gpus;
  const Profile profile = generic_profile();
  r.run.profile = to_json(profile);
  Judgement j = judge(run.hosts, run.probes, profile);
  r.hosts = std::move(run.hosts);
  // As `check --topology` fills it; the judge reads the topology itself, so the verdicts are the same.
  for (std::size_t i = 0; i < r.hosts.size(); ++i) r.hosts[i].leaf = leaf_name(static_cast<int>(i));
  r.probes = std::move(run.probes);
  r.verdicts = std::move(j.verdicts);
  r.summary = std::move(j.summary);
  r.summary.kubernetes = kubernetes_map(r.verdicts);
  return r;
}

}  // namespace ibgpu::testing
