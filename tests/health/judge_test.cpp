// The judge over synthetic 64-node x 8-rail result sets: each fault produces
// exactly the expected verdicts and admission decisions, and nothing else.
#include "health/judge.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "health/profile_file.h"
#include "tests/core/names.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu {
namespace {

using testing::FleetShape;
using testing::host_name;
using testing::PairShape;
using testing::synthetic_run;

Profile h100() { return load_profile_file(std::string(IBGPU_SOURCE_DIR) + "/profiles/hgx-h100-ndr.toml"); }

// "kind id" -> state, for every verdict that is not healthy.
std::map<std::string, HealthState> unhealthy(const Judgement& j) {
  std::map<std::string, HealthState> out;
  for (const auto& v : j.verdicts)
    if (v.state != HealthState::healthy) out[entity_text(v.entity)] = v.state;
  return out;
}

// node -> action, for every node not simply admitted.
std::map<std::string, Action> not_admitted(const Judgement& j) {
  std::map<std::string, Action> out;
  for (const auto& v : j.verdicts)
    if (v.entity.kind() == EntityKind::node && v.action != Action::admit) out[v.entity.id()] = *v.action;
  return out;
}

const Verdict& verdict(const Judgement& j, const std::string& kind, const std::string& id) {
  for (const auto& v : j.verdicts)
    if (v.entity.kind() == testing::kind(kind) && v.entity.id() == id) return v;
  throw std::runtime_error("no verdict for " + kind + " " + id);
}

std::set<std::string> codes(const Verdict& v) {
  std::set<std::string> out;
  for (const auto& r : v.reasons) out.insert(std::string(to_string(r.code)));
  return out;
}

// The host each host meets in round k (circle method).
int partner_in_round(int n, int k, int host) {
  for (auto [a, b] : testing::circle_round(n, k)) {
    if (a == host) return b;
    if (b == host) return a;
  }
  return -1;
}

TEST(Judge, HealthyFleetAdmitsEveryNode) {
  const auto run = synthetic_run(FleetShape{});
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_TRUE(unhealthy(j).empty());
  EXPECT_EQ(j.summary.admit.size(), 64u);
  EXPECT_EQ(j.summary.exit_code, 0);
  const Verdict& node = verdict(j, "node", "node00");
  EXPECT_EQ(node.usable.size(), 16u);  // 8 GPUs and 8 rails
  EXPECT_TRUE(node.excluded.empty());
}

// The run's own pair-bandwidth noise, which check restates the plan's power at: the synthetic
// fleet's +-1% jitter (a spread of about 0.006), and none where a single pair cannot tell.
TEST(Judge, MeasuresTheRunsPairBandwidthNoiseWhereThereArePairsToTellIt) {
  const auto run = synthetic_run(FleetShape{});
  const double sigma = judge(run.hosts, run.probes, h100()).bw_sigma;
  EXPECT_GT(sigma, 0.001);
  EXPECT_LT(sigma, 0.02);
  FleetShape two;
  two.hosts = 2;
  two.rails = 1;
  two.rounds = 1;
  const auto pair = synthetic_run(two);
  EXPECT_EQ(judge(pair.hosts, pair.probes, h100()).bw_sigma, 0.0);
}

TEST(Judge, SlowNodeIsTheCulpritAndNoLinkIsBlamed) {
  const int slow = 5;
  const auto run = synthetic_run(FleetShape{}, [&](int a, int b, int, PairShape& s) {
    if (a == slow || b == slow) s.bw_GBps = 30;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node node05", HealthState::failed}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node05", Action::drain}}));
  const Verdict& v = verdict(j, "node", "node05");
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0].code, ReasonCode::IB_LINK_BW_LOW);
  EXPECT_DOUBLE_EQ(*v.reasons[0].threshold, 40.0);
  EXPECT_NEAR(*v.reasons[0].value, 30.0, 1e-9);
  // Its blame is as sure as its bad pairs together.
  ASSERT_TRUE(v.reasons[0].confidence);
  EXPECT_EQ(v.reasons[0].confidence->method, ConfidenceMethod::combined);
  EXPECT_EQ(v.reasons[0].confidence->level, ConfidenceLevel::certain);
  EXPECT_EQ(j.summary.exit_code, 2);
}

