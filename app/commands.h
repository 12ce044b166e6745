#pragma once
// The library side of each subcommand: one function each, called by cli/.
#include <optional>

#include "app/collectives.h"
#include "app/fleet_sim.h"
#include "app/local_checks.h"
#include "app/network.h"
#include "app/pipeline.h"
#include "core/fabric_topology.h"
#include "health/baseline.h"
#include "health/profile.h"
#include "scheduler/admission_actions.h"

namespace ibgpu {

struct InventoryOptions {
  CommonOptions common;
};
int run_inventory(MpiSession& session, const InventoryOptions& options);

struct CheckOptions {
  CommonOptions common;
  Profile profile = generic_profile();
  NetOptions net;
  bool collectives = true;  // the all-reduce step, after the network probes
  CollectiveOptions allreduce = check_allreduce_defaults();
  LocalSkips skip;                     // --skip: local checks left out, not judged
  std::string imex_root = "/";         // --imex-root: where node.imex reads /proc, /dev and /etc
  int retests = 1;                     // re-test passes over suspect pairs
  std::optional<Seconds> budget;       // --budget: fit the plan to it
  std::optional<DetectTarget> detect;  // --detect: the cheapest pair plan with this power (app/check_plan.h)
  AdmissionActionOptions actions;      // drain / resume in the scheduler, after the report
  // --baseline: fleet medians from saved runs (health/baseline.h), for the kinds it has.
  std::optional<Baseline> baseline;
  std::string baseline_path;
  // --topology: Slurm's topology.conf, so localisation can blame a leaf switch or its uplinks.
  std::optional<FabricTopology> topology;
  // --cabling: the fabric's cabling as ibnetdiscover prints it (core/cabling.h), read by rank 0
  // alone before anything runs, for the work orders (health/work_orders.h).
  std::string cabling_path;
  // --history: each node's checks kept in this folder (app/history_store.h), judged with this one.
  std::string history_dir;
};
int run_check(MpiSession& session, const CheckOptions& options);

// `ibgpu burn-in`: check rounds for a duration, streamed as JSON Lines.
struct BurnInOptions {
  CheckOptions check;
  double duration_s = 0;   // no round starts that would not end within it; 0: no limit (rounds is then set)
  int rounds = 0;          // stop after this many finished rounds; 0: as many as the duration holds
  double interval_s = 0;   // from the start of one round to the next; 0: back to back
  std::string jsonl_path;  // one record per finished round
};
int run_burn_in(MpiSession& session, const BurnInOptions& options);

struct ProbeOptions {
  CommonOptions common;
  NetOptions net;  // bandwidth or latency only, per subcommand
};
int run_probe(MpiSession& session, const ProbeOptions& options);

// `ibgpu probe list`: the probe catalogue and what can run here (no MPI).
struct ProbeListOptions {
  CommonOptions common;  // json_path, sysfs_root
};
int run_probe_list(const ProbeListOptions& options);

struct AllReduceOptions {
  CommonOptions common;
  CollectiveOptions collectives;
};
int run_allreduce_command(MpiSession& session, const AllReduceOptions& options);

// `ibgpu report`: works on saved JSON reports, without MPI. Exactly one mode:
// render `files` (default), --compare OLD NEW, or --baseline-out FILE from `files`.
struct ReportOptions {
  CommonOptions common;  // format, json_path (the comparison's JSON)
  std::vector<std::string> files;
  std::string output;  // "" stdout
  std::vector<std::string> compare;
  double compare_threshold = 0.1;
  std::string baseline_out;
};
void check_report_options(const ReportOptions& options);
// `ibgpu explain`: reason codes from the table in the binary (core/reason_codes.h), no MPI.
struct ExplainOptions {
  CommonOptions common;           // not read: explain takes none of the common options
  std::vector<ReasonCode> codes;  // none: list them all
  bool markdown = false;          // the table of docs/reason-codes.md
};
int run_explain(const ExplainOptions& options);  // throws UsageError

// `ibgpu history`: the checks `check --history DIR` kept, judged by the profile's [history]
// rules (health/history.h); no MPI. No nodes: the fleet, one row each; else each node's timeline.
struct HistoryOptions {
  CommonOptions common;  // json_path
  std::string dir;
  std::vector<std::string> nodes;
  Profile profile = generic_profile();
};
int run_history(const HistoryOptions& options);
int run_report(const ReportOptions& options);  // throws UsageError for unreadable input

// `ibgpu simulate`: the check's planning, re-tests, judge and localiser over a modelled
// fleet (app/fleet_sim.h), one row per pair plan, the same fleet and faults for each. No MPI.
struct SimulateOptions {
  CommonOptions common;
  FleetModel model;
  FaultCounts faults;
  std::vector<CheckSteps> plans;  // one run each
  std::optional<Seconds> budget;  // as check --budget
  std::size_t max_measurements = SimSettings{}.max_measurements;
  bool topology = true;                 // the judge knows the modelled leaves (--topology model), or not (none)
  Profile profile = generic_profile();  // the judge's rules (--profile)
};
int run_simulate(const SimulateOptions& options, std::ostream& out);

// Reads a --baseline file; throws UsageError naming the file.
Baseline load_baseline(const std::string& path);

// Reads a --topology file (Slurm's topology.conf); throws UsageError naming the file and line.
FabricTopology load_topology(const std::string& path);

// Shared by commands: the first rank on each host describes the host.
RankResult describe_host(const MpiSession& session, const CommonOptions& options);

}  // namespace ibgpu
