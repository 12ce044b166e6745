#pragma once
// Synthetic check results for judge tests and the benchmark: N hosts with G
// GPUs and R rails each, verbs bandwidth and latency per rail for the pairs of
// circle-method rounds (rail i of one host with rail i of its partner, as a
// check with one rank per GPU runs them), and one intra-node all-reduce per
// host. Values carry a small deterministic jitter, as real runs do.
// Header-only: the test build globs only *_test.cpp files.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "probes/gpu/gpu_health.h"

namespace ibgpu::testing {

struct FleetShape {
  int hosts = 64;
  int gpus = 8;
  int rails = 8;
  int rounds = 8;  // circle-method rounds run (all pairs: hosts - 1)
  std::size_t bw_size = std::size_t{8} << 20;
  std::size_t allreduce_size = std::size_t{1} << 30;
  double bw_GBps = 48.8;
  double lat_p50_us = 1.3, lat_p99_us = 2.2;
  double busbw_GBps = 470;
};

inline std::string host_name(int i) {
  char text[16];
  std::snprintf(text, sizeof text, "node%02d", i);
  return text;
}

inline std::string rail_name(int r) { return "mlx5_" + std::to_string(r) + ":1"; }

// +-1%, the same for the same inputs.
inline double jitter(double v, int a, int b, int c) {
  const unsigned h = static_cast<unsigned>(a * 7919 + b * 104729 + c * 1299709) * 2654435761u;
  return v * (0.99 + 0.02 * static_cast<double>(h % 1000) / 1000.0);
}

inline HostInventory make_host(const FleetShape& f, int i) {
  HostInventory h;
  h.name = host_name(i);
  for (int g = 0; g < f.gpus; ++g) h.ranks.push_back(i * f.gpus + g);
  for (int g = 0; g < f.gpus; ++g) h.gpus.push_back(GpuInfo{g, "NVIDIA H100 80GB HBM3", "", "", 79.6, ""});
  for (int r = 0; r < f.rails; ++r) {
    Hca hca;
    hca.name = "mlx5_" + std::to_string(r);
    IbPort port;
    port.port = 1;
    port.state = CodedState{4, "ACTIVE"};
    port.phys_state = CodedState{5, "LinkUp"};
    port.rate_text = "400 Gb/sec (4X NDR)";
    port.rate = LinkRate{400, 4, "NDR"};
    port.link_layer = "InfiniBand";
    hca.ports = {port};
    h.hcas.push_back(hca);
  }
  h.versions = {{"rdma_core", "50.0"}};
  return h;
}

// Round k of the circle method over n hosts (n even: host n-1 stays, the rest rotate).
inline std::vector<std::pair<int, int>> circle_round(int n, int k) {
  std::vector<std::pair<int, int>> pairs;
  const int m = n - 1;
  pairs.emplace_back(std::min(k % m, m), m);
  for (int i = 1; i < n / 2; ++i) {
    const int a = (k + i) % m, b = (k - i + m) % m;
    pairs.emplace_back(std::min(a, b), std::max(a, b));
  }
  return pairs;
}

struct PairShape {
  double bw_GBps, lat_p50_us, lat_p99_us;
  ProbeStatus status = ProbeStatus::ok;
};

// Lets a test change one pair's figures: (host a, host b, rail) -> shape.
using PairTweak = std::function<void(int a, int b, int rail, PairShape& shape)>;

inline ProbeResult pair_probe(const std::string& id, int a, int b, int rail, const FleetShape& f, std::size_t size) {
  ProbeResult p;
  p.id = id;
  p.scope.hosts = {host_name(a), host_name(b)};
  p.scope.ranks = {a * f.gpus + rail, b * f.gpus + rail};
  p.scope.devices = {rail_name(rail), rail_name(rail)};
  p.params = {{"size_B", size}, {"round", 0}};
  return p;
}

inline Stats latency_stats(double p50, double p99) {
  Stats s;
  s.n = 1000;
  s.min = p50 * 0.9;
  s.p50 = p50;
  s.p90 = (p50 + p99) / 2;
  s.p99 = p99;
  s.p999 = p99 * 1.2;
  s.max = p99 * 1.5;
  s.mean = p50 * 1.05;
  s.stddev = 0.1;
  return s;
}

inline void add_pair_results(std::vector<ProbeResult>& out, const FleetShape& f, int a, int b, int rail,
                             const PairTweak& tweak) {
  PairShape s{jitter(f.bw_GBps, a, b, rail), jitter(f.lat_p50_us, a, b, rail + 8),
              jitter(f.lat_p99_us, a, b, rail + 16)};
  if (tweak) tweak(a, b, rail, s);
  ProbeResult bw = pair_probe("net.verbs.write_bw", a, b, rail, f, f.bw_size);
  ProbeResult lat = pair_probe("net.verbs.write_lat", a, b, rail, f, 8);
  if (s.status != ProbeStatus::ok) {
    for (ProbeResult* p : {&bw, &lat}) {
      p->status = s.status;
      p->params.erase("size_B");
      p->error = "no answer to the meeting from host " + host_name(b) + ": silent for 60 s";
    }
  } else {
    bw.metrics["bw_avg_GBps"] = Metric::of(s.bw_GBps);
    bw.metrics["bw_avg_Gbps"] = Metric::of(s.bw_GBps * 8);
    lat.metrics["lat_us"] = Metric::of(latency_stats(s.lat_p50_us, s.lat_p99_us));
  }
  out.push_back(std::move(bw));
  out.push_back(std::move(lat));
}

inline ProbeResult node_allreduce(const FleetShape& f, int host, double busbw) {
  ProbeResult p;
  p.id = "collective.nccl.all_reduce";
  p.scope.hosts = {host_name(host)};
  for (int g = 0; g < f.gpus; ++g) p.scope.ranks.push_back(host * f.gpus + g);
  p.params = {{"size_B", f.allreduce_size},
              {"count", f.allreduce_size / 4},
              {"dtype", "f32"},
              {"in_place", false},
              {"iters", 20},
              {"warmup", 5},
              {"nranks", f.gpus}};
  p.metrics["busbw_GBps"] = Metric::of(busbw);
  p.metrics["wrong_elements"] = Metric::of(0);
  return p;
}

struct SyntheticRun {
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
};

inline SyntheticRun synthetic_run(const FleetShape& f, const PairTweak& tweak = {}) {
  SyntheticRun run;
  for (int i = 0; i < f.hosts; ++i) run.hosts.push_back(make_host(f, i));
  for (int k = 0; k < f.rounds; ++k)
    for (auto [a, b] : circle_round(f.hosts, k))
      for (int r = 0; r < f.rails; ++r) add_pair_results(run.probes, f, a, b, r, tweak);
  for (int i = 0; i < f.hosts; ++i) run.probes.push_back(node_allreduce(f, i, jitter(f.busbw_GBps, i, 0, 99)));
  // Every GPU's NVML record, all clean (a GPU without one is unchecked: unknown).
  for (const auto& host : run.hosts)
    for (const auto& gpu : host.gpus) {
      GpuHealth clean;
      clean.index = gpu.index;
      run.probes.push_back(gpu_health_result(host.name, clean));
    }
  return run;
}

}  // namespace ibgpu::testing