TEST(Judge, SlowLinkBlamesTheLinkNotTheNodes) {
  const int a = 10, b = partner_in_round(64, 3, 10);
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int rail, PairShape& s) {
    if (std::min(x, y) == std::min(a, b) && std::max(x, y) == std::max(a, b) && rail == 2) s.bw_GBps = 30;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  const std::string link = "link " + host_name(std::min(a, b)) + "<->" + host_name(std::max(a, b));
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{link, HealthState::failed}}));
  EXPECT_TRUE(not_admitted(j).empty());
  EXPECT_EQ(j.summary.exit_code, 1);  // every node admitted; a finding on the fabric
  // Its reason names the rail the link was slow on, which the message alone said before.
  const Reason& why = verdict(j, "link", host_name(std::min(a, b)) + "<->" + host_name(std::max(a, b))).reasons.at(0);
  EXPECT_EQ(why.probe, "net.verbs.write_bw");
  EXPECT_EQ(why.port, "mlx5_2:1");
  EXPECT_EQ(why.peer_port, "mlx5_2:1");
  EXPECT_EQ(why.confidence->level, ConfidenceLevel::certain);
}

// A localised blame under the failed floor by less than the run's noise (39.9 GB/s against 40,
// among thousands of pairs) is held to degraded, and its message says why.
TEST(Judge, ALinkJustUnderItsFailedFloorIsWeakEvidenceAndDegraded) {
  const int a = 10, b = partner_in_round(64, 3, 10);
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int rail, PairShape& s) {
    if (std::min(x, y) == std::min(a, b) && std::max(x, y) == std::max(a, b) && rail == 2) s.bw_GBps = 39.9;
  });
  const std::string id = host_name(std::min(a, b)) + "<->" + host_name(std::max(a, b));
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"link " + id, HealthState::degraded}}));
  const Reason& why = verdict(j, "link", id).reasons.at(0);
  EXPECT_EQ(why.code, ReasonCode::IB_LINK_BW_LOW);
  EXPECT_EQ(why.confidence->level, ConfidenceLevel::weak);
  EXPECT_NE(why.message.find("weak evidence: degraded, not failed"), std::string::npos) << why.message;
  EXPECT_EQ(j.summary.exit_code, 1);
}

TEST(Judge, SlowRailOnOneNodeExcludesThatRail) {
  const int slow = 20, rail = 3;
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int r, PairShape& s) {
    if ((x == slow || y == slow) && r == rail) s.bw_GBps = 30;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"hca_port node20/mlx5_3:1", HealthState::failed},
                                                              {"node node20", HealthState::degraded}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node20", Action::admit_degraded}}));
  const Verdict& node = verdict(j, "node", "node20");
  EXPECT_EQ(node.excluded, std::vector<std::string>{"mlx5_3:1"});
  EXPECT_EQ(node.usable.size(), 15u);
  EXPECT_EQ(codes(verdict(j, "hca_port", "node20/mlx5_3:1")), std::set<std::string>{"IB_LINK_BW_LOW"});
  // The reason cites the measurement it was read from: probe, size and the rail at each end, as
  // the result and the Prometheus series name them (issue 41's joins).
  const Reason& why = verdict(j, "hca_port", "node20/mlx5_3:1").reasons.at(0);
  EXPECT_EQ(why.probe, "net.verbs.write_bw");
  EXPECT_EQ(why.size_B, std::optional<std::uint64_t>(FleetShape{}.bw_size));
  EXPECT_EQ(why.port, "mlx5_3:1");
  EXPECT_EQ(why.peer_port, "mlx5_3:1");
}

