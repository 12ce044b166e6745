// ibgpu's own faults told apart: a verbs pair error that neither end's loopback reproduces is
// unknown for the instrument (no node drained, exit 3); one a loopback reproduces stands, and the
// port that reproduced it is failed. What the operator acts on: state, action, exit code, reason.
#include "health/controls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "health/admission.h"
#include "health/judge.h"
#include "health/profile_file.h"
#include "probes/collective/nccl_log.h"
#include "tests/core/names.h"
#include "tests/health/synthetic_fleet.h"
#include "tests/health/unhealthy.h"

namespace ibgpu {
namespace {

using testing::FleetShape;
using testing::PairShape;
using testing::unhealthy_entities;

Profile h100_profile_for_controls() {
  return load_profile_file(std::string(IBGPU_SOURCE_DIR) + "/profiles/hgx-h100-ndr.toml");
}

constexpr int kHostA = 3, kHostB = 4, kErrorRail = 1;  // hosts 3 and 4 meet in round 0 of the circle (8 hosts)
constexpr std::size_t kErrorRound = 2;                 // the pair's round in this run

bool is_the_failed_pair(const ProbeResult& p) {
  return is_pair_probe(p) &&
         p.scope.hosts == std::vector<std::string>{testing::host_name(kHostA), testing::host_name(kHostB)} &&
         p.scope.devices[0] == testing::rail_name(kErrorRail);
}

// Eight hosts, one round; the pair hosts 3-4 on rail 1 ended in an error (its verbs setup).
testing::SyntheticRun run_with_a_pair_error() {
  FleetShape f;
  f.hosts = 8;
  f.rounds = 1;
  auto run = testing::synthetic_run(f, [](int a, int b, int rail, PairShape& s) {
    if (std::min(a, b) == kHostA && std::max(a, b) == kHostB && rail == kErrorRail) s.status = ProbeStatus::error;
  });
  for (auto& p : run.probes)
    if (is_the_failed_pair(p)) {
      p.params["round"] = kErrorRound;
      p.error = "host node03 rank 25: ibv_modify_qp (RTR): Invalid argument (errno 22)";
    }
  return run;
}

ProbeResult loopback_control(int host, ProbeStatus status) {
  ProbeResult r;
  r.id = kVerbsLoopbackProbe;
  r.status = status;
  r.scope = Scope{{testing::host_name(host)}, {host * 8 + kErrorRail}, {testing::rail_name(kErrorRail)}};
  if (status == ProbeStatus::error) r.error = "ibv_poll_cq: local protection error (status 4) on work request 15";
  mark_control(r, ControlOrder{host * 8 + kErrorRail,
                               testing::rail_name(kErrorRail),
                               kErrorRound,
                               {kHostA * 8 + kErrorRail, kHostB * 8 + kErrorRail}});
  return r;
}

const Verdict* verdict_named(const Judgement& j, const std::string& text) {
  for (const auto& v : j.verdicts)
    if (entity_text(v.entity) == text) return &v;
  return nullptr;
}

TEST(Controls, EachEndOfAVerbsPairErrorRunsOneControlForItsRound) {
  auto run = run_with_a_pair_error();
  // The same pair's latency failed too (one meeting): still one control an end.
  const auto orders = plan_controls(run.probes);
  const std::vector<int> pair{kHostA * 8 + kErrorRail, kHostB * 8 + kErrorRail};
  EXPECT_EQ(orders, (std::vector<ControlOrder>{{kHostA * 8 + kErrorRail, "mlx5_1:1", kErrorRound, pair},
                                               {kHostB * 8 + kErrorRail, "mlx5_1:1", kErrorRound, pair}}));
  // Those already run are not ordered again; a timeout (a silent peer) and an MPI pair get none.
  EXPECT_TRUE(plan_controls(run.probes, orders).empty());
  for (auto& p : run.probes)
    if (is_the_failed_pair(p)) p.status = ProbeStatus::timeout;
  EXPECT_TRUE(plan_controls(run.probes).empty());
  for (auto& p : run.probes)
    if (is_the_failed_pair(p)) {
      p.status = ProbeStatus::error;
      p.id = p.id == kWriteBwId ? kMpiBwProbe : kMpiLatProbe;
    }
  EXPECT_TRUE(plan_controls(run.probes).empty());
}

// The run with its pair error, each end's control as given, settled and judged.
struct Controlled {
  testing::SyntheticRun run;
  Judgement j;
};
Controlled judged_with_controls(ProbeStatus at_a, ProbeStatus at_b) {
  Controlled c{run_with_a_pair_error(), {}};
  c.run.probes.push_back(loopback_control(kHostA, at_a));
  c.run.probes.push_back(loopback_control(kHostB, at_b));
  settle_by_controls(c.run.probes);
  c.j = judge(c.run.hosts, c.run.probes, h100_profile_for_controls());
  return c;
}

TEST(Controls, AnErrorNeitherLoopbackReproducesIsUnknownForTheInstrumentAndDrainsNothing) {
  const Judgement j = judged_with_controls(ProbeStatus::ok, ProbeStatus::ok).j;
  EXPECT_EQ(unhealthy_entities(j),
            (std::map<std::string, HealthState>{{"link node03<->node04", HealthState::unknown}}));
  const Verdict* link = verdict_named(j, "link node03<->node04");
  ASSERT_NE(link, nullptr);
  ASSERT_EQ(link->reasons.size(), 2u);  // the bandwidth's and the latency's (one meeting)
  for (const Reason& r : link->reasons) EXPECT_EQ(r.code, ReasonCode::PROBE_ERROR_NOT_REPRODUCED);
  EXPECT_NE(link->reasons[0].message.find("not reproduced: loopback on node03 mlx5_1:1 and node04 mlx5_1:1 passed"),
            std::string::npos)
      << link->reasons[0].message;
  EXPECT_TRUE(j.summary.drain.empty());
  EXPECT_TRUE(j.summary.admit_degraded.empty());
  EXPECT_EQ(j.summary.admit.size(), 8u);
  EXPECT_EQ(j.summary.exit_code, 3);  // unknown: a verdict is owed, nobody is drained for ibgpu's fault
}

TEST(Controls, AnErrorOneLoopbackReproducesIsThatPortsAndStands) {
  const auto [run, j] = judged_with_controls(ProbeStatus::ok, ProbeStatus::error);
  // The port that reproduced it is failed, its node admitted without that rail; the pair's error
  // stands on the link, as it would without controls.
  EXPECT_EQ(unhealthy_entities(j),
            (std::map<std::string, HealthState>{{"hca_port node04/mlx5_1:1", HealthState::failed},
                                                {"link node03<->node04", HealthState::failed},
                                                {"node node04", HealthState::degraded}}));
  const Verdict* port = verdict_named(j, "hca_port node04/mlx5_1:1");
  ASSERT_NE(port, nullptr);
  EXPECT_TRUE(has_reason(port, ReasonCode::PROBE_ERROR));
  EXPECT_EQ(j.summary.admit_degraded, std::vector<std::string>{"node04"});
  EXPECT_TRUE(j.summary.drain.empty());
  EXPECT_EQ(j.summary.exit_code, 1);  // degraded: a node admitted without a rail
  for (const auto& p : run.probes)
    if (is_the_failed_pair(p)) {
      EXPECT_FALSE(not_reproduced(p)) << p.params.dump();
    }
}

TEST(Controls, AnErrorWithAControlMissingIsJudgedAsBefore) {
  // One end's control never came back (its rank lost): nothing is settled, the error stands.
  auto with_one = run_with_a_pair_error();
  with_one.probes.push_back(loopback_control(kHostA, ProbeStatus::ok));
  settle_by_controls(with_one.probes);
  auto without = run_with_a_pair_error();
  const Judgement a = judge(with_one.hosts, with_one.probes, h100_profile_for_controls());
  const Judgement b = judge(without.hosts, without.probes, h100_profile_for_controls());
  EXPECT_EQ(unhealthy_entities(a), unhealthy_entities(b));
  EXPECT_EQ(a.summary.exit_code, b.summary.exit_code);
  EXPECT_EQ(unhealthy_entities(a), (std::map<std::string, HealthState>{{"link node03<->node04", HealthState::failed}}));
}

// --- The control of an all-reduce group: a ring of MPI point-to-point messages on host memory.

TEST(Controls, RankZeroOrdersOneControlPerGroupInPlacementOrder) {
  const GroupControlOrder job{0, "job", {0, 1, 2, 3}}, rail{2, "rail", {1, 3}}, node{1, "node", {2, 3}};
  // Ranks 1 and 3 both saw the rail group end in their error; rank 2 its node group (one host)
  // and the job; rank 4's word never came; rank 5 sent words that are no orders; rank 6 names a
  // group with a rank the job of seven does not have.
  const GroupControlOrder outside{1, "node", {4, 9}};
  const std::vector<std::optional<std::string>> payloads{to_text({}),          to_text({rail}), to_text({job, node}),
                                                         to_text({rail, job}), std::nullopt,    "[{\"index\": -1}]",
                                                         to_text({outside})};
  EXPECT_EQ(plan_group_controls(payloads), (std::vector<GroupControlOrder>{job, node, rail}));
  EXPECT_EQ(group_controls_from_text(to_text({job, rail})), (std::vector<GroupControlOrder>{job, rail}));
  EXPECT_FALSE(group_controls_from_text("not json"));
  EXPECT_FALSE(group_controls_from_text("[{\"index\": 0, \"placement\": \"job\", \"ranks\": [\"x\"]}]"));
}

// An NCCL all-reduce of rail 1 across the eight hosts (local rank 1 of each) in which host node03's
// rank ended in NCCL's error and the others gave up waiting; then the group's control as given.
constexpr int kRailRank = 1;
std::vector<int> rail_group() {
  std::vector<int> ranks;
  for (int h = 0; h < 8; ++h) ranks.push_back(h * 8 + kRailRank);
  return ranks;
}

ProbeResult rail_allreduce_result(int host, ProbeStatus status, const std::string& error) {
  ProbeResult r;
  r.id = "collective.nccl.all_reduce";
  r.status = status;
  r.scope = Scope{{testing::host_name(host)}, {host * 8 + kRailRank}, {"cuda:1"}};
  r.error = error;
  r.params = {{"size_B", 16 << 20}, {"placement", "rail"}, {"group", "local rank 1"}};
  return r;
}

// What a rank says when a peer's queue pair breaks mid all-reduce: the call's error
// (ncclRemoteError) as the backend words it, with NCCL's own warning from its log
// (tests/data/nccl/remote_error.log, in NCCL 2.21's format) as the run attaches it.
std::string nccl_remote_error() {
  std::ifstream in(std::string(IBGPU_TEST_DATA) + "/nccl/remote_error.log");
  std::stringstream log;
  log << in.rdbuf();
  ProbeResult r;
  r.status = ProbeStatus::error;
  r.error =
      "ncclAllReduce: remote process exited or there was a network error (6) while waiting for ncclAllReduce of "
      "4194304 x float, out-of-place (iteration 3 of 10)";
  attach_nccl_warnings(r, parse_nccl_log(log.str()));
  return *r.error;
}

// The results of a group's control as its ranks on `hosts` report them: the ring's summary, and
// where `at_node03` is not ok, node03's rank of rail 1 in that state.
std::vector<ProbeResult> group_control(const GroupControlOrder& order, const std::vector<std::string>& hosts,
                                       ProbeStatus at_node03) {
  std::vector<ProbeResult> out;
  ProbeResult summary;
  summary.id = "collective.mpi.all_reduce";
  summary.scope.hosts = hosts;
  summary.scope.ranks = order.ranks;
  summary.params = {{"size_B", 16 << 20}, {"call", "ring of MPI_Isend/MPI_Irecv"}};
  summary.metrics["busbw_GBps"] = Metric::of(0.8);
  out.push_back(summary);
  if (at_node03 != ProbeStatus::ok) {
    ProbeResult mine;
    mine.id = "collective.mpi.all_reduce";
    mine.status = at_node03;
    mine.scope = Scope{{testing::host_name(kHostA)}, {kHostA * 8 + kRailRank}, {}};
    mine.error = "MPI_Isend: MPI_ERR_OTHER: known error not in list";
    out.push_back(mine);
  }
  for (ProbeResult& r : out) {
    mark_control(r, order);
    r.params["placement"] = order.placement;
  }
  return out;
}

std::vector<ProbeResult> rail_control(ProbeStatus at_node03) {
  std::vector<std::string> hosts;
  for (int h = 0; h < 8; ++h) hosts.push_back(testing::host_name(h));
  return group_control(GroupControlOrder{2, "rail", rail_group()}, hosts, at_node03);
}

Controlled judged_with_group_control(std::optional<ProbeStatus> control_at_node03) {
  FleetShape f;
  f.hosts = 8;
  f.rounds = 1;
  Controlled c{testing::synthetic_run(f), {}};
  for (int h = 0; h < 8; ++h)
    c.run.probes.push_back(
        h == kHostA ? rail_allreduce_result(h, ProbeStatus::error, nccl_remote_error())
                    : rail_allreduce_result(h, ProbeStatus::timeout, "no completion of ncclAllReduce within 30 s"));
  if (control_at_node03)
    for (ProbeResult& r : rail_control(*control_at_node03)) c.run.probes.push_back(std::move(r));
  settle_by_controls(c.run.probes);
  c.j = judge(c.run.hosts, c.run.probes, h100_profile_for_controls());
  return c;
}

TEST(Controls, AnNcclErrorTheRingDoesNotReproduceIsTheGroupsUnknownAndDrainsNothing) {
  const auto [run, j] = judged_with_group_control(ProbeStatus::ok);
  std::vector<std::string> hosts;
  for (int h = 0; h < 8; ++h) hosts.push_back(testing::host_name(h));
  const std::string group = entity_text(Entity::hosts_group(hosts));
  EXPECT_EQ(unhealthy_entities(j), (std::map<std::string, HealthState>{{group, HealthState::unknown}}));
  const Verdict* v = verdict_named(j, group);
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->reasons.size(), 8u);  // node03's error and the seven waits it ended
  for (const Reason& r : v->reasons) EXPECT_EQ(r.code, ReasonCode::PROBE_ERROR_NOT_REPRODUCED) << r.message;
  const auto nccls = std::find_if(v->reasons.begin(), v->reasons.end(), [](const Reason& r) {
    return r.message.find("remote process exited or there was a network error (6)") != std::string::npos;
  });
  ASSERT_NE(nccls, v->reasons.end());
  EXPECT_NE(nccls->message.find("(NCCL warned: NET/IB : Got completion from peer 10.0.0.4<48213> with status=12"),
            std::string::npos)
      << nccls->message;
  EXPECT_NE(nccls->message.find("not reproduced: the same all-reduce by a ring of MPI point-to-point "
                                "messages on host memory (ranks 1,9,17,25,33,41,49,57) passed"),
            std::string::npos)
      << nccls->message;
  EXPECT_TRUE(j.summary.drain.empty());
  EXPECT_TRUE(j.summary.admit_degraded.empty());
  EXPECT_EQ(j.summary.admit.size(), 8u);
  EXPECT_EQ(j.summary.exit_code, 3);  // not decided: re-run; no node carries ibgpu's or the path's error
}

TEST(Controls, AnNcclErrorTheRingReproducesStandsOnTheRanksThatSawIt) {
  for (const ProbeStatus at : {ProbeStatus::error, ProbeStatus::failed}) {
    const auto [run, with] = judged_with_group_control(at);
    const auto [none, without] = judged_with_group_control(std::nullopt);
    // The error stands where it was seen, as without a control: nothing is excused. The ring's own
    // error is not judged (a ring's step fails with either neighbour: it names no device).
    for (const auto& p : run.probes)
      if (p.id == "collective.nccl.all_reduce" && p.status != ProbeStatus::ok) {
        EXPECT_FALSE(not_reproduced(p)) << p.params.dump();
        EXPECT_TRUE(p.params.at("control").at("reproduced").get<bool>()) << p.params.dump();
      }
    EXPECT_EQ(unhealthy_entities(with), unhealthy_entities(without));
    EXPECT_EQ(with.summary.drain, without.summary.drain);
    EXPECT_EQ(with.summary.exit_code, without.summary.exit_code);
    EXPECT_EQ(unhealthy_entities(with).at("gpu node03/gpu1"), HealthState::failed);
  }
}

TEST(Controls, AGroupControlThatTimedOutTellsNothing) {
  const auto [run, j] = judged_with_group_control(ProbeStatus::timeout);
  const auto [none, without] = judged_with_group_control(std::nullopt);
  for (const auto& p : run.probes) {
    if (p.id == "collective.nccl.all_reduce") {
      EXPECT_FALSE(p.params.contains("control")) << p.params.dump();
    }
  }
  EXPECT_EQ(unhealthy_entities(j), unhealthy_entities(without));
  EXPECT_EQ(j.summary.exit_code, without.summary.exit_code);
}

// The all-reduce of node03's eight GPUs (placement "node"), in which rank 25 ended in NCCL's error
// and the others gave up waiting; then the group's control (the ring on the same ranks) as given.
std::vector<int> node03_ranks() {
  std::vector<int> ranks;
  for (int local = 0; local < 8; ++local) ranks.push_back(kHostA * 8 + local);
  return ranks;
}

Controlled judged_with_node_group_control(std::optional<ProbeStatus> control, bool gpu_side = false) {
  FleetShape f;
  f.hosts = 8;
  f.rounds = 1;
  Controlled c{testing::synthetic_run(f), {}};
  const std::string host = testing::host_name(kHostA);
  for (int rank : node03_ranks()) {
    ProbeResult r;
    r.id = "collective.nccl.all_reduce";
    const bool erred = rank == kHostA * 8 + kRailRank;
    r.status = erred ? ProbeStatus::error : ProbeStatus::timeout;
    r.scope = Scope{{host}, {rank}, {"cuda:" + std::to_string(rank - kHostA * 8)}};
    r.error = erred ? nccl_remote_error() : "no completion of ncclAllReduce within 30 s";
    r.params = {{"size_B", 16 << 20}, {"placement", "node"}, {"group", host}};
    if (erred && gpu_side) {
      r.error = "cudaEventQuery: an illegal memory access was encountered (700)";
      r.params["error_call"] = "cudaEventQuery";
    }
    c.run.probes.push_back(std::move(r));
  }
  if (control)
    for (ProbeResult& r : group_control(GroupControlOrder{1, "node", node03_ranks()}, {host}, *control))
      c.run.probes.push_back(std::move(r));
  settle_by_controls(c.run.probes);
  c.j = judge(c.run.hosts, c.run.probes, h100_profile_for_controls());
  return c;
}

TEST(Controls, AnNcclErrorOnOneHostTheRingDoesNotReproduceLeavesTheNodeNotDecided) {
  const auto [run, j] = judged_with_node_group_control(ProbeStatus::ok);
  // Not the GPU's finding, nor clear of it: the ring used neither NCCL nor GPU memory. The node is
  // not decided (not admitted, not failed: exit 3, re-run), and no GPU of it carries the error.
  EXPECT_EQ(unhealthy_entities(j), (std::map<std::string, HealthState>{{"node node03", HealthState::unknown}}));
  const Verdict* v = verdict_named(j, "node node03");
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->reasons.size(), 8u);  // rank 25's error and the seven waits it ended
  for (const Reason& r : v->reasons) EXPECT_EQ(r.code, ReasonCode::PROBE_ERROR_NOT_REPRODUCED) << r.message;
  EXPECT_NE(v->reasons.front().message.find("not reproduced: the same all-reduce by a ring of MPI point-to-point "
                                            "messages on host memory (ranks 24,25,26,27,28,29,30,31) passed"),
            std::string::npos)
      << v->reasons.front().message;
  EXPECT_EQ(v->action, Action::drain);
  EXPECT_EQ(short_reasons(*v), "unknown; not checked: PROBE_ERROR_NOT_REPRODUCED");  // the drain reason
  EXPECT_TRUE(v->excluded.empty());                                                  // no GPU blamed
  EXPECT_EQ(j.summary.drain, std::vector<std::string>{"node03"});
  EXPECT_EQ(j.summary.admit.size(), 7u);
  EXPECT_EQ(j.summary.exit_code, 3);  // not decided: never 2, a finding, for an error no control reproduced
}

