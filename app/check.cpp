#include <algorithm>
#include <ctime>
#include <iostream>
#include <optional>

#include "app/check_round.h"
#include "app/history_store.h"
#include "app/live_events.h"
#include "app/local_checks.h"
#include "app/pipeline.h"
#include "app/retests.h"
#include "cluster/rank_pairs.h"
#include "core/bounded_input.h"
#include "core/fabric_topology.h"
#include "core/hostlist.h"
#include "core/text.h"
#include "core/units.h"
#include "health/judge.h"
#include "health/nvlink_domains.h"
#include "health/work_orders.h"
#include "probes/collective/allreduce_results.h"
#include "probes/inventory.h"
#include "scheduler/kubernetes.h"
#include "scheduler/run_actions.h"

namespace ibgpu {

namespace {

// The requested pair plan; with a topology, peers:K also meets a leaf-mate (cluster/rank_pairs.h).
PairPlan pair_plan(const World& world, const CheckOptions& options) {
  PairPlan pairs = options.net.pairs;
  if (options.topology) pairs.leaf_of_host = leaf_numbers(*options.topology, world.hosts());
  return pairs;
}

LaunchShape launch_shape(const World& world, const CheckOptions& options) {
  LaunchShape shape;
  shape.hosts = static_cast<int>(world.hosts().size());
  shape.ranks = world.size;
  const PairPlan pairs = pair_plan(world, options);
  shape.leaf_rounds = leaf_round_count(pairs, shape.hosts);
  try {
    shape.pair_rounds = static_cast<int>(rank_rounds(world, pairs).size());
    PairPlan quick = options.net.pairs;
    quick.mode = PairMode::quick;
    shape.quick_pair_rounds = static_cast<int>(rank_rounds(world, quick).size());
  } catch (const std::invalid_argument&) {
    // A bad --pairs list is reported by the network step itself.
  }
  shape.all_pair_rounds = host_round_count(PairPlan{}, shape.hosts);
  PairPlan only_loopback = options.net.pairs;  // an empty list: just the loopback round, if any
  only_loopback.mode = PairMode::list;
  only_loopback.list.clear();
  shape.loopback_rounds = static_cast<int>(rank_rounds(world, only_loopback).size());
  shape.placements = static_cast<int>(options.allreduce.placements.empty() ? default_placements(world).size()
                                                                           : options.allreduce.placements.size());
  return shape;
}

// Nominal speeds: the profile's link rate when it declares one, else a
// conservative host network. An estimate; the budget is also enforced as the
// run goes (what no longer fits is dropped and said).
CostModel cost_model(const Profile& profile) {
  CostModel cost;
  if (profile.node.port_rate_gbps) cost.bw_GBps = cost.busbw_GBps = *profile.node.port_rate_gbps / 8 * 0.8;
  return cost;
}

std::string plan_text(const CheckPlan& plan, const LaunchShape& shape) {
  const CheckSteps& s = plan.steps;
  std::string text = "plan: " + count_text(pair_rounds_of(s, shape), "network round") + " (--pairs " +
                     pair_plan_name(s.net.pairs) +
                     (leaf_rounds_of(s, shape) > 0 ? ", and a round of hosts meeting a leaf-mate" : "") + ")";
  if (s.collectives)
    text += ", all-reduce at " + format_sizes(s.allreduce.settings.sizes) + " in " +
            count_text(shape.placements, "placement");
  text += ", up to " + count_text(s.retests, "re-test pass", "re-test passes") + "; about " +
          duration_text(plan.estimate_s);
  if (plan.budget) text += " of a " + duration_text(*plan.budget) + " budget";
  text +=
      "; each measurement stops after " + duration_text(s.net.settings.time_cap_s) + " (what is in flight still lands)";
  return text;
}

std::string detect_text(const DetectTarget& target, const DetectChoice& choice) {
  const std::string slowed = format_value(target.slowed * 100) + "%";
  const std::string found = fixed_text(choice.power.faults.front().node_found, 3);
  const std::string asked = "detect: a node " + slowed + " slow found with " + fixed_text(target.power, 2) +
                            " or more at noise " + fixed_text(choice.power.noise.sigma, 3) + ": ";
  if (choice.reached)
    return asked + "--pairs " + pair_plan_name(choice.pairs) + " (" + found + "), the cheapest plan that does";
  return asked + "no plan does; --pairs " + pair_plan_name(choice.pairs) + " comes closest (" + found +
         "): a smaller slowdown than the noise can show, or too few hosts";
}

ProbeResult allreduce_dropped(const World& world, const CheckOptions& options, const std::string& why) {
  const CollectiveBackend asked = options.allreduce.backend;
  const CollectiveBackend backend = asked == CollectiveBackend::automatic ? CollectiveBackend::mpi : asked;
  return skipped(allreduce_probe_id(to_string(backend)), world_scope(world), why, SkippedBy::ibgpu);
}

// What the cabling covered: its cables, the hosts' ports it lists, the work orders written.
std::string cabling_note(const Cabling& cabling, const std::vector<HostInventory>& hosts, std::size_t orders) {
  std::size_t ports = 0, listed = 0;
  for (const HostInventory& h : hosts)
    for (const Hca& hca : h.hcas)
      for (const IbPort& port : hca.ports) {
        ++ports;
        listed += cabling.of_port(h.name, port_name(hca, port)) ? 1 : 0;
      }
  return "cabling: " + cabling.origin + ", " + count_text(cabling.cables.size(), "cable") + ", " +
         std::to_string(listed) + " of the hosts' " + count_text(ports, "RDMA port") + " in it; " +
         count_text(orders, "work order");
}

// Which hosts the topology places: the unplaced are judged as without one (no switch to blame).
std::string topology_note(const FabricTopology& topology, const std::vector<HostInventory>& hosts) {
  std::vector<std::string> names;
  for (const auto& h : hosts) names.push_back(h.name);
  const auto unplaced = unplaced_hosts(topology, names);
  std::string note = "topology: " + topology.origin + ", " + std::to_string(names.size() - unplaced.size()) + " of " +
                     count_text(names.size(), "host") +
                     (topology.form == TopologyForm::block ? " in its blocks" : " on its leaf switches");
  if (!unplaced.empty()) note += "; unplaced (not in it, no switch judged for them): " + compress_hostlist(unplaced);
  return note;
}

}  // namespace

CheckRound::CheckRound(const World& world, const CheckOptions& options)
    : world_(world), options_(options), shape_(launch_shape(world, options)), cost_(cost_model(options.profile)) {
  CheckSteps requested;
  requested.net = options.net;
  requested.net.pairs = pair_plan(world, options);
  requested.collectives = options.collectives;
  requested.allreduce = options.allreduce;
  requested.retests = options.retests;
  std::string detect_note;
  if (options.detect) {
    if (shape_.hosts < 3 || !requested.net.bandwidth || !options.profile.fleet.enabled) {
      detect_note = "detect: no plan can be chosen (" +
                    std::string(shape_.hosts < 3           ? "fewer than three hosts: no pair plan finds a slowed one"
                                : !requested.net.bandwidth ? "no bandwidth step"
                                                           : "the profile's fleet rule is off") +
                    "); the plan runs as asked";
    } else {
      const DetectChoice choice = plan_to_detect(requested, shape_, options.profile, *options.detect);
      requested.net.pairs = choice.pairs;
      detect_note = detect_text(*options.detect, choice);
    }
  }
  plan_ = plan_check(requested, shape_, cost_, options.budget);
  if (options.baseline) reference_ = options.baseline->medians();
  plan_notes_.push_back(plan_text(plan_, shape_));
  if (!detect_note.empty()) plan_notes_.push_back(std::move(detect_note));
  if (plan_.steps.net.bandwidth && shape_.hosts >= 2 && options.profile.fleet.enabled) {
    const NoiseModel noise{options.profile.confidence.default_noise};
    plan_notes_.push_back(
        "power: " +
        power_text(plan_power(power_shape(plan_.steps, shape_), options.profile.fleet, noise, kStatedCarries)) +
        " (the profile's [confidence].default_noise; each finding's confidence is at the run's own)");
  }
  if (auto floor = floor_plan_text(plan_.steps, shape_, cost_, options.profile.allreduce); !floor.empty())
    plan_notes_.push_back(std::move(floor));
  for (const auto& d : plan_.dropped) plan_notes_.push_back("budget: dropped " + d);
  if (plan_.capped_to_s)
    plan_notes_.push_back("budget: each measurement stops at " + duration_text(*plan_.capped_to_s) +
                          " (the rate reached by then is its result)");
  if (!plan_.fits)
    plan_notes_.push_back("budget: even the smallest plan (about " + duration_text(plan_.estimate_s) + ", up to " +
                          duration_text(plan_.worst_case_s) + " with every measurement at its cap) may not fit " +
                          duration_text(*options.budget) +
                          ": a pair that would end past the budget is not started (not judged)");
}

void CheckRound::print_plan() const {
  if (world_.rank == 0 && !options_.common.quiet)
    for (const auto& n : plan_notes_) std::cerr << "ibgpu: " << n << '\n';
}

RankResult CheckRound::run(MpiSession& s, LiveChannel& live) {
  const auto started = Clock::now();
  notes_ = plan_notes_;
  if (options_.budget) live.budget(started, options_.budget->count());
  live.suspect_rule(profile_suspects(options_.profile, reference()));
  RankResult mine = describe_host(s, options_.common);
  const Sysfs sysfs(options_.common.sysfs_root);
  std::optional<PortCounterWatch> counters;
  if (mine.inventory) {
    live.phase("local checks");
    auto local = run_local_checks(*mine.inventory, options_.skip, live, options_.imex_root);
    mine.probes.insert(mine.probes.end(), local.begin(), local.end());
    stamp_time(mine.probes);
    if (!options_.skip.skips(kPortCountersProbe)) counters.emplace(sysfs, *mine.inventory);
  }
  const CheckSteps& steps = plan_.steps;
  // One pair's worst case (its measurements at their caps): with a budget, a pair starts only if
  // that still fits (kBudgetForMeasuring), and re-test rounds are planned to fit.
  CheckSteps only_network = steps;
  only_network.collectives = false;
  LaunchShape one_round = shape_;
  one_round.pair_rounds = one_round.quick_pair_rounds = 1;
  const double pair_worst_s = worst_case_seconds(only_network, one_round, cost_);
  NetOptions net_options = steps.net;
  net_options.sysfs_root = options_.common.sysfs_root;
  // With a budget: measuring ends by here, the rest is the report's (kBudgetForMeasuring).
  std::optional<Clock::time_point> measuring_end;
  if (options_.budget)
    measuring_end = started + std::chrono::duration_cast<Clock::duration>(kBudgetForMeasuring * *options_.budget);
  if (measuring_end) net_options.budget = PairBudget{*measuring_end, options_.budget->count(), pair_worst_s};
  auto net = run_network(s, net_options, options_.common.timeout, live);
  stamp_time(net);  // what the pairs' rounds did not stamp (a step skipped whole)
  mine.probes.insert(mine.probes.end(), net.begin(), net.end());

  BetweenSteps between;
  between.passes = steps.retests;
  between.budget = options_.budget;
  between.started = started;
  between.collectives = steps.collectives;
  between.reference_medians = reference();
  CheckSteps only_collectives = steps;
  only_collectives.net.bandwidth = only_collectives.net.latency = false;
  // The all-reduce's worst case (every size at its time cap): with a budget, it runs only if even that fits.
  between.collectives_estimate_s = worst_case_seconds(only_collectives, shape_, cost_);
  between.retest_round_s = pair_worst_s;
  BetweenOutcome outcome =
      run_between_steps(s, net_options, options_.profile, between, std::move(net), options_.common.timeout, live);
  mine.probes.insert(mine.probes.end(), outcome.results.begin(), outcome.results.end());
  stamp_time(mine.probes);
  notes_.insert(notes_.end(), outcome.notes.begin(), outcome.notes.end());

  if (outcome.collectives) {
    CollectiveOptions allreduce = steps.allreduce;
    allreduce.settings.timeout = options_.common.timeout;
    allreduce.settings.end = measuring_end;
    auto sums = run_collectives(s, allreduce, live);
    mine.probes.insert(mine.probes.end(), sums.begin(), sums.end());
    stamp_time(mine.probes);
  } else if (options_.collectives && world_.rank == 0) {
    // Planned but dropped for the budget: ibgpu's choice, recorded, never the nodes'.
    mine.probes.push_back(
        allreduce_dropped(world_, options_, "dropped to fit the budget of " + duration_text(*options_.budget)));
  }
  // Error counters over everything that moved data: the pair probes and the all-reduce.
  if (counters) {
    auto deltas = counters->finish();
    mine.probes.insert(mine.probes.end(), deltas.begin(), deltas.end());
    stamp_time(mine.probes);
  }
  return mine;
}

void CheckRound::judge_report(Report& report) const {
  report.run.profile = to_json(options_.profile);
  report.run.budget_s = options_.budget ? std::optional<double>(options_.budget->count()) : std::nullopt;
  report.run.notes.insert(report.run.notes.begin(), notes_.begin(), notes_.end());
  if (!options_.skip.names.empty())
    report.run.notes.push_back("not checked (--skip): " + options_.skip.text() +
                               "; the verdicts and the admission do not cover them");
  auto not_started = [&](std::string_view reason) {
    return std::count_if(report.probes.begin(), report.probes.end(), [&](const ProbeResult& p) {
      return p.status == ProbeStatus::skipped && p.skipped_by == SkippedBy::ibgpu && p.reason &&
             p.reason->starts_with(reason);
    });
  };
  if (const auto pairs = not_started("budget: not measured"); pairs > 0)
    report.run.notes.push_back("budget: " + count_text(pairs, "pair measurement") +
                               " not started, the budget would have run out (not judged)");
  if (const auto cases = not_started("budget: not run"); cases > 0)
    report.run.notes.push_back("budget: " + count_text(cases, "all-reduce case") +
                               " not run, the budget would have run out (not judged)");
  if (options_.baseline) {
    report.run.profile["baseline"] = {{"file", options_.baseline_path},
                                      {"runs", options_.baseline->runs.size()},
                                      {"kinds", options_.baseline->kinds.size()}};
  }
  // The topology: --topology's, else the tree the cabling describes (for judging: the plan's
  // leaf-mate round needs --topology, which every rank reads).
  const FabricTopology* topology = options_.topology ? &*options_.topology : nullptr;
  std::optional<FabricTopology> from_cabling;
  if (!topology && cabling_) {
    CablingTree tree = tree_of(*cabling_);
    if (tree.topology) {
      from_cabling = std::move(tree.topology);
      topology = &*from_cabling;
    } else {
      report.run.notes.push_back("topology: none from the cabling, " + tree.why_not +
                                 "; no switch is judged (give --topology)");
    }
  }
  if (topology) {
    report.run.notes.push_back(topology_note(*topology, report.hosts));
    for (auto& h : report.hosts) h.leaf = topology->leaf(h.name);
  }
  // The first run on a CPU host: say which profile fits it.
  const bool bare = std::all_of(report.hosts.begin(), report.hosts.end(),
                                [](const HostInventory& h) { return h.gpus.empty() && h.hcas.empty(); });
  if (bare && !report.hosts.empty() && options_.profile.node.expect_gpus != 0)
    report.run.notes.push_back("no GPU and no RDMA device on any host, and profile " + options_.profile.name +
                               " does not declare them absent: for CPU-only nodes run with --profile cpu");
  // --history: the nodes' earlier checks take part (not in an interrupted run, which decides nothing).
  std::optional<NodeHistory> history;
  const std::string& dir = options_.history_dir;
  if (!dir.empty() && !report.run.interrupted) {
    std::vector<std::string> hosts;
    for (const auto& h : report.hosts) hosts.push_back(h.name);
    HistoryRead past = read_history(dir, hosts);
    report.run.notes.insert(report.run.notes.end(), past.notes.begin(), past.notes.end());
    history = NodeHistory{std::move(past.past), options_.profile.history, std::time(nullptr), report.run.id, {}};
  }
  Judgement j =
      judge(report.hosts, report.probes, options_.profile, reference(), topology, history ? &*history : nullptr);
  // A stop that came while judging: the run decides nothing, and keeps nothing.
  if (history && !stop_requested()) {
    const std::vector<std::string> problems = append_history(dir, history->outcomes);
    report.run.notes.insert(report.run.notes.end(), problems.begin(), problems.end());
    if (problems.empty())
      report.run.notes.push_back("history: the outcome of " + count_text(history->outcomes.size(), "node") +
                                 " kept in " + dir);
  }
  // The plan's power again, at the noise the run measured (the plan line's is the profile's default).
  if (j.bw_sigma > 0 && plan_.steps.net.bandwidth && shape_.hosts >= 2 && options_.profile.fleet.enabled)
    report.run.notes.push_back("power: " +
                               power_text(plan_power(power_shape(plan_.steps, shape_), options_.profile.fleet,
                                                     NoiseModel{j.bw_sigma}, kStatedCarries)) +
                               " (the noise this run measured, its pairs' bandwidth spread)");
  report.verdicts = std::move(j.verdicts);
  report.summary = std::move(j.summary);
  if (cabling_) {
    report.work_orders = work_orders(report.verdicts, report.probes, *cabling_);
    report.run.notes.push_back(cabling_note(*cabling_, report.hosts, report.work_orders.size()));
  }
  report.summary.kubernetes = kubernetes_map(report.verdicts, node_nvlink_domains(report.probes));
}

std::string CheckRound::preflight(MpiSession& s) const {
  const NetOptions& net = plan_.steps.net;
  std::string problem = net.transport == NetTransport::mpi
                            ? ""
                            : hca_preflight(net.hca, Sysfs(options_.common.sysfs_root), s.world().host());
  if (problem.empty()) problem = network_preflight(s.world(), net);
  if (problem.empty() && plan_.steps.collectives) problem = collectives_preflight(s, plan_.steps.allreduce);
  if (problem.empty() && s.world().rank == 0 && !options_.history_dir.empty())
    problem = history_dir_problem(options_.history_dir);
  if (problem.empty() && s.world().rank == 0 && !options_.cabling_path.empty()) {
    try {
      cabling_ = read_cabling(options_.cabling_path);
    } catch (const InputError& e) {
      problem = std::string("--cabling: ") + e.what();
    }
  }
  return problem;
}

Command CheckRound::command() {
  Command c;
  c.run = [this](MpiSession& s, LiveChannel& live) { return run(s, live); };
  c.judge = [this](Report& report) {
    judge_report(report);
    const AdmissionActionOptions& a = options_.actions;
    report.run.actions = !a.any()    ? AdmissionActions::none
                         : a.dry_run ? AdmissionActions::dry_run
                                     : AdmissionActions::run;
  };
  c.preflight = [this](MpiSession& s) { return preflight(s); };
  if (options_.actions.any())
    c.after_report = [this](const Report& r) { return run_admission_actions(options_.actions, r, std::cerr); };
  return c;
}

int run_check(MpiSession& session, const CheckOptions& options) {
  CheckRound round(session.world(), options);
  round.print_plan();
  return execute(session, options.common, round.command());
}

}  // namespace ibgpu