TEST(Judge, FleetRuleCatchesASlowRailAboveTheFloors) {
  // 42 GB/s passes the generic profile (no floors) but is under 85% of the median.
  const int slow = 33, rail = 6;
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int r, PairShape& s) {
    if ((x == slow || y == slow) && r == rail) s.bw_GBps = 40;
  });
  const Judgement j = judge(run.hosts, run.probes, generic_profile());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"hca_port node33/mlx5_6:1", HealthState::degraded},
                                                              {"node node33", HealthState::degraded}}));
  EXPECT_EQ(codes(verdict(j, "hca_port", "node33/mlx5_6:1")), std::set<std::string>{"IB_LINK_BW_OUTLIER"});
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node33", Action::admit_degraded}}));
  EXPECT_TRUE(verdict(j, "node", "node33").excluded.empty());  // degraded, still usable
  EXPECT_EQ(j.summary.exit_code, 1);
}

TEST(Judge, HighLatencyNodeIsFlagged) {
  const int slow = 7;
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int, PairShape& s) {
    if (x == slow || y == slow) s.lat_p50_us = 4.0;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node node07", HealthState::degraded}}));
  EXPECT_EQ(codes(verdict(j, "node", "node07")), std::set<std::string>{"LAT_HIGH"});
}

TEST(Judge, UniformlySlowerClusterAboveTheFloorsIsNotFlagged) {
  FleetShape slower;
  slower.bw_GBps = 25;  // half of the usual, everywhere: the generic profile has no floor
  slower.lat_p50_us = 2.5;
  slower.lat_p99_us = 4.0;
  slower.busbw_GBps = 300;
  const auto run = synthetic_run(slower);
  const Judgement generic = judge(run.hosts, run.probes, generic_profile());
  EXPECT_TRUE(unhealthy(generic).empty());
  EXPECT_EQ(generic.summary.exit_code, 0);

  FleetShape a_bit_slower;  // above every h100 degraded level
  a_bit_slower.bw_GBps = 48.2;
  const auto run2 = synthetic_run(a_bit_slower);
  EXPECT_TRUE(unhealthy(judge(run2.hosts, run2.probes, h100())).empty());
}

TEST(Judge, WrongDataOnOneGpuExcludesThatGpu) {
  const FleetShape f;
  auto run = synthetic_run(f);
  ProbeResult wrong;
  wrong.id = "collective.nccl.all_reduce";
  wrong.status = ProbeStatus::failed;
  wrong.scope = Scope{{"node30"}, {30 * 8 + 4}, {"cuda:4"}};
  wrong.params = {{"size_B", f.allreduce_size}, {"in_place", false}, {"nranks", 8}};
  wrong.metrics["wrong_elements"] = Metric::of(17);
  wrong.error = "17 of 268435456 f32 elements wrong in the out-of-place all-reduce result on host node30 rank 244";
  run.probes.push_back(wrong);
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"gpu node30/gpu4", HealthState::failed},
                                                              {"node node30", HealthState::degraded}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node30", Action::admit_degraded}}));
  const Verdict& gpu = verdict(j, "gpu", "node30/gpu4");
  ASSERT_EQ(gpu.reasons.size(), 1u);
  EXPECT_EQ(gpu.reasons[0].code, ReasonCode::ALLREDUCE_WRONG_DATA);
  EXPECT_EQ(gpu.reasons[0].value, 17.0);
  EXPECT_EQ(verdict(j, "node", "node30").excluded, std::vector<std::string>{"gpu4"});
}

TEST(Judge, LowAllReduceBusbwOnOneNode) {
  FleetShape f;
  auto run = synthetic_run(f);
  for (auto& p : run.probes)
    if (p.id == "collective.nccl.all_reduce" && p.scope.hosts == std::vector<std::string>{"node44"})
      p.metrics["busbw_GBps"] = Metric::of(350);
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node node44", HealthState::failed}}));
  EXPECT_EQ(codes(verdict(j, "node", "node44")), std::set<std::string>{"ALLREDUCE_BUSBW_LOW"});
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node44", Action::drain}}));
}

