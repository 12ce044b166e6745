#pragma once
// The plan of `ibgpu check`: which steps run, at which sizes and iterations,
// how many re-test passes, and, with --budget, what had to be dropped to fit.
// Pure: every rank computes the same plan from the same options and world
// shape, so no rank waits for a step another rank left out.
#include <optional>
#include <string>
#include <vector>

#include "app/collectives.h"
#include "app/network.h"
#include "app/text.h"
#include "health/power.h"
#include "health/profile.h"

namespace ibgpu {

enum class CheckPreset { standard, quick, full };

struct CheckSteps {
  NetOptions net;
  bool collectives = true;
  CollectiveOptions allreduce = check_allreduce_defaults();
  int retests = 1;  // re-test passes over suspect pairs (0: none)
};

// What the options leave unset takes the preset's value (--quick, --full).
struct PresetDefaults {
  PairMode pairs = PairMode::all;  // all | quick
  std::vector<std::size_t> bw_sizes;
  int lat_iters = 1000;
  std::vector<std::size_t> allreduce_sizes;
  int allreduce_iters = 10;
  int retests = 1;
};
PresetDefaults preset_defaults(CheckPreset preset);

// `check --allreduce-sizes judged` (and --full): the sweep goes on to the size the profile's
// all-reduce floor is written for (limits.min_size_B), where the profile has such a floor and
// `allreduce`'s sizes stop below it. The size added is recorded in allreduce.floor_sizes, to run
// over the floor's backend only. Returns whether a size was added.
bool sweep_to_floor(CollectiveOptions& allreduce, const AllReduceLimits& limits);

// The shape of the launch, as far as the cost of a plan depends on it.
struct LaunchShape {
  int hosts = 1;
  int ranks = 1;
  int pair_rounds = 0;        // network rounds of the requested pair plan
  int quick_pair_rounds = 0;  // ... of --pairs quick
  int all_pair_rounds = 0;    // ... of --pairs all, loopback aside (--pairs peers:K runs min(K, this))
  int loopback_rounds = 0;    // the round of each host's ranks meeting each other (--loopback, one host)
  int leaf_rounds = 0;        // with a topology, peers:K's round of hosts meeting a leaf-mate (0 or 1)
  int placements = 1;         // all-reduce placements that run
};

// Network rounds the steps' pair plan runs in a launch of this shape; of them, the round of hosts
// meeting a leaf-mate (0 or 1: peers:K below every pair, with a topology).
int pair_rounds_of(const CheckSteps& steps, const LaunchShape& shape);
int leaf_rounds_of(const CheckSteps& steps, const LaunchShape& shape);

// The peers:K plans a budget chooses from, largest first: below every pair, each halves the
// rounds; below the smallest, one quick round.
constexpr int kPeerPlans[] = {64, 32, 16, 8, 4, 2};

// Nominal speeds for estimates; the profile's port rate when it has one.
struct CostModel {
  double bw_GBps = 1.0;        // per pair, bandwidth probes
  double busbw_GBps = 1.0;     // all-reduce
  double lat_us = 20.0;        // one latency iteration, one way
  double pair_setup_s = 0.05;  // meeting, connection set-up
  double collective_setup_s = 0.2;
};

// Seconds the steps would take (an estimate, not a promise).
double estimate_seconds(const CheckSteps& steps, const LaunchShape& shape, const CostModel& cost);
// Seconds they take at most however slow the links: every measurement runs to its time cap
// (set-up and the launcher's start not counted).
double worst_case_seconds(const CheckSteps& steps, const LaunchShape& shape, const CostModel& cost);

// What the plan says of the all-reduce and the profile's floor: the size added to reach it, or,
// where the sweep stops below it, that the figures are recorded, not judged by it, and what
// reaching it would add to the estimate. Empty without a floor or without the all-reduce step.
std::string floor_plan_text(const CheckSteps& steps, const LaunchShape& shape, const CostModel& cost,
                            const AllReduceLimits& limits);

// The shortest time cap a budget may impose on one measurement.
constexpr double kSmallestTimeCapS = 0.05;

// The part of a budget that measurements may use while running (pairs started, re-test rounds
// kept); the rest is the report's.
constexpr double kBudgetForMeasuring = 0.95;

// A step between the network rounds and the all-reduce (a re-test pass) is begun only while less
// than this part of the budget is spent: the last tenth is left to finishing what is under way
// (the measuring part, kBudgetForMeasuring) and to the report, not to a pass that could keep few
// rounds, if any.
constexpr double kBudgetForStartingStep = 0.9;

// Whether such a step may still begin `elapsed` into the check: always without a budget. The
// re-test check and the fleet simulator ask the same question, so they take the same path.
bool time_left_for_another_step(std::optional<Seconds> budget, Seconds elapsed);

// What the power model (health/power.h) needs of the steps and the launch: its hosts, their rails
// (ranks per host), the peers each host meets in the pair plan, peers:K's pairs as the planner lays
// them out, and the re-test passes.
PlanShape power_shape(const CheckSteps& steps, const LaunchShape& shape);

// The slowed fractions the plan line states the power for: 10%, 20%, 50%.
inline const std::vector<double> kStatedCarries = {0.9, 0.8, 0.5};

// check --detect: of quick, peers:K for each K of kPeerPlans (smallest first) and every pair, the
// cheapest pair plan that finds a node slowed by target.slowed with target.power or more at the
// profile's [confidence].default_noise; where none does, the one that comes closest. `steps`
// keeps its other settings (and its leaves).
struct DetectChoice {
  PairPlan pairs;
  PlanPower power;  // of the chosen plan, at target.slowed
  bool reached = false;
};
DetectChoice plan_to_detect(const CheckSteps& steps, const LaunchShape& shape, const Profile& profile,
                            const DetectTarget& target);

struct CheckPlan {
  CheckSteps steps;
  double estimate_s = 0;
  double worst_case_s = 0;            // every measurement at its time cap
  std::optional<double> capped_to_s;  // the time cap the budget set, when it set one
  std::optional<Seconds> budget;
  std::vector<std::string> dropped;  // in words, in the order dropped
  bool fits = true;                  // false: even the smallest plan is over budget
};

// Without a budget the steps run as given. With one, the plan sheds work in
// order of least value lost (smallest bandwidth size beyond the last; the
// pairs: every pair, or peers:K, gives way to the largest peers:K of
// kPeerPlans that fits, else one quick round; small all-reduce sizes, latency iterations,
// re-test passes beyond one, the all-reduce) until the estimate fits 80% of
// the budget; the rest is kept for re-tests and stragglers. Then it shortens
// every measurement's time cap until the worst case fits that 80% as well.
CheckPlan plan_check(const CheckSteps& requested, const LaunchShape& shape, const CostModel& cost,
                     std::optional<Seconds> budget);

}  // namespace ibgpu
