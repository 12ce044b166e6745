#include "app/fleet_sim.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <numbers>
#include <stdexcept>
#include <unordered_map>

#include "app/pipeline.h"
#include "app/retests.h"
#include "cluster/rank_pairs.h"
#include "cluster/world.h"
#include "core/probe_kind.h"
#include "core/seeded_draws.h"
#include "health/judge.h"

namespace ibgpu {

namespace {

// Every number the simulator draws is a hash of what it is drawn for (core/seeded_draws.h), so a
// measurement does not depend on the order measurements are made in.
std::uint64_t mix(std::uint64_t x) { return splitmix64(x); }

std::uint64_t hash_of(std::initializer_list<std::uint64_t> parts) {
  std::uint64_t h = 0;
  for (const std::uint64_t p : parts) h = mix(h ^ p);
  return h;
}

double unit(std::uint64_t h) { return unit_interval(h); }  // [0, 1)

double standard_normal(std::uint64_t h) {  // Box-Muller
  const double u1 = 1.0 - unit(mix(h)), u2 = unit(mix(h + 1));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

// A stream of draws for the faults (std:: distributions differ between standard libraries).
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(seed) {}
  int below(int n) { return static_cast<int>(mix(state_++) % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t state_;
};

int leaf_of(const FleetModel& m, int host) { return host / m.hosts_per_leaf; }
int leaves_of(const FleetModel& m) { return (m.hosts + m.hosts_per_leaf - 1) / m.hosts_per_leaf; }

}  // namespace

std::string sim_host_name(int host) {
  char text[16];
  std::snprintf(text, sizeof text, "node%05d", host);
  return text;
}

std::string sim_rail_name(int rail) { return "mlx5_" + std::to_string(rail) + ":1"; }

std::string sim_leaf_name(int leaf) {
  char text[16];
  std::snprintf(text, sizeof text, "leaf%04d", leaf);
  return text;
}

FabricTopology sim_topology(const FleetModel& model) {
  FabricTopology t;
  t.origin = "the simulated fleet";
  FabricSwitch spine{"spine", {}, {}};
  for (int l = 0; l < leaves_of(model); ++l) {
    FabricSwitch leaf{sim_leaf_name(l), {}, {}};
    for (int h = l * model.hosts_per_leaf; h < std::min(model.hosts, (l + 1) * model.hosts_per_leaf); ++h) {
      leaf.nodes.push_back(sim_host_name(h));
      t.leaf_of[leaf.nodes.back()] = leaf.name;
    }
    spine.switches.push_back(leaf.name);
    t.switches.push_back(std::move(leaf));
  }
  t.switches.push_back(std::move(spine));
  return t;
}

bool FleetFaults::rail_fault(int host, int rail, int hosts_per_leaf) const {
  return slow_rails.count({host, rail}) || bad_links.count({host, rail}) ||
         dead_leaves.count({rail, host / hosts_per_leaf});
}

FleetFaults draw_faults(const FleetModel& model, const FaultCounts& counts) {
  FleetFaults f;
  Draws draw(hash_of({model.seed, 0xfa17}));
  const int n = model.hosts, leaves = leaves_of(model);
  const int node_faults = counts.slow_nodes + counts.dead_nodes + counts.bad_batch;
  if (node_faults > n) throw std::invalid_argument("more faulty nodes than nodes");
  if (counts.dead_leaves > leaves * model.rails) throw std::invalid_argument("more dead leaves than leaves");
  if (counts.bad_uplinks > leaves * model.rails * model.uplinks_per_leaf)
    throw std::invalid_argument("more bad uplinks than uplinks");
  if (counts.slow_rails + counts.bad_links > (n - node_faults) * model.rails)
    throw std::invalid_argument("more faulty rails and links than the healthy nodes have");

  if (counts.bad_batch > 0) {
    const int start = draw.below(n - counts.bad_batch + 1);
    for (int h = start; h < start + counts.bad_batch; ++h) f.batch.insert(h);
  }
  // The other hosts in a random order: the first are the slow nodes, then the dead ones.
  std::vector<int> order;
  for (int h = 0; h < n; ++h)
    if (!f.batch.count(h)) order.push_back(h);
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[static_cast<std::size_t>(draw.below(static_cast<int>(i)))]);
  std::size_t next = 0;
  for (int i = 0; i < counts.slow_nodes; ++i) f.slow_nodes.insert(order[next++]);
  for (int i = 0; i < counts.dead_nodes; ++i) f.dead_nodes.insert(order[next++]);

  while (static_cast<int>(f.dead_leaves.size()) < counts.dead_leaves)
    f.dead_leaves.insert({draw.below(model.rails), draw.below(leaves)});
  while (static_cast<int>(f.bad_uplinks.size()) < counts.bad_uplinks)
    f.bad_uplinks.insert(Uplink{draw.below(model.rails), draw.below(leaves), draw.below(model.uplinks_per_leaf)});
  // Rails and links of hosts without a node fault, each (host, rail) at most once.
  auto draw_rails = [&](std::set<std::pair<int, int>>& into, int count) {
    while (count > 0) {
      const int h = draw.below(n), r = draw.below(model.rails);
      if (f.node_fault(h) || f.slow_rails.count({h, r}) || f.bad_links.count({h, r})) continue;
      into.insert({h, r});
      --count;
    }
  };
  draw_rails(f.slow_rails, counts.slow_rails);
  draw_rails(f.bad_links, counts.bad_links);
  return f;
}

bool crosses(const FleetModel& model, int a, int b, const Uplink& u) {
  const int la = leaf_of(model, a), lb = leaf_of(model, b);
  if (la == lb) return false;  // the leaf switches the pair itself
  return (la == u.leaf && b % model.uplinks_per_leaf == u.port) ||
         (lb == u.leaf && a % model.uplinks_per_leaf == u.port);
}

std::optional<double> simulated_bandwidth(const FleetModel& model, const FleetFaults& faults, int a, int b, int rail,
                                          std::uint64_t draw) {
  for (const int h : {a, b})
    if (faults.dead_nodes.count(h) || faults.dead_leaves.count({rail, leaf_of(model, h)})) return std::nullopt;
  double carried = 1;
  for (const int h : {a, b}) {
    if (faults.slow_nodes.count(h) || faults.batch.count(h)) carried = std::min(carried, model.slow_factor);
    if (faults.slow_rails.count({h, rail}) || faults.bad_links.count({h, rail}))
      carried = std::min(carried, model.slow_factor);
  }
  for (const Uplink& u : faults.bad_uplinks)
    if (u.rail == rail && crosses(model, a, b, u)) carried = std::min(carried, model.slow_factor);
  const auto key = [&](std::uint64_t what) {
    return hash_of({model.seed, static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b),
                    static_cast<std::uint64_t>(rail), draw, what});
  };
  double value = model.bw_GBps * carried * std::exp(model.noise_sigma * standard_normal(key(1)));
  if (unit(key(2)) < model.transient_rate) value *= model.transient_factor;
  return value;
}

CheckSteps default_sim_steps() {
  CheckSteps s;
  const PresetDefaults d = preset_defaults(CheckPreset::standard);
  s.net.transport = NetTransport::verbs;
  s.net.settings.bw_sizes = d.bw_sizes;
  s.net.settings.lat_iters = d.lat_iters;
  s.retests = d.retests;
  s.collectives = false;
  return s;
}

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The run as it goes: results, names, and the time the rounds took.
struct SimRun {
  SimRun(const FleetModel& m, const FleetFaults& f) : model(m), faults(f) {}
  const FleetModel& model;
  const FleetFaults& faults;
  std::vector<std::string> names;
  std::unordered_map<std::string, int> index;
  std::vector<std::string> rails;
  std::size_t bw_size = 0;
  std::vector<ProbeResult> probes;
  std::set<std::pair<std::pair<int, int>, int>> uplink_pairs;  // ((a, b), rail) crossing a bad uplink