// The floor's failed level is 400 GB/s. 398 is under it by less than the fleet's own noise: weak
// evidence, so the node is admitted degraded and flagged, not drained, unless the profile drains on
// weak evidence. 350 is far past the noise: certain, drained.
TEST(Judge, AFailedFloorOnWeakEvidenceAdmitsDegradedUnlessTheProfileDrainsOnIt) {
  auto busbw_on_node44 = [](double busbw) {
    auto run = synthetic_run(FleetShape{});
    for (auto& p : run.probes)
      if (p.id == "collective.nccl.all_reduce" && p.scope.hosts == std::vector<std::string>{"node44"})
        p.metrics["busbw_GBps"] = Metric::of(busbw);
    return run;
  };
  const auto near = busbw_on_node44(398);
  const Judgement weak = judge(near.hosts, near.probes, h100());
  EXPECT_EQ(unhealthy(weak), (std::map<std::string, HealthState>{{"node node44", HealthState::degraded}}));
  EXPECT_EQ(not_admitted(weak), (std::map<std::string, Action>{{"node44", Action::admit_degraded}}));
  const Verdict& held = verdict(weak, "node", "node44");
  ASSERT_EQ(held.reasons.size(), 1u);
  EXPECT_EQ(held.reasons[0].code, ReasonCode::ALLREDUCE_BUSBW_LOW);
  ASSERT_TRUE(held.reasons[0].confidence);
  EXPECT_EQ(held.reasons[0].confidence->level, ConfidenceLevel::weak);
  EXPECT_EQ(held.reasons[0].confidence->method, ConfidenceMethod::run_noise);
  EXPECT_EQ(held.reasons[0].confidence->count, 64);  // over the 64 nodes' all-reduces
  EXPECT_NE(held.reasons[0].message.find("weak evidence"), std::string::npos);
  EXPECT_EQ(weak.summary.exit_code, 1);

  Profile drains = h100();
  drains.confidence.drain_weak = true;
  const Judgement drained = judge(near.hosts, near.probes, drains);
  EXPECT_EQ(not_admitted(drained), (std::map<std::string, Action>{{"node44", Action::drain}}));
  EXPECT_EQ(drained.summary.exit_code, 2);

  const auto far = busbw_on_node44(350);
  const Judgement certain = judge(far.hosts, far.probes, h100());
  EXPECT_EQ(not_admitted(certain), (std::map<std::string, Action>{{"node44", Action::drain}}));
  EXPECT_EQ(verdict(certain, "node", "node44").reasons[0].confidence->level, ConfidenceLevel::certain);
  EXPECT_EQ(certain.summary.exit_code, 2);
}

TEST(Judge, LostNodeTimesOutWithItsPeersAndOnlyItIsBlamed) {
  const int lost = 40;
  auto run = synthetic_run(FleetShape{}, [&](int a, int b, int, PairShape& s) {
    if (a == lost || b == lost) s.status = ProbeStatus::timeout;
  });
  ProbeResult gather;
  gather.id = "cluster.gather";
  gather.status = ProbeStatus::timeout;
  gather.scope = Scope{{"node40"}, {320}, {}};
  gather.error = "rank 320 on host node40 sent no results and was silent for 60 s";
  run.probes.push_back(gather);
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node node40", HealthState::failed}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node40", Action::drain}}));
  EXPECT_TRUE(codes(verdict(j, "node", "node40")).count("PROBE_TIMEOUT"));
}

TEST(Judge, ARailDeadWithEveryPeerIsTheRailNotTheNode) {
  // node30's rail 2 times out with every peer (its leaf switch is down); its other rails work.
  // The outcome group also sees the pairs that ran, so the rail is blamed and the node admitted
  // degraded, not drained as if every rail it has were dead.
  const int dead = 30, rail = 2;
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int r, PairShape& s) {
    if ((x == dead || y == dead) && r == rail) s.status = ProbeStatus::timeout;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"hca_port node30/mlx5_2:1", HealthState::failed},
                                                              {"node node30", HealthState::degraded}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node30", Action::admit_degraded}}));
}

