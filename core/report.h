#pragma once
// The whole result of one run, as rank 0 renders it. The JSON Schema in
// reports/schema/report.schema.json is the contract for its JSON form.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "core/verdict.h"

namespace ibgpu {

// 2: results carry their time, reasons cite their result (probe, size_B, port, peer_port), hosts
// what each rank was given (cuda_visible_devices). 3: a reason from measurements carries its
// confidence (health/confidence.h). An older report is a newer one without them, and reads as it
// did.
inline constexpr int kSchemaVersion = 4;

struct ToolInfo {
  std::string name = "ibgpu";
  std::string version;
  std::string git;
};

// What a run can check. A fleet (two hosts or more) measures between hosts; a
// node alone (every rank on one host: a node back from repair, a Slurm health
// check or Prolog) checks what a node can show by itself, and the checks that
// need other hosts are out of scope: neither passed nor unknown.
enum class RunScope { fleet, node };

inline const char* to_string(RunScope scope) { return scope == RunScope::node ? "node" : "fleet"; }
inline std::optional<RunScope> run_scope_from_string(const std::string& text) {
  if (text == "fleet") return RunScope::fleet;
  if (text == "node") return RunScope::node;
  return std::nullopt;
}

// Whether the run was asked to act on its decisions (--slurm-drain, --drain-cmd, --resume-cmd), and how.
enum class AdmissionActions { none, dry_run, run };

inline const char* to_string(AdmissionActions a) {
  return a == AdmissionActions::run ? "run" : a == AdmissionActions::dry_run ? "dry_run" : "none";
}

inline std::optional<AdmissionActions> admission_actions_from_string(const std::string& text) {
  if (text == "none") return AdmissionActions::none;
  if (text == "dry_run") return AdmissionActions::dry_run;
  if (text == "run") return AdmissionActions::run;
  return std::nullopt;
}

// One host is a node's own check.
inline RunScope scope_of(const std::vector<HostInventory>& hosts) {
  return hosts.size() == 1 ? RunScope::node : RunScope::fleet;
}

struct RunInfo {
  std::string id;
  std::string started;   // RFC 3339, UTC
  std::string finished;  // RFC 3339, UTC
  std::vector<std::string> command;
  nlohmann::json profile = nlohmann::json::object();  // the thresholds actually applied
  std::optional<double> budget_s;
  int ranks = 1;
  RunScope scope = RunScope::fleet;
  std::vector<std::string> notes;  // what the run could not do, in words (e.g. ranks lost)
  // A burn-in's round: the burn-in's run id (its summary report's, and its stream's header's).
  std::string parent;
  // What the launcher said was tested, from rank 0's environment (kLaunchVariables, those set):
  // the Slurm job and its nodes, the GPUs the rank was given.
  std::map<std::string, std::string> launch;
  // A stop signal arrived (Ctrl-C, scancel, a time limit): what was not measured is unknown,
  // and no admission action runs on this report.
  bool interrupted = false;
  // Requested admission actions: they run after the report is written (in an interrupted run,
  // none runs), and what they did joins the notes.
  AdmissionActions actions = AdmissionActions::none;
};

// ---- Burn-in: many check rounds in one launch (health/burn_in.h) ----------

// One judged figure of one entity across the rounds (a Measurement kind of
// health/thresholds.h, per rail pair on a link).
struct BurnInFigure {
  std::string figure;            // Measurement.kind: "net.verbs.write_bw@8388608:bw_avg_GBps"
  std::string metric;            // "bw_avg_GBps"
  std::string rails;             // "mlx5_0:1<->mlx5_0:1" on a link measured per rail; empty otherwise
  bool higher_is_better = true;  // a floor (bandwidth); false for a ceiling (latency)
  double worst = 0;              // min for a floor, max for a ceiling
  double median = 0;             // nearest rank, as core/units.h
  std::size_t count = 0;         // measurements over all rounds (re-tests included)
  // The figure round by round: its worst in each round it was measured in (rounds count from 1),
  // so a report can draw it over the run.
  struct Point {
    int round = 0;
    double value = 0;
  };
  std::vector<Point> series;
};

// What an entity's rounds came to, as the burn-in (health/burn_in.h) decides and the reports
// print and count, the first that holds: flaky (BURN_IN_FLAKY: bad in some rounds and not in
// others, or its findings came and went); seen once (BURN_IN_SEEN_ONCE: its bandwidth dropped
// deep in one round only); not passed (failed or unchecked) in every round; degraded in every
// round; not healthy in some rounds, within the run's noise; healthy in every round but a figure
// got steadily worse (BURN_IN_DRIFT); else healthy.
enum class BurnInClass { healthy, bad_every_round, flaky, seen_once, degraded_every_round, some_rounds, drifting };
const char* to_string(BurnInClass c);  // "healthy", "bad_every_round", ...
std::optional<BurnInClass> burn_in_class_from_string(std::string_view text);

// What the rounds said about one entity.
struct BurnInEntity {
  Entity entity;
  int rounds_judged = 0;  // rounds with a verdict for it; absent rounds are not counted
  int healthy = 0, degraded = 0, failed = 0, unknown = 0;
  // Rounds it passed (healthy or degraded) over rounds judged; unknown does
  // not pass (an unchecked round is no evidence of health).
  double pass_ratio = 0;
  std::optional<int> first_not_healthy_round, last_not_healthy_round;      // rounds count from 1
  std::vector<int> not_passed_rounds;                                      // failed or unknown
  std::map<ReasonCode, int, ReasonCodeByName> reasons;                     // reason code -> rounds it appeared in
  std::map<ReasonCode, std::vector<int>, ReasonCodeByName> reason_rounds;  // reason code -> those rounds
  std::vector<BurnInFigure> figures;
  std::map<std::string, double> counter_deltas;  // IB error counters summed over the run (ports)
  std::map<std::string, int> counter_resets;     // rounds a counter went backwards (not summed)
  // None for an entity with no round judged (only measured, as a re-test pair), and in a report
  // written before the burn-in named its classes (burn_in_class gives it from the verdict's codes).
  std::optional<BurnInClass> burn_in_class;
};

// The class of e's rounds (above): flaky, seen once and drifting are the burn-in's own findings,
// read from its verdict v (BURN_IN_FLAKY, BURN_IN_SEEN_ONCE, BURN_IN_DRIFT; none without one);
// the rest is e's counts. None for an entity with no round judged.
std::optional<BurnInClass> burn_in_class(const BurnInEntity& e, const Verdict* v);

struct BurnInStats {
  int rounds = 0;
  std::optional<double> duration_s;  // as asked for
  std::optional<double> interval_s;  // between round starts, as asked for
  std::string first_round_started;   // RFC 3339, UTC; empty when unknown
  std::string last_round_finished;
  std::vector<BurnInEntity> entities;  // in order of first appearance
};

struct Report {
  int schema_version = kSchemaVersion;
  ToolInfo tool;
  RunInfo run;
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
  std::vector<Verdict> verdicts;
  RunSummary summary;
  std::optional<BurnInStats> burn_in;  // burn-in runs only
  std::vector<WorkOrder> work_orders;  // check --cabling only (health/work_orders.h)
};

}  // namespace ibgpu
