#include <charconv>
#include <cmath>
#include <iostream>
#include <map>

#include "app/commands.h"
#include "app/text.h"
#include "core/errors.h"
#include "subcommand.h"

namespace ibgpu::cli {

namespace {

// "3" is a count, "1%" or "0.5%" a share of `of` (rounded, at least 1 when above 0).
int amount(const std::string& option, const std::string& text, int of) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  double v = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (number.empty() || ec != std::errc{} || end != number.data() + number.size() || !std::isfinite(v) || v < 0 ||
      (percent && v > 100) || (!percent && v != std::floor(v)))
    throw UsageError(option + " " + text + ": expected a count (3) or a percentage (1%, 0.5%)");
  if (!percent) return static_cast<int>(std::min(v, 1e9));
  const double share = v / 100 * of;
  return share > 0 ? std::max(1, static_cast<int>(std::lround(share))) : 0;
}

CheckSteps plan_steps(const std::string& plan, int retests) {
  CheckSteps s = default_sim_steps();
  s.retests = retests;
  if (plan == "all") {
    s.net.pairs.mode = PairMode::all;
  } else if (plan == "quick") {
    s.net.pairs.mode = PairMode::quick;
  } else if (plan.starts_with("peers:")) {
    s.net.pairs.mode = PairMode::peers;
    s.net.pairs.peers = parse_peer_count(plan);
  } else {
    throw UsageError("--plan " + plan + ": expected all, quick or peers:K (e.g. peers:16)");
  }
  return s;
}

}  // namespace