// node00..node63 on 8 leaves of 8: leaf1 holds node[00-07].
FabricTopology eight_leaves() {
  std::string text;
  for (int l = 0; l < 8; ++l)
    text += "SwitchName=leaf" + std::to_string(l + 1) + " Nodes=node[" + host_name(8 * l).substr(4) + "-" +
            host_name(8 * l + 7).substr(4) + "]\n";
  return parse_topology_conf(text + "SwitchName=spine Switches=leaf[1-8]\n", "topology.conf");
}

TEST(Judge, ALeafSwitchDownOnOneRailIsTheSwitchAndDrainsNoNode) {
  // Rail 2's leaf of node08-node15 is down: their rail 2 times out with every peer, also with each
  // other. With the topology: the switch, every node admitted; without it: eight rails.
  FleetShape shape;
  shape.rounds = 63;
  const auto run = synthetic_run(shape, [&](int x, int y, int r, PairShape& s) {
    if ((x / 8 == 1 || y / 8 == 1) && r == 2) s.status = ProbeStatus::timeout;
  });
  const FabricTopology topology = eight_leaves();
  const Judgement j = judge(run.hosts, run.probes, h100(), nullptr, &topology);
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"switch leaf2/mlx5_2:1", HealthState::failed}}));
  EXPECT_TRUE(not_admitted(j).empty());
  EXPECT_EQ(j.summary.exit_code, 1);  // a fabric fault drains no node
  const Verdict& sw = verdict(j, "switch", "leaf2/mlx5_2:1");
  ASSERT_FALSE(sw.reasons.empty());  // one per measurement that timed out (bandwidth, latency)
  for (const Reason& r : sw.reasons) EXPECT_EQ(r.code, ReasonCode::FABRIC_SWITCH_BAD);
  EXPECT_FALSE(sw.action);
  EXPECT_EQ(not_admitted(judge(run.hosts, run.probes, h100())).size(), 8u);  // admit_degraded without it
}

TEST(Judge, ASlowUplinkOfALeafDrainsNoNodeAndBlamesNoLink) {
  // Every pair between node00-node07 and the rest is slow on rail 1.
  const auto run = synthetic_run(FleetShape{}, [&](int x, int y, int r, PairShape& s) {
    if ((x / 8 == 0) != (y / 8 == 0) && r == 1) s.bw_GBps = 30;
  });
  const FabricTopology topology = eight_leaves();
  const Judgement j = judge(run.hosts, run.probes, h100(), nullptr, &topology);
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"uplink leaf1/mlx5_1:1", HealthState::failed}}));
  EXPECT_TRUE(not_admitted(j).empty());
}

TEST(Judge, WithoutTopologyACutDrainsNeitherSide) {
  // node00-node15 reach each other and nobody else well, on every rail: each is bad with 48 of its
  // 63 peers, and would be a culprit. A path verdict, no node blamed or drained.
  FleetShape shape;
  shape.rounds = 63;
  const auto run = synthetic_run(shape, [&](int x, int y, int, PairShape& s) {
    if ((x < 16) != (y < 16)) s.bw_GBps = 30;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j),
            (std::map<std::string, HealthState>{{"path node[00-15]<->node[16-63]", HealthState::failed}}));
  EXPECT_TRUE(not_admitted(j).empty());
  EXPECT_EQ(j.summary.exit_code, 1);  // a fabric fault drains no node
}

TEST(Judge, OnePairTimeoutIsALinkVerdict) {
  const int a = 12, b = partner_in_round(64, 0, 12);
  auto run = synthetic_run(FleetShape{}, [&](int x, int y, int rail, PairShape& s) {
    if (std::min(x, y) == std::min(a, b) && std::max(x, y) == std::max(a, b) && rail == 0)
      s.status = ProbeStatus::timeout;
  });
  const Judgement j = judge(run.hosts, run.probes, h100());
  const std::string link = "link " + host_name(std::min(a, b)) + "<->" + host_name(std::max(a, b));
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{link, HealthState::failed}}));
  EXPECT_TRUE(not_admitted(j).empty());
}