TEST(Controls, AnNcclErrorOnOneHostTheRingReproducesOrNoControlStandsOnTheGpu) {
  const auto [none, without] = judged_with_node_group_control(std::nullopt);
  EXPECT_EQ(unhealthy_entities(without).at("gpu node03/gpu1"), HealthState::failed);
  EXPECT_EQ(without.summary.exit_code, 2);
  for (const ProbeStatus at : {ProbeStatus::error, ProbeStatus::failed}) {
    const auto [run, with] = judged_with_node_group_control(at);
    EXPECT_EQ(unhealthy_entities(with), unhealthy_entities(without));
    EXPECT_EQ(with.summary.drain, without.summary.drain);
    EXPECT_EQ(with.summary.exit_code, without.summary.exit_code);
  }
}

TEST(Controls, AnErrorOnTheGpusSideIsNotTheRingsToExcuse) {
  // A CUDA call's error (the ring on host memory uses no GPU): the group is judged as without a
  // control, the erring GPU failed and its node with the waits it ended, exit 2; not unknown.
  const auto [run, j] = judged_with_node_group_control(ProbeStatus::ok, true);
  const auto [none, without] = judged_with_node_group_control(std::nullopt, true);
  for (const auto& p : run.probes) {
    if (p.id == "collective.nccl.all_reduce") {
      EXPECT_FALSE(p.params.contains("control")) << p.params.dump();
    }
  }
  EXPECT_EQ(unhealthy_entities(j), unhealthy_entities(without));
  EXPECT_EQ(unhealthy_entities(j).at("gpu node03/gpu1"), HealthState::failed);
  EXPECT_EQ(j.summary.drain, std::vector<std::string>{"node03"});
  EXPECT_EQ(j.summary.exit_code, 2);
}

}  // namespace
}  // namespace ibgpu
