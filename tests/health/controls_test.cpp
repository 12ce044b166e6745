// ibgpu's own faults told apart: a verbs pair error that neither end's loopback reproduces is
// unknown for the instrument (no node drained, exit 3); one a loopback reproduces stands, and the
// port that reproduced it is failed. What the operator acts on: state, action, exit code, reason.
#include "health/controls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "health/judge.h"
#include "health/profile_file.h"
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

}  // namespace
}  // namespace ibgpu