TEST(Judge, MissingGpuDrainsTheNode) {
  auto run = synthetic_run(FleetShape{});
  run.hosts[50].gpus.pop_back();
  const Judgement j = judge(run.hosts, run.probes, h100());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node node50", HealthState::failed}}));
  EXPECT_EQ(codes(verdict(j, "node", "node50")), std::set<std::string>{"GPU_MISSING"});
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node50", Action::drain}}));
}

TEST(Judge, SkippedCheckIsUnknownNeverHealthy) {
  auto run = synthetic_run(FleetShape{});
  run.probes.push_back(skipped("gpu.cuda.mem_bw", Scope{{"node09"}, {72}, {}}, "no CUDA toolkit at build time"));
  const Judgement j = judge(run.hosts, run.probes, generic_profile());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node node09", HealthState::unknown}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node09", Action::drain}}));
  EXPECT_EQ(j.summary.exit_code, 3);
}

TEST(Judge, UncheckedGpuKeepsTheNodeUnknown) {
  auto run = synthetic_run(FleetShape{});
  run.probes.push_back(skipped("gpu.cuda.mem_bw", Scope{{"node11"}, {91}, {"gpu3"}}, "no CUDA toolkit at build time"));
  const Judgement j = judge(run.hosts, run.probes, generic_profile());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"gpu node11/gpu3", HealthState::unknown},
                                                              {"node node11", HealthState::unknown}}));
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{{"node11", Action::drain}}));
  EXPECT_EQ(verdict(j, "node", "node11").excluded, std::vector<std::string>{"gpu3"});
}

// A node checked alone: what needs other hosts is out of scope, not unknown.
struct OneNode {
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
};

OneNode cpu_node_alone(int ranks) {
  OneNode run;
  HostInventory host;
  host.name = "n1";
  for (int r = 0; r < ranks; ++r) host.ranks.push_back(r);
  run.hosts.push_back(host);
  const Scope scope{{"n1"}, {}, {}};
  run.probes.push_back(skipped(kInventoryGpuProbe, scope, "libnvidia-ml.so.1 not found"));
  run.probes.push_back(skipped(kInventoryRdmaProbe, scope, "no RDMA device under /sys/class/infiniband"));
  run.probes.push_back(skipped(kNetPairsProbe, scope, "out of scope on one host"));
  run.probes.push_back(skipped(kMpiAllReduceProbe, scope, "MPI is not initialised"));
  run.probes.push_back(skipped(kGpuMemBwProbe, scope, "no CUDA toolkit at build time"));
  return run;
}

Profile cpu_profile() { return load_profile_file(std::string(IBGPU_SOURCE_DIR) + "/profiles/cpu.toml"); }

TEST(Judge, OneCpuNodeAloneIsHealthyOnTheCpuProfile) {
  const OneNode run = cpu_node_alone(1);
  ASSERT_EQ(scope_of(run.hosts), RunScope::node);
  const Judgement j = judge(run.hosts, run.probes, cpu_profile());
  EXPECT_TRUE(unhealthy(j).empty());
  EXPECT_EQ(not_admitted(j), (std::map<std::string, Action>{}));
  EXPECT_EQ(j.summary.exit_code, 0);
}

TEST(Judge, OneNodeAloneStillNeedsWhatItsProfileExpects) {
  // The generic profile expects nothing but calls what could not run unknown:
  // the GPU checks are in scope on one host, the pairs are not.
  const OneNode run = cpu_node_alone(1);
  const Judgement j = judge(run.hosts, run.probes, generic_profile());
  const Verdict& node = verdict(j, "node", "n1");
  EXPECT_EQ(node.state, HealthState::unknown);
  std::set<std::string> checks;  // what each reason is about: "<probe id>: <why>"
  for (const auto& reason : node.reasons) checks.insert(reason.message.substr(0, reason.message.find(':')));
  EXPECT_EQ(checks, (std::set<std::string>{kInventoryGpuProbe, kInventoryRdmaProbe, kGpuMemBwProbe}));
}