  // One round of host pairs on every rail; returns its slowest bandwidth and whether a pair lost an end.
  std::pair<double, bool> run_round(const Round& round, std::size_t round_no, int retest, std::uint64_t draw) {
    double slowest = model.bw_GBps;
    bool dead = false;
    for (const NodePair& p : round)
      for (int r = 0; r < model.rails; ++r) {
        ProbeResult res;
        res.id = kWriteBwId;
        res.scope.hosts = {names[static_cast<std::size_t>(p.a)], names[static_cast<std::size_t>(p.b)]};
        res.scope.ranks = {p.a * model.rails + r, p.b * model.rails + r};
        res.scope.devices = {rails[static_cast<std::size_t>(r)], rails[static_cast<std::size_t>(r)]};
        res.params = {{"size_B", bw_size}, {"round", round_no}};
        if (retest > 0) res.params["retest"] = retest;
        const std::optional<double> bw = simulated_bandwidth(model, faults, p.a, p.b, r, draw);
        if (bw) {
          res.metrics[metrics::bw_avg_GBps] = Metric::of(*bw);
          slowest = std::min(slowest, *bw);
        } else {
          res.status = ProbeStatus::timeout;
          res.params.erase("size_B");
          res.error = "no answer to the meeting (simulated dead end)";
          dead = true;
        }
        for (const Uplink& u : faults.bad_uplinks)
          if (u.rail == r && crosses(model, p.a, p.b, u)) uplink_pairs.insert({{p.a, p.b}, r});
        probes.push_back(std::move(res));
      }
    return {slowest, dead};
  }
};

std::vector<HostInventory> sim_hosts(const FleetModel& model, const std::vector<std::string>& names) {
  std::vector<HostInventory> hosts;
  hosts.reserve(names.size());
  for (int h = 0; h < model.hosts; ++h) {
    HostInventory inv;
    inv.name = names[static_cast<std::size_t>(h)];
    for (int r = 0; r < model.rails; ++r) {
      inv.ranks.push_back(h * model.rails + r);
      Hca hca;
      hca.name = "mlx5_" + std::to_string(r);
      IbPort port;
      port.port = 1;
      port.state = CodedState{4, "ACTIVE"};
      port.phys_state = CodedState{5, "LinkUp"};
      port.link_layer = "InfiniBand";
      hca.ports = {port};
      inv.hcas.push_back(std::move(hca));
    }
    hosts.push_back(std::move(inv));
  }
  return hosts;
}

// A switch or uplink verdict's (rail, leaf), from "leaf0003/mlx5_2:1"; (-1, -1) when not the model's.
std::pair<int, int> fabric_place(const Entity& e, const std::vector<std::string>& rails) {
  const std::string_view name = e.host();
  if (e.part().empty() || !name.starts_with("leaf")) return {-1, -1};
  const auto r = std::find(rails.begin(), rails.end(), e.part()) - rails.begin();
  int leaf = 0;
  for (const char c : name.substr(4)) leaf = leaf * 10 + (c - '0');
  return {r < static_cast<std::ptrdiff_t>(rails.size()) ? static_cast<int>(r) : -1, leaf};
}

// The fabric's faults: the switches that are down and the (rail, leaf) with a bad uplink, and the
// verdicts on them.
void score_fabric(SimOutcome& out, const SimRun& run, const std::vector<Verdict>& verdicts, bool topology) {
  std::set<std::pair<int, int>> bad_uplinks, switches_found, uplinks_found;  // (rail, leaf)
  for (const Uplink& u : run.faults.bad_uplinks) bad_uplinks.insert({u.rail, u.leaf});
  for (const Verdict& v : verdicts) {
    if (v.state == HealthState::healthy) continue;
    if (v.entity.kind() == EntityKind::path) ++out.paths;
    if (v.entity.kind() != EntityKind::leaf_switch && v.entity.kind() != EntityKind::uplink) continue;
    const auto place = fabric_place(v.entity, run.rails);
    const bool is_switch = v.entity.kind() == EntityKind::leaf_switch;
    Score& s = is_switch ? out.leaf_switch : out.uplink;
    ++s.blamed;
    if (is_switch ? run.faults.dead_leaves.count(place) > 0 : bad_uplinks.count(place) > 0) {
      ++s.correct;
      (is_switch ? switches_found : uplinks_found).insert(place);
    } else if (!is_switch && run.faults.dead_leaves.count(place)) {
      ++s.correct;  // the leaf is right: with no pair within it measured, its switch and uplinks look alike
    }
  }
  if (!topology) return;  // nothing to find: the judge has no leaves
  out.leaf_switch.injected = static_cast<int>(run.faults.dead_leaves.size());
  out.leaf_switch.found = static_cast<int>(switches_found.size());
  out.uplink.injected = static_cast<int>(bad_uplinks.size());
  out.uplink.found = static_cast<int>(uplinks_found.size());
}

void score(SimOutcome& out, const SimRun& run, const std::vector<Verdict>& verdicts, bool topology) {
  score_fabric(out, run, verdicts, topology);
  const FleetModel& m = run.model;
  const FleetFaults& f = run.faults;
  // With the topology a dead leaf is the switch's to find; its hosts' rails are not injected faults.
  auto rail_injected = [&](int h, int r) {
    return f.rail_fault(h, r, m.hosts_per_leaf) && !(topology && f.dead_leaves.count({r, h / m.hosts_per_leaf}) &&
                                                     !f.slow_rails.count({h, r}) && !f.bad_links.count({h, r}));
  };
  auto host_at = [&](std::string_view name) {
    const auto it = run.index.find(std::string(name));
    return it == run.index.end() ? -1 : it->second;
  };
  auto any_rail_fault = [&](int h) {
    for (int r = 0; r < m.rails; ++r)
      if (f.rail_fault(h, r, m.hosts_per_leaf)) return true;
    return false;
  };
  std::set<int> nodes_found;
  std::set<std::pair<int, int>> rails_found;
  for (const Verdict& v : verdicts) {
    if (v.state == HealthState::healthy) continue;
    if (v.entity.kind() == EntityKind::node) {
      const int h = host_at(v.entity.host());
      if (h < 0) continue;
      if (f.slow_nodes.count(h) || f.batch.count(h)) ++out.nodes_flagged;
      if (!f.node_fault(h) && !any_rail_fault(h)) {
        if (v.action == Action::drain) ++out.healthy_drained;
        if (v.action == Action::admit_degraded) ++out.healthy_degraded;
      }
      if (v.reasons.empty()) continue;  // folded from its rails: not a blame of the node
      ++out.node.blamed;
      if (f.node_fault(h)) {
        ++out.node.correct;
        nodes_found.insert(h);
      }
    } else if (v.entity.kind() == EntityKind::hca_port) {
      const int h = host_at(v.entity.host());
      const auto r = std::find(run.rails.begin(), run.rails.end(), v.entity.part()) - run.rails.begin();
      ++out.rail.blamed;
      if (h >= 0 && (f.rail_fault(h, static_cast<int>(r), m.hosts_per_leaf) || f.node_fault(h))) ++out.rail.correct;
      rails_found.insert({h, static_cast<int>(r)});
    } else if (v.entity.kind() == EntityKind::link && !v.entity.peer().empty()) {
      const int a = host_at(v.entity.host()), b = host_at(v.entity.peer());
      ++out.link.blamed;
      bool explained = f.node_fault(a) || f.node_fault(b) || any_rail_fault(a) || any_rail_fault(b);
      for (int r = 0; r < m.rails && !explained; ++r)
        explained = run.uplink_pairs.count({{std::min(a, b), std::max(a, b)}, r}) > 0;
      if (explained) ++out.link.correct;
    }
  }
  for (int h = 0; h < m.hosts; ++h) {
    if (f.slow_nodes.count(h) || f.batch.count(h)) ++out.nodes_slowed;
    if (f.node_fault(h)) {
      ++out.node.injected;
      continue;
    }
    for (int r = 0; r < m.rails; ++r)
      if (rail_injected(h, r)) {
        ++out.rail.injected;
        if (rails_found.count({h, r})) ++out.rail.found;
      }
  }
  out.node.found = static_cast<int>(nodes_found.size());
  std::set<std::pair<int, int>> pairs;
  for (const auto& [pair, rail] : run.uplink_pairs) pairs.insert(pair);
  out.uplink_pairs = static_cast<int>(pairs.size());
  out.link.injected = out.uplink_pairs;
  for (const Verdict& v : verdicts)
    if (v.entity.kind() == EntityKind::link && v.state != HealthState::healthy && !v.entity.peer().empty()) {
      const int a = host_at(v.entity.host()), b = host_at(v.entity.peer());
      if (pairs.count({std::min(a, b), std::max(a, b)})) ++out.link.found;
    }
}

// What the fleet's ranks send rank 0, as run_round sends it: one payload per rank (a host's rank of
// rail r, initiator of that rail's pairs), the host's inventory from its first rank. The run's
// results move into them.
struct SentToRankZero {
  World world;
  std::vector<std::optional<std::string>> payloads;
};

SentToRankZero send_to_rank_zero(const FleetModel& model, SimRun& run) {
  SentToRankZero sent;
  std::vector<std::string> rank_hosts;
  for (const std::string& name : run.names)
    rank_hosts.insert(rank_hosts.end(), static_cast<std::size_t>(model.rails), name);
  sent.world.size = static_cast<int>(rank_hosts.size());
  sent.world.places = places_from_hosts(rank_hosts);
  sent.world.mpi = true;
  std::vector<RankResult> ranks(rank_hosts.size());
  std::vector<HostInventory> inventories = sim_hosts(model, run.names);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    ranks[r].rank = static_cast<int>(r);
    ranks[r].host = rank_hosts[r];
    if (r % static_cast<std::size_t>(model.rails) == 0)
      ranks[r].inventory = std::move(inventories[r / static_cast<std::size_t>(model.rails)]);
  }
  for (ProbeResult& p : run.probes)
    ranks[static_cast<std::size_t>(p.scope.ranks.front())].probes.push_back(std::move(p));
  run.probes.clear();
  sent.payloads.reserve(ranks.size());
  for (RankResult& rank : ranks) {
    sent.payloads.emplace_back(rank_payload(rank));
    rank = RankResult{};
  }
  return sent;
}

}  // namespace

