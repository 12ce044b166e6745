#pragma once
// The power of a plan: before a run, how likely it is to find a node (or one rail) slowed by a given
// fraction, and how many healthy nodes it is expected to flag by noise alone. The same model the
// fleet simulator draws from (app/fleet_sim.h): every pair's bandwidth lognormal with spread
// `sigma`, and rarely a transient bad sample. Pure.
//
// 1. The limits. The fleet rule (health/fleet.h) holds each pair against the good quartile less an
//    allowance the run's own shortfalls widen. The allowance depends on the plan (an end's good
//    quartile of one pair is the pair itself; of sixty-four, near its true quartile), on the
//    re-tests (their pairs join the ends' quartiles) and on the other slowed hosts (their pairs
//    widen the shortfalls), so it is read off the rule's own statistics (core/statistics.h) over
//    seeded modelled fleets of the plan's shape: up to 1,024 hosts and 64 peers each, laid out as
//    the planner lays out peers:K (PlanShape::pairs), every pair on every rail with its transient
//    bad samples, enough fleets for 131,072 measurements (1 to 256 fleets). Twice in each fleet: the first pass's
//    limit, whose bad pairs make that fleet's suspects (as a run's own reference moves, so does how many it re-tests),
//    and the final one, after the re-test pass the planner itself (health/localise.h plan_retests) lays out for those
//    suspects; with it the noise the run would measure and how many partners a suspect meets.
// 2. One pair. A pair of a unit slowed to `f` reads under a limit with
//        p = (1 - t) Phi((l - ln f) / sigma) + t Phi((l - ln f - ln tf) / sigma)
//    (l: the limit in log space from a healthy pair's median; t, tf: the transient rate and factor).
// 3. The unit. Localisation (health/localise.h) blames a unit (a host's rail) bad with at least two
//    peers and a majority of them: in the first pass, a binomial over its K peers at the first
//    limit. A suspect that fewer than kConfirmedByPeers peers confirm is re-tested: its bad pairs are
//    measured again and stay bad when both figures lie past the final limit by the run's noise of
//    their mean. A culprit's stand (at the final limit) unless its other end is not cleared: the
//    host pair suspect on another rail, or the other end bad with someone else. Its host meets the
//    partners the pass has for it. A host is re-tested when any rail of it is a suspect, so its
//    rails' outcomes are joined through that (an exact sum over the branches with and without the
//    re-test, over how many of its rails are suspects, and over the partners met): each host pair
//    bad on a suspect rail is measured again on every rail, so the more rails go unconfirmed, the
//    more pairs the confirmed ones lose with them; later passes are per rail. A host its confirmed
//    rails blame as a node is not re-tested at all: their bad pairs stand. A slowed host's peers
//    that carry the fault too and are suspects themselves count neither way (localise leaves pairs
//    with candidates out): it is judged over fewer peers. A cleared host is a partner:
//    it meets the suspects the pass has for it, a pair more with each (on one quick round, where
//    about half the fleet is re-tested, that is how about half the healthy nodes get flagged: 2.0
//    of 4.2 a run at 256 nodes, noise 0.1, in the model and in seeded runs alike).
// 4. The node. Found (not admitted as healthy) when a rail of it is a culprit; blamed as a node when
//    localise's host_is_culprit holds over its rails. The power is the mean over the modelled
//    fleets, each at its own limits (a run's limits move from run to run, and near certainty a lower
//    one loses more than a higher one gains); the healthy nodes flagged are stated at their mean.
// A fault is stated among as many slowed hosts as the plan says (PlanShape::slowed_share): simulate
// states it among those it injected, check for a node alone.
// The simulator checks it: ci/bench/plan_power.sh runs seeded fleets and sets the rate found beside
// the stated power (docs/burn-in-and-simulate.md has the tables).
#include <string>
#include <utility>
#include <vector>

#include "health/profile.h"

namespace ibgpu {

// What the model needs to know of the plan.
struct PlanShape {
  int hosts = 2;
  int rails = 1;              // units per host (one per rail; a host-wide pair plan is one)
  int peers = 1;              // distinct peers a host meets in the plan's rounds
  int retest_passes = 1;      // re-test passes (check --retests)
  int peers_per_suspect = 2;  // known-good partners a suspect meets in each pass
  // The share of the hosts that carry the fault alike, the one whose power is stated among them
  // (simulate: those it injected). 0: the fault alone, as check states it.
  double slowed_share = 0;
  // The host pairs of the plan's rounds over the first power_model_hosts(hosts) hosts, as its planner
  // lays them out (app/check_plan.h power_shape: peers:K's spread rounds and leaf round). Empty: a
  // ring of offsets, `peers` each, which lays out one quick round and every pair alike.
  std::vector<std::pair<int, int>> pairs = {};
};

// The modelled fleets have at most this many hosts, and a host at most this many peers: the rule's
// allowance has settled by then. A plan of more peers is modelled as a ring of this many.
constexpr int kPowerModelHosts = 1024;
constexpr int kPowerModelPeers = 64;
inline int power_model_hosts(int hosts) { return hosts < kPowerModelHosts ? hosts : kPowerModelHosts; }

// The measurement noise the power is stated at.
struct NoiseModel {
  double sigma = 0.05;            // one pair measurement's spread in log space
  double transient_rate = 0;      // chance that a measurement is a transient bad sample
  double transient_factor = 0.5;  // ... which carries this fraction
};

// The power against one kind of fault.
struct FaultPower {
  double carries = 1;           // the slowed unit's fraction of a healthy pair's bandwidth (0.8: 20% slow)
  double pair_bad = 0;          // one of its pairs reads under the limit
  double node_found = 0;        // a node slowed on every rail is not admitted as healthy
  double node_blamed = 0;       // ... and is blamed as a node
  double rail_found = 0;        // one rail (its HCA port or cable) slowed is blamed
  double limit = 1;             // the fleet limit where the plan's slowed share carries this fault
  double expected_flagged = 0;  // the fleet's healthy nodes not admitted as healthy there, per run
};

struct PlanPower {
  PlanShape plan;
  NoiseModel noise;
  double limit = 1;                 // the fleet limit as a fraction of a healthy pair's median
  double healthy_pair_bad = 0;      // a healthy pair reads under it
  double healthy_node_flagged = 0;  // a healthy node is not admitted as healthy
  double expected_flagged = 0;      // ... of the fleet's nodes, per run
  std::vector<FaultPower> faults;   // one per `carries` asked
};

// check --detect SLOW@POWER: a node slowed by `slowed` (0.2: to 80%) must be found with chance
// `power` or more.
struct DetectTarget {
  double slowed = 0.2;
  double power = 0.95;
};

// `carries`: the fractions a slowed unit carries (0.9, 0.8, 0.5 for 10%, 20%, 50% slow).
PlanPower plan_power(const PlanShape& plan, const FleetRules& rules, const NoiseModel& noise,
                     const std::vector<double>& carries);

// The plan line's words: "at noise 0.050, finds a node slowed 10%/20%/50% with chance
// 0.22/1.00/1.00, one rail 0.15/1.00/1.00; expects 0.0 healthy nodes flagged by noise alone".
std::string power_text(const PlanPower& power);

}  // namespace ibgpu