TEST(Judge, AnAllReduceSkippedWithSeveralRanksOnOneNodeIsUnknown) {
  // Two ranks on one host have something to reduce across: not out of scope.
  const OneNode run = cpu_node_alone(2);
  const Judgement j = judge(run.hosts, run.probes, cpu_profile());
  EXPECT_EQ(verdict(j, "node", "n1").state, HealthState::unknown);
  EXPECT_EQ(codes(verdict(j, "node", "n1")), std::set<std::string>{"CHECK_SKIPPED"});
  EXPECT_EQ(j.summary.exit_code, 3);
}

TEST(Judge, PairsSkippedInAFleetAreUnknown) {
  // The same skipped pair step in a two-host run is a finding on both nodes.
  OneNode run = cpu_node_alone(1);
  HostInventory second;
  second.name = "n2";
  second.ranks = {1};
  run.hosts.push_back(second);
  run.probes = {skipped(kNetPairsProbe, Scope{{"n1", "n2"}, {}, {}}, "no rank pairs to measure")};
  ASSERT_EQ(scope_of(run.hosts), RunScope::fleet);
  const Judgement j = judge(run.hosts, run.probes, cpu_profile());
  EXPECT_EQ(unhealthy(j),
            (std::map<std::string, HealthState>{{"node n1", HealthState::unknown}, {"node n2", HealthState::unknown}}));
}

TEST(Judge, RetestThatPassesClearsADegradedPair) {
  const int a = 3, b = partner_in_round(64, 1, 3);
  auto run = synthetic_run(FleetShape{}, [&](int x, int y, int rail, PairShape& s) {
    if (std::min(x, y) == std::min(a, b) && std::max(x, y) == std::max(a, b) && rail == 1) s.bw_GBps = 45;
  });
  const Judgement once = judge(run.hosts, run.probes, h100());
  ASSERT_EQ(unhealthy(once).size(), 1u);  // the link, degraded, on one measurement
  // The re-test of the same pair and rail measures well: not confirmed.
  ProbeResult retest =
      testing::pair_probe("net.verbs.write_bw", std::min(a, b), std::max(a, b), 1, FleetShape{}, std::size_t{8} << 20);
  retest.metrics["bw_avg_GBps"] = Metric::of(48.9);
  run.probes.push_back(retest);
  EXPECT_TRUE(unhealthy(judge(run.hosts, run.probes, h100())).empty());
}

TEST(Judge, RetestsOfASlowNodeDoNotPullTheFleetMedianDown) {
  // Five hosts, one slow: 4 of 10 pairs are slow, so the median is a clean pair's. Re-testing
  // the slow pairs twice over must not change that: re-tests aim at suspects.
  FleetShape f;
  f.hosts = 5;
  f.gpus = f.rails = 1;
  f.rounds = 5;
  const int slow = 1;
  auto run = synthetic_run(f, [&](int a, int b, int, PairShape& s) {
    if (a == slow || b == slow) s.bw_GBps *= 0.6;
  });
  for (int pass = 1; pass <= 2; ++pass)
    for (const auto& p : std::vector<ProbeResult>(run.probes))
      if (p.scope.hosts.size() == 2 && !p.params.contains("retest") &&
          (p.scope.hosts[0] == host_name(slow) || p.scope.hosts[1] == host_name(slow))) {
        ProbeResult again = p;
        again.params["retest"] = pass;
        run.probes.push_back(std::move(again));
      }
  const Judgement j = judge(run.hosts, run.probes, generic_profile());
  EXPECT_EQ(unhealthy(j), (std::map<std::string, HealthState>{{"node " + host_name(slow), HealthState::degraded}}));
}

TEST(Judge, AppliedThresholdsAreRecordable) {
  const nlohmann::json j = to_json(h100());
  EXPECT_EQ(j.at("network").at("verbs_bw_GBps").at("failed"), 40.0);
  EXPECT_EQ(j.at("node").at("expect_gpus"), 8);
  EXPECT_EQ(j.at("fleet").at("bw_fraction"), 0.9);
}

}  // namespace
}  // namespace ibgpu