SimOutcome simulate(const FleetModel& model, const FleetFaults& faults, const SimSettings& settings) {
  const double cpu_start = cpu_seconds();
  SimOutcome out;
  const int n = model.hosts;
  // The judge knows the modelled leaves (settings.topology), so the planner does too: peers:K
  // adds a round of hosts meeting a leaf-mate, as the check with --topology does.
  CheckSteps steps = settings.steps;
  if (settings.topology)
    for (int h = 0; h < n; ++h) steps.net.pairs.leaf_of_host.push_back(leaf_of(model, h));
  LaunchShape shape;
  shape.hosts = n;
  shape.ranks = n * model.rails;
  shape.leaf_rounds = leaf_round_count(steps.net.pairs, n);
  shape.pair_rounds = host_round_count(steps.net.pairs, n);
  shape.quick_pair_rounds = host_round_count(PairPlan{PairMode::quick, 0, {}, false}, n);
  shape.all_pair_rounds = host_round_count(PairPlan{}, n);
  CostModel cost;
  cost.bw_GBps = cost.busbw_GBps = model.bw_GBps;
  const CheckPlan plan = plan_check(steps, shape, cost, settings.budget);
  out.plan = pair_plan_name(plan.steps.net.pairs);
  out.dropped = plan.dropped;

  // One round's time when its slowest pair runs at `bw`: the planner's own estimate.
  CheckSteps one_pair = plan.steps;
  one_pair.collectives = false;
  one_pair.net.pairs = PairPlan{};
  LaunchShape one_round;
  one_round.pair_rounds = 1;
  auto round_seconds = [&](double bw, bool dead) {
    CostModel c = cost;
    c.bw_GBps = std::max(bw, 1e-3);
    const double t = estimate_seconds(one_pair, one_round, c);
    return dead ? std::max(t, model.meeting_timeout_s) : t;
  };

  PlanShape power_plan = power_shape(plan.steps, shape);
  power_plan.peers_per_suspect = BetweenSteps{}.peers_per_suspect;
  // Stated for the slowed nodes as injected: the others move the fleet's limit as a run's would.
  power_plan.slowed_share = static_cast<double>(faults.slow_nodes.size() + faults.batch.size()) / std::max(1, n);
  const NoiseModel noise{model.noise_sigma, model.transient_rate, model.transient_factor};
  out.power = plan_power(power_plan, settings.profile.fleet, noise, {model.slow_factor});

  out.network_rounds = host_round_count(plan.steps.net.pairs, n);
  const std::size_t planned = static_cast<std::size_t>(out.network_rounds) * static_cast<std::size_t>(n / 2) *
                              static_cast<std::size_t>(model.rails);
  if (planned > settings.max_measurements) {
    out.simulated_s = out.network_rounds * round_seconds(model.bw_GBps, false);
    out.measurements = planned;
    out.cpu_s = cpu_seconds() - cpu_start;
    return out;
  }

  const auto& sizes = plan.steps.net.settings.bw_sizes;
  SimRun run{model, faults};
  run.bw_size = sizes.empty() ? std::size_t{8} << 20 : *std::max_element(sizes.begin(), sizes.end());
  for (int h = 0; h < n; ++h) {
    run.names.push_back(sim_host_name(h));
    run.index[run.names.back()] = h;
  }
  for (int r = 0; r < model.rails; ++r) run.rails.push_back(sim_rail_name(r));
  run.probes.reserve(planned);

  std::size_t round_no = 0;
  for (const Round& round : host_rounds(plan.steps.net.pairs, n)) {
    const auto [slowest, dead] = run.run_round(round, round_no, 0, round_no);
    out.simulated_s += round_seconds(slowest, dead);
    ++round_no;
  }

  // Re-test passes as run_between_steps takes them: rank 0's decision, cut to the budget.
  BetweenSteps between;
  between.budget = settings.budget;
  between.retest_round_s = worst_case_seconds(one_pair, one_round, cost);
  for (int pass = 1;; ++pass) {
    const Seconds elapsed(out.simulated_s);
    const bool time_left = time_left_for_another_step(settings.budget, elapsed);
    RetestDecision d = decide_retests_from(run.probes, {}, settings.profile, pass, between.peers_per_suspect,
                                           pass <= plan.steps.retests && time_left);
    trim_retests_to_budget(d, between, elapsed);
    if (d.rounds.empty()) break;
    for (const auto& host_pairs : d.rounds) {
      Round round;
      for (const auto& [a, b] : host_pairs) {
        const int ia = run.index.at(a), ib = run.index.at(b);
        round.push_back(NodePair{std::min(ia, ib), std::max(ia, ib)});
      }
      const std::uint64_t draw = (static_cast<std::uint64_t>(pass) << 32) | round_no;
      const auto [slowest, dead] = run.run_round(round, round_no, pass, draw);
      out.simulated_s += round_seconds(slowest, dead);
      ++round_no;
      ++out.retest_rounds;
    }
  }

  out.measurements = run.probes.size();
  const SentToRankZero sent = send_to_rank_zero(model, run);
  // Rank 0's part of a real run from here: the payloads through the gather side's own code, then the judge.
  const double rank0_start = cpu_seconds();
  const Report report = assemble(sent.world, sent.payloads, "within 60 s");
  const FabricTopology topology = sim_topology(model);
  const Judgement j =
      judge(report.hosts, report.probes, settings.profile, nullptr, settings.topology ? &topology : nullptr);
  out.rank0_cpu_s = cpu_seconds() - rank0_start;
  out.assembled = report.probes.size();
  out.judged = true;
  score(out, run, j.verdicts, settings.topology);
  out.cpu_s = cpu_seconds() - cpu_start;
  return out;
}

}  // namespace ibgpu
