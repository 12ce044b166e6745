// The decision table (health/decision.h, docs/verdicts.md): every row walked
// with evidence in and what the operator acts on out (state, action, exit code,
// admission words, drain reason); the docs print the same rows; and the
// seams of issue-sized scenarios (a job all-reduce no rule can judge, a step
// ibgpu's time cap dropped, a slow host among hosts without a GPU driver, a
// host at a fifth of its peers, floors of another medium or size).
#include "health/decision.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "health/admission.h"
#include "health/judge.h"
#include "health/profile_file.h"
#include "health/verdict_book.h"
#include "tests/core/names.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu {
namespace {

Profile shipped(const std::string& name) {
  return load_profile_file(std::string(IBGPU_SOURCE_DIR) + "/profiles/" + name + ".toml");
}

Reason reason(const char* code) {
  return Reason{testing::code(code), std::string(code) + " (test)", "", std::nullopt, std::nullopt};
}

// One node "h1" with the row's evidence, plus a figure ibgpu did not judge (it must change nothing).
std::vector<Verdict> node_with(HealthState finding, bool missing) {
  VerdictBook book;
  Verdict& node = book.at(Entity::node("h1"));
  if (finding == HealthState::degraded) VerdictBook::add(node, finding, reason("NET_BW_OUTLIER"));
  if (finding == HealthState::failed) VerdictBook::add(node, finding, reason("PROBE_TIMEOUT"));
  if (missing) VerdictBook::add(node, HealthState::unknown, reason("CHECK_SKIPPED"));
  Reason not_judged = reason("NOT_JUDGED");
  not_judged.evidence = Evidence::not_judged;
  VerdictBook::add(node, HealthState::unknown, not_judged);  // an unknown asked for: still no state
  return book.take();
}

struct Expected {
  HealthState finding;
  bool missing;
  HealthState state;
  Action action;
  int exit_code;
  std::string drain_reason;
};

TEST(DecisionTable, EveryRowFromEvidenceToStateActionExitCodeAndDrainReason) {
  using enum HealthState;
  const std::vector<Expected> rows{
      {healthy, false, healthy, Action::admit, 0, "healthy"},
      {degraded, false, degraded, Action::admit_degraded, 1, "degraded: NET_BW_OUTLIER"},
      {failed, false, failed, Action::drain, 2, "failed: PROBE_TIMEOUT"},
      {healthy, true, unknown, Action::drain, 3, "unknown; not checked: CHECK_SKIPPED"},
      {degraded, true, degraded, Action::drain, 3, "degraded: NET_BW_OUTLIER; not checked: CHECK_SKIPPED"},
      {failed, true, failed, Action::drain, 2, "failed: PROBE_TIMEOUT; not checked: CHECK_SKIPPED"},
  };
  ASSERT_EQ(decision_table().size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Expected& want = rows[i];
    SCOPED_TRACE("row " + std::to_string(i + 1));
    std::vector<Verdict> verdicts = node_with(want.finding, want.missing);
    HostInventory host;
    host.name = "h1";
    decide_admission(verdicts, {host});
    const RunSummary summary = summarise(verdicts);
    ASSERT_EQ(verdicts.size(), 1u);
    const Verdict& node = verdicts[0];
    EXPECT_EQ(node.state, want.state);
    EXPECT_EQ(node.action, want.action);
    EXPECT_EQ(summary.exit_code, want.exit_code);
    EXPECT_EQ(summary.state, run_state_for(want.exit_code));
    EXPECT_EQ(short_reasons(node), want.drain_reason);
    EXPECT_EQ(summary.drain.size(), want.action == Action::drain ? 1u : 0u);
    const DecisionRow& row = decision_table()[i];
    EXPECT_EQ(row.finding, want.finding);
    EXPECT_EQ(row.missing, want.missing);
    EXPECT_EQ(&decide(want.finding, want.missing), &row);
  }
}

// docs/verdicts.md prints the rows of the code's table, in its order and words.
TEST(DecisionTable, TheDocsPrintTheSameRows) {
  std::ifstream doc(std::string(IBGPU_SOURCE_DIR) + "/docs/verdicts.md");
  ASSERT_TRUE(doc) << "docs/verdicts.md";
  std::string line;
  while (std::getline(doc, line) && line.find("<!-- decision-table") == std::string::npos) {
  }
  std::getline(doc, line);  // the heading
  std::getline(doc, line);  // |---|
  auto word = [](HealthState s) { return s == HealthState::healthy ? std::string("none") : to_string(s); };
  for (const DecisionRow& row : decision_table()) {
    ASSERT_TRUE(std::getline(doc, line));
    std::ostringstream want;
    want << "| " << word(row.finding) << " | " << (row.missing ? "yes" : "no") << " | " << to_string(row.state) << " | "
         << to_string(row.action) << " | " << row.exit_code << " | " << row.admission << " |";
    EXPECT_EQ(line, want.str());
  }
  ASSERT_TRUE(std::getline(doc, line));
  EXPECT_TRUE(line.empty()) << "docs/verdicts.md has a row the code does not: " << line;
}

TEST(DecisionTable, TheRunCodeOrdersFindingsAboveMissingAboveDegradedAndTheFabricDrainsNoNode) {
  auto node = [](const char* id, HealthState s, Action a) { return Verdict{Entity::node(id), s, {}, a}; };
  using enum HealthState;
  EXPECT_EQ(run_exit_code({node("a", healthy, Action::admit), node("b", degraded, Action::admit_degraded)}), 1);
  EXPECT_EQ(run_exit_code({node("a", unknown, Action::drain), node("b", degraded, Action::admit_degraded)}), 3);
  EXPECT_EQ(run_exit_code({node("a", unknown, Action::drain), node("b", failed, Action::drain)}), 2);
  EXPECT_EQ(run_exit_code({node("a", degraded, Action::drain), node("b", healthy, Action::admit)}), 3);
  EXPECT_EQ(run_exit_code({node("a", healthy, Action::admit), Verdict{Entity::link("a", "b"), failed, {}, {}}}), 1);
  EXPECT_EQ(run_exit_code({Verdict{Entity::link("a", "b"), failed, {}, {}}}), 3);  // no node judged
  // A link left unknown by an error no device reproduced (health/controls.h): not decided, re-run;
  // a link unknown for another reason does not move the code.
  const Reason not_reproduced{ReasonCode::PROBE_ERROR_NOT_REPRODUCED, "", "", std::nullopt, std::nullopt};
  EXPECT_EQ(run_exit_code(
                {node("a", healthy, Action::admit), Verdict{Entity::link("a", "b"), unknown, {not_reproduced}, {}}}),
            3);
  EXPECT_EQ(run_exit_code({node("a", healthy, Action::admit), Verdict{Entity::link("a", "b"), unknown, {}, {}}}), 0);
  EXPECT_EQ(
      run_exit_code({node("a", failed, Action::drain), Verdict{Entity::link("a", "b"), unknown, {not_reproduced}, {}}}),
      2);
  RunSummary interrupted = summarise({node("a", healthy, Action::admit), node("b", unknown, Action::drain)});
  decide_nothing(interrupted);
  EXPECT_TRUE(interrupted.admit.empty());
  EXPECT_TRUE(interrupted.drain.empty());
  EXPECT_EQ(interrupted.exit_code, 3);
}

// ---- Scenarios: results in, what the operator acts on out. ----------------

HostInventory cpu_host(const std::string& name, std::vector<int> ranks) {
  HostInventory h;
  h.name = name;
  h.ranks = std::move(ranks);
  return h;
}

ProbeResult mpi_pair(const std::string& a, const std::string& b, double bw_GBps) {
  ProbeResult p;
  p.id = kMpiBwProbe;
  p.scope.hosts = {a, b};
  p.scope.ranks = {0, 1};
  p.params = {{"size_B", 8 << 20}, {"round", 0}};
  p.metrics["bw_avg_GBps"] = Metric::of(bw_GBps);
  return p;
}

ProbeResult job_allreduce(const std::string& backend, std::vector<std::string> hosts, std::size_t size, double busbw) {
  ProbeResult p;
  p.id = backend == "nccl" ? kNcclAllReduceProbe : kMpiAllReduceProbe;
  p.scope.hosts = std::move(hosts);
  p.params = {{"size_B", size}, {"in_place", false}, {"nranks", 2}};
  p.metrics["busbw_GBps"] = Metric::of(busbw);
  p.metrics["wrong_elements"] = Metric::of(0);
  return p;
}

const Verdict& node_of(const Judgement& j, const std::string& id) {
  for (const auto& v : j.verdicts)
    if (v.entity.kind() == EntityKind::node && v.entity.id() == id) return v;
  throw std::runtime_error("no node " + id);
}

// `mpirun -np 2 ibgpu check --profile cpu` on one CPU host: the all-reduce has no floor and no
// peers to compare with. That is ibgpu's gap, not the node's: healthy, exit 0.
TEST(DecisionScenarios, TwoRanksOnOneCpuHostAreHealthy) {
  const std::vector<HostInventory> hosts{cpu_host("h1", {0, 1})};
  const Judgement j = judge(hosts, {job_allreduce("mpi", {"h1"}, 1 << 20, 0.8)}, shipped("cpu"));
  EXPECT_EQ(node_of(j, "h1").state, HealthState::healthy);
  EXPECT_EQ(node_of(j, "h1").action, Action::admit);
  EXPECT_EQ(j.summary.exit_code, 0);
  ASSERT_EQ(node_of(j, "h1").reasons.size(), 1u);
  EXPECT_EQ(node_of(j, "h1").reasons[0].code, ReasonCode::NOT_JUDGED);
  EXPECT_EQ(node_of(j, "h1").reasons[0].evidence, Evidence::not_judged);
}

// ibgpu's time cap dropped the 16 MiB all-reduce: recorded, no node made unknown or drained.
TEST(DecisionScenarios, AStepIbgpusTimeCapDroppedDrainsNoNode) {
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
  for (int i = 1; i <= 6; ++i) hosts.push_back(cpu_host("h" + std::to_string(i), {i - 1}));
  for (int i = 1; i <= 6; ++i)
    for (int k = i + 1; k <= 6; ++k) probes.push_back(mpi_pair("h" + std::to_string(i), "h" + std::to_string(k), 0.26));
  std::vector<std::string> all{"h1", "h2", "h3", "h4", "h5", "h6"};
  probes.push_back(skipped(kMpiAllReduceProbe, Scope{all, {0, 1, 2, 3, 4, 5}, {}},
                           "not run: one iteration would take about 3.2 s ... past the 3 s time cap",
                           SkippedBy::ibgpu));
  const Judgement j = judge(hosts, probes, shipped("cpu"));
  EXPECT_EQ(j.summary.exit_code, 0);
  EXPECT_EQ(j.summary.admit.size(), 6u);
  EXPECT_TRUE(j.summary.drain.empty());
  const auto& reasons = node_of(j, "h1").reasons;
  ASSERT_FALSE(reasons.empty());
  EXPECT_EQ(reasons[0].code, ReasonCode::CHECK_NOT_RUN);

  // The same skip because of the node (a library missing) keeps the nodes out: fail closed.
  probes.back().skipped_by = SkippedBy::node;
  const Judgement closed = judge(hosts, probes, shipped("cpu"));
  EXPECT_EQ(closed.summary.exit_code, 3);
  EXPECT_EQ(closed.summary.drain.size(), 6u);
}

// Under a profile that expects GPUs, on hosts without a driver, every node is unchecked, and the slow one
// still shows its finding (failed: a fifth of its peers is under the fleet's failed level).
TEST(DecisionScenarios, ASlowHostAmongUncheckedPeersShowsItsFinding) {
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
  for (int i = 1; i <= 6; ++i) hosts.push_back(cpu_host("h" + std::to_string(i), {i - 1}));
  for (int i = 1; i <= 6; ++i)
    for (int k = i + 1; k <= 6; ++k)
      probes.push_back(mpi_pair("h" + std::to_string(i), "h" + std::to_string(k), i == 3 || k == 3 ? 0.05 : 0.26));
  for (const auto& h : hosts)
    probes.push_back(skipped(kInventoryGpuProbe, Scope{{h.name}, {}, {}}, "libnvidia-ml.so.1 not found"));
  Profile gpus = generic_profile();
  gpus.node.expect_gpus = 8;
  const Judgement j = judge(hosts, probes, gpus);
  EXPECT_EQ(node_of(j, "h1").state, HealthState::unknown);
  EXPECT_EQ(short_reasons(node_of(j, "h1")), "unknown; not checked: CHECK_SKIPPED");
  EXPECT_EQ(node_of(j, "h3").state, HealthState::failed);
  EXPECT_EQ(node_of(j, "h3").action, Action::drain);
  EXPECT_EQ(j.summary.exit_code, 2);
  EXPECT_NE(short_reasons(node_of(j, "h3")).find("NET_BW_OUTLIER"), std::string::npos);
}

// Six CPU hosts, one at a fifth of the fleet's bandwidth: not admitted (the fleet's failed level);
// one at 70%: admitted degraded.
TEST(DecisionScenarios, TheFleetRuleHasAFailedLevel) {
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
  for (int i = 1; i <= 6; ++i) hosts.push_back(cpu_host("h" + std::to_string(i), {i - 1}));
  for (int i = 1; i <= 6; ++i)
    for (int k = i + 1; k <= 6; ++k) {
      double bw = 1.0;
      if (i == 2 || k == 2) bw = 0.2;
      if (i == 5 || k == 5) bw = 0.7;
      if (i == 2 && k == 5) bw = 0.7;  // h5 has no pair under the failed level of its own
      probes.push_back(mpi_pair("h" + std::to_string(i), "h" + std::to_string(k), bw));
    }
  const Judgement j = judge(hosts, probes, shipped("cpu"));
  EXPECT_EQ(node_of(j, "h2").state, HealthState::failed);
  EXPECT_EQ(node_of(j, "h2").action, Action::drain);
  EXPECT_EQ(node_of(j, "h5").state, HealthState::degraded);
  EXPECT_EQ(node_of(j, "h5").action, Action::admit_degraded);
  EXPECT_EQ(j.summary.exit_code, 2);
}

// A floor holds the medium and size it is written for: the MPI host all-reduce at 16 MiB is
// not held to the NCCL NVLink floor written for 1 GiB, nor MPI within one host to the RDMA one.
TEST(DecisionScenarios, AFloorHoldsOnlyItsMediumAndSize) {
  testing::FleetShape shape;
  HostInventory host = testing::make_host(shape, 0);
  host.ranks = {0, 1};
  const Profile h100 = shipped("hgx-h100-ndr");
  std::vector<ProbeResult> probes{job_allreduce("mpi", {host.name}, 16 << 20, 0.31)};
  probes.push_back(mpi_pair(host.name, host.name, 2.0));
  for (const auto& gpu : host.gpus) {
    GpuHealth clean;
    clean.index = gpu.index;
    probes.push_back(gpu_health_result(host.name, clean));
  }
  const Judgement j = judge({host}, probes, h100);
  EXPECT_EQ(node_of(j, host.name).state, HealthState::healthy);
  EXPECT_EQ(j.summary.exit_code, 0);

  // NCCL at 1 GiB is held to it.
  probes[0] = job_allreduce("nccl", {host.name}, std::size_t{1} << 30, 300);
  const Judgement nccl = judge({host}, probes, h100);
  EXPECT_EQ(node_of(nccl, host.name).state, HealthState::failed);
  EXPECT_EQ(nccl.summary.exit_code, 2);
}

}  // namespace
}  // namespace ibgpu
