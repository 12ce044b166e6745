#pragma once
// A fleet simulator: the real pair plans, budget planner, re-test decisions, judge and
// localiser (no copies of them) driven over a modelled fleet instead of MPI. N hosts with R
// rails, each rail a fabric of its own (rail-optimised): leaf switches of `hosts_per_leaf`
// consecutive hosts, each leaf with `uplinks_per_leaf` uplinks to the spines, the uplink a
// pair's traffic takes fixed by its destination (destination-modulo routing). Bandwidth
// measurements carry lognormal noise and rare transient bad samples; faults are injected and
// the verdicts scored against them. Only the pairs' bandwidth at the largest size is
// simulated (what the judge reads); latency, local health and the all-reduce are not.
// Deterministic for a seed: every number is a hash of the seed and what it is drawn for.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/check_plan.h"
#include "core/fabric_topology.h"
#include "health/power.h"
#include "health/profile.h"

namespace ibgpu {

struct FleetModel {
  int hosts = 256;
  int rails = 8;
  int hosts_per_leaf = 32;
  int uplinks_per_leaf = 16;
  double bw_GBps = 48;            // a healthy pair on one rail (NDR)
  double noise_sigma = 0.1;       // lognormal sigma of each bandwidth measurement
  double transient_rate = 0.001;  // chance that a measurement is a transient bad sample
  double transient_factor = 0.5;  // ... which carries this fraction
  double slow_factor = 0.5;  // a slow node, rail, link or uplink carries this fraction (a port at half width or speed)
  double meeting_timeout_s = 60;  // what a pair with a dead end costs its round
  std::uint64_t seed = 1;
};

// How many of each fault to inject (counts; a command turns percentages into them).
struct FaultCounts {
  int slow_nodes = 0;   // every rail of the host slow
  int dead_nodes = 0;   // the host answers no one
  int bad_batch = 0;    // this many consecutive hosts slow (a bad delivery batch)
  int slow_rails = 0;   // one host's HCA port slow
  int bad_links = 0;    // one host's cable to its leaf, on one rail, slow
  int bad_uplinks = 0;  // one uplink of one leaf slow: the pairs routed over it
  int dead_leaves = 0;  // one leaf switch of one rail down: its hosts' rail dead
};

struct Uplink {
  int rail = 0, leaf = 0, port = 0;
  auto operator<=>(const Uplink&) const = default;
};

// The injected truth.
struct FleetFaults {
  std::set<int> slow_nodes, dead_nodes, batch;
  std::set<std::pair<int, int>> slow_rails, bad_links;  // (host, rail)
  std::set<Uplink> bad_uplinks;
  std::set<std::pair<int, int>> dead_leaves;  // (rail, leaf)

  bool node_fault(int host) const { return slow_nodes.count(host) || dead_nodes.count(host) || batch.count(host); }
  // A host's rail that is bad on its own: its port, its cable, or its leaf.
  bool rail_fault(int host, int rail, int hosts_per_leaf) const;
};

// Draws the faults: distinct hosts for node faults, rails and links of other hosts.
// Throws std::invalid_argument when they do not fit the fleet.
FleetFaults draw_faults(const FleetModel& model, const FaultCounts& counts);

// One pair's measurement on one rail: its bandwidth, or nothing when an end is dead.
// `draw` tells re-measurements of the same pair apart.
std::optional<double> simulated_bandwidth(const FleetModel& model, const FleetFaults& faults, int a, int b, int rail,
                                          std::uint64_t draw);

// Whether the pair's traffic on a rail crosses the uplink (either direction).
bool crosses(const FleetModel& model, int a, int b, const Uplink& uplink);

// How well the verdicts match the truth, per kind of entity.
struct Score {
  int injected = 0, found = 0;  // recall: found / injected
  int blamed = 0, correct = 0;  // precision: correct / blamed
};

struct SimOutcome {
  std::string plan;                  // the pair plan that ran (after --budget)
  std::vector<std::string> dropped;  // what the budget dropped, in words
  int network_rounds = 0, retest_rounds = 0;
  std::size_t measurements = 0;
  double simulated_s = 0;  // the rounds at the cost model (each round as long as its slowest pair)
  bool judged = false;     // false: too many measurements to simulate (rounds and time are estimates)
  Score node, rail, link;  // link: blamed links that an injected fault explains
  // With the topology: a dead leaf (rail, leaf) is the switch's, not its hosts' rails; a leaf with a
  // bad uplink on a rail is the uplink's (blamed: uplink verdicts; correct: on a leaf and rail with one).
  Score leaf_switch, uplink;
  int paths = 0;         // path verdicts (a cut between groups; the judge finds them with or without a topology)
  int uplink_pairs = 0;  // measured pairs whose route crosses a bad uplink
  int healthy_drained = 0, healthy_degraded = 0;  // fault-free hosts not admitted as healthy
  int nodes_slowed = 0;                           // hosts slowed on every rail (slow or in the bad batch)
  int nodes_flagged = 0;                          // ... of them, not admitted as healthy
  // What the plan was stated to find (health/power.h) at the model's noise and slow factor:
  // faults.front() is the slow factor's.
  PlanPower power;
  double cpu_s = 0;           // the whole simulation
  double rank0_cpu_s = 0;     // of it, rank 0's part of a real run: the payloads read, assembled and judged
  std::size_t assembled = 0;  // results rank 0 assembled from the payloads: all the measurements, no more
};

struct SimSettings {
  CheckSteps steps;                        // the check's steps (pair plan, sizes, re-test passes)
  std::optional<Seconds> budget;           // as check --budget: the planner picks the plan
  std::size_t max_measurements = 3000000;  // above: rounds and time only, not judged
  Profile profile = generic_profile();
  bool topology = true;  // the judge knows the modelled leaves, as check --topology
};

// The modelled leaves as topology.conf would list them: "leaf0003" holds hosts 24-31 (of 8 per
// leaf), one spine above them. One leaf per rail in the model is one switch name here: the
// verdicts add the rail ("leaf0003/mlx5_2:1").
FabricTopology sim_topology(const FleetModel& model);

// The steps `ibgpu check` would run by default, the all-reduce left out (not simulated).
CheckSteps default_sim_steps();

SimOutcome simulate(const FleetModel& model, const FleetFaults& faults, const SimSettings& settings);

// "node00042", "mlx5_3:1", "leaf0003": the names the simulated reports use.
std::string sim_host_name(int host);
std::string sim_leaf_name(int leaf);
std::string sim_rail_name(int rail);

}  // namespace ibgpu