Subcommand add_simulate(CLI::App& parent) {
  auto options = std::make_shared<SimulateOptions>();
  auto plans = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"all", "quick", "peers:16"});
  auto faults = std::make_shared<std::map<std::string, std::string>>();
  auto budget = std::make_shared<std::string>();
  auto retests = std::make_shared<int>(default_sim_steps().retests);
  auto profile = std::make_shared<std::string>("generic");
  CLI::App* sub = parent.add_subcommand(
      "simulate",
      "Run the check's pair plans, re-tests, judge and localiser over a modelled fleet with injected "
      "faults, and score the verdicts (no MPI, no probes)");
  FleetModel& m = options->model;
  sub->add_option("--nodes", m.hosts, "Nodes in the fleet")->check(whole_number(2, 1 << 20))->capture_default_str();
  sub->add_option("--rails", m.rails, "Rails per node (one HCA port and GPU each)")
      ->check(whole_number(1, 64))
      ->capture_default_str();
  sub->add_option("--hosts-per-leaf", m.hosts_per_leaf,
                  "Consecutive nodes under one leaf switch (per rail: every rail is a fabric of its own)")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--uplinks-per-leaf", m.uplinks_per_leaf,
                  "Uplinks from each leaf to the spines; a pair's traffic takes the one its destination picks")
      ->check(whole_number(1, 4096))
      ->capture_default_str();
  sub->add_option("--plan", *plans,
                  "Pair plans to compare, one row each: all (every pair), quick (one round), peers:K (K rounds, "
                  "K distinct peers per node, spread over the host list), each followed by the check's re-tests")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--budget", *budget,
                  "As check --budget: the planner shrinks each plan to the largest that fits DURATION "
                  "(peers:K halving down to one quick round)")
      ->type_name("DURATION");
  sub->add_option("--retests", *retests, "Re-test passes after the plan's rounds, as check --retests")
      ->check(whole_number(0, 10))
      ->capture_default_str();
  const std::vector<std::pair<const char*, const char*>> fault_options = {
      {"--bad-nodes", "Slow nodes (every rail slow): a count or a percentage of the nodes"},
      {"--dead-nodes", "Dead nodes (no answer on any rail): a count or a percentage of the nodes"},
      {"--bad-batch", "A batch of this many consecutive slow nodes (count or percentage)"},
      {"--bad-rails", "Slow HCA ports: a count or a percentage of the nodes x rails"},
      {"--bad-links",
       "Slow cables from a node's rail to its leaf: a count or a percentage of the nodes x rails. "
       "To pair tests a bad link and a bad rail look alike: both are blamed on the rail (hca_port)"},
      {"--bad-uplinks",
       "Slow uplinks from a leaf to a spine (count): only the pairs routed over one are slow. With "
       "--topology model the judge blames the leaf's uplinks; without it they show as link or path "
       "blames, or not at all"},
      {"--dead-leaves", "Leaf switches down (count): one rail of each of their nodes is dead"},
  };
  for (const auto& [name, help] : fault_options) sub->add_option(name, (*faults)[name], help)->type_name("N|PCT%");
  sub->add_option("--noise", m.noise_sigma, "Lognormal sigma of every bandwidth measurement")
      ->check(finite_range(0, 2))
      ->capture_default_str();
  sub->add_option("--transients", m.transient_rate, "Chance that one measurement is a transient bad sample")
      ->check(finite_range(0, 1))
      ->capture_default_str();
  sub->add_option("--slow-factor", m.slow_factor, "The fraction of bandwidth a slow node, rail, link or uplink carries")
      ->check(finite_range(0.01, 1))
      ->capture_default_str();
  sub->add_option_function<std::string>(
         "--topology", [options](const std::string& v) { options->topology = v == "model"; },
         "model: the judge knows the modelled leaves, as check --topology FILE would tell it (switch and uplink "
         "verdicts); none: it does not (the check without --topology)")
      ->check(CLI::IsMember({"model", "none"}))
      ->default_str("model");
  sub->add_option(
         "--profile", *profile,
         "The rules the judge applies, as check --profile: its [fleet] rule and [confidence] (whether a failed "
         "finding on weak evidence drains); the default, generic, is the check's")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  sub->add_option("--seed", m.seed, "Seed of the faults and the noise: the same seed, the same table")
      ->capture_default_str();
  sub->add_option("--max-measurements", options->max_measurements,
                  "Plans with more pair measurements are not judged (rounds and time only): memory and CPU")
      ->check(whole_number(1, 100000000))
      ->capture_default_str();
  sub->footer(
      "What it runs: the check's own planner (--budget), pair schedules, re-test decisions (suspects again,\n"
      "and re-paired with known-good nodes), judge and localiser, over simulated bandwidth measurements\n"
      "(the largest size; latency, local health and the all-reduce are not modelled).\n"
      "What it prints: per plan, the rounds (network + re-test), the simulated time by the check's cost\n"
      "model, recall (found/injected) and precision (correct/blamed) of node and rail verdicts, how the\n"
      "uplink's pairs were blamed, and fault-free nodes drained or admitted degraded.\n"
      "Exit codes: 0 the table was printed, 64 usage error.\n"
      "Example: ibgpu simulate --nodes 1024 --rails 8 --plan all,quick,peers:16 --bad-nodes 1% \\\n"
      "           --bad-links 0.5% --bad-uplinks 1 --noise 0.1 --seed 7");
  auto validate = [options, plans, faults, budget, retests, profile] {
    options->profile = load_profile(*profile);
    FleetModel& model = options->model;
    const int nodes = model.hosts, links = model.hosts * model.rails;
    FaultCounts& f = options->faults;
    auto get = [&](const char* name, int of) { return amount(name, (*faults)[name], of); };
    auto given = [&](const char* name) { return !(*faults)[name].empty(); };
    f.slow_nodes = given("--bad-nodes") ? get("--bad-nodes", nodes) : 0;
    f.dead_nodes = given("--dead-nodes") ? get("--dead-nodes", nodes) : 0;
    f.bad_batch = given("--bad-batch") ? get("--bad-batch", nodes) : 0;
    f.slow_rails = given("--bad-rails") ? get("--bad-rails", links) : 0;
    f.bad_links = given("--bad-links") ? get("--bad-links", links) : 0;
    f.bad_uplinks = given("--bad-uplinks") ? get("--bad-uplinks", 1) : 0;
    f.dead_leaves = given("--dead-leaves") ? get("--dead-leaves", 1) : 0;
    if (!budget->empty()) {
      try {
        options->budget = Seconds(parse_duration(*budget));
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--budget: ") + e.what());
      }
    }
    if (plans->empty()) throw UsageError("--plan: no plan given");
    options->plans.clear();
    for (const auto& p : *plans) options->plans.push_back(plan_steps(p, *retests));
  };
  Subcommand s{sub, nullptr, validate, &options->common};
  s.run_without_mpi = [options] { return run_simulate(*options, std::cout); };
  return s;
}

}  // namespace ibgpu::cli
