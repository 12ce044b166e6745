#include <ostream>

#include "app/commands.h"
#include "app/text.h"
#include "cluster/rank_pairs.h"
#include "core/errors.h"
#include "core/text.h"
#include "core/units.h"

namespace ibgpu {

namespace {

std::string ratio(int part, int whole) { return std::to_string(part) + "/" + std::to_string(whole); }

std::string cell(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text + ' ';
}

void describe(const SimulateOptions& o, const FleetFaults& f, std::ostream& out) {
  const FleetModel& m = o.model;
  out << "fleet: " << count_text(m.hosts, "node") << " x " << count_text(m.rails, "rail") << ", leaves of "
      << count_text(m.hosts_per_leaf, "host") << " with " << count_text(m.uplinks_per_leaf, "uplink") << " each; "
      << fixed_text(m.bw_GBps, 1) << " GB/s a rail, lognormal noise sigma " << fixed_text(m.noise_sigma, 3)
      << ", transient bad samples " << fixed_text(100 * m.transient_rate, 3) << "% at x"
      << fixed_text(m.transient_factor, 2) << "; seed " << m.seed << "\n";
  out << "faults (slow = x" << fixed_text(m.slow_factor, 2) << "): " << count_text(f.slow_nodes.size(), "slow node")
      << ", " << f.dead_nodes.size() << " dead, " << f.batch.size() << " in a bad batch; "
      << count_text(f.slow_rails.size(), "slow rail") << ", " << count_text(f.bad_links.size(), "bad link")
      << " (host to leaf), " << count_text(f.dead_leaves.size(), "dead leaf switch", "dead leaf switches") << "; "
      << count_text(f.bad_uplinks.size(), "bad uplink");
  for (const Uplink& u : f.bad_uplinks) out << " [rail " << u.rail << " leaf " << u.leaf << " port " << u.port << "]";
  out << "\n";
  if (o.budget) out << "budget: " << duration_text(*o.budget) << " (the planner picks each row's plan)\n";
}

}  // namespace

int run_simulate(const SimulateOptions& options, std::ostream& out) {
  FleetFaults faults;
  try {
    faults = draw_faults(options.model, options.faults);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  describe(options, faults, out);
  out << "profile: " << options.profile.name
      << (options.profile.confidence.drain_weak ? " (drains on weak evidence)" : "") << "\n";
  out << "topology: "
      << (options.topology ? "the modelled leaves, as check --topology" : "none (the judge has no leaves)") << "\n";
  const std::vector<std::pair<const char*, std::size_t>> columns = {
      {"plan", 10},   {"rounds", 10},  {"sim time", 9},   {"node rec", 9}, {"node prec", 10}, {"found", 7},
      {"power", 6},   {"rail rec", 9}, {"rail prec", 10}, {"rail pow", 9}, {"link prec", 10}, {"uplink", 8},
      {"drained", 8}, {"degraded", 9}, {"expected", 9},   {"sw rec", 7},   {"sw prec", 8},    {"up rec", 7},
      {"up prec", 8}, {"paths", 6},    {"rank 0 s", 9},   {"CPU s", 6}};
  for (const auto& [name, width] : columns) out << cell(name, width);
  out << "\n";
  for (const CheckSteps& steps : options.plans) {
    SimSettings settings;
    settings.steps = steps;
    settings.budget = options.budget;
    settings.max_measurements = options.max_measurements;
    settings.topology = options.topology;
    settings.profile = options.profile;
    const SimOutcome r = simulate(options.model, faults, settings);
    std::vector<std::string> row = {r.plan, std::to_string(r.network_rounds) + "+" + std::to_string(r.retest_rounds),
                                    duration_text(r.simulated_s)};
    if (r.judged) {
      const FaultPower& slow = r.power.faults.front();
      row.push_back(ratio(r.node.found, r.node.injected));
      row.push_back(ratio(r.node.correct, r.node.blamed));
      row.push_back(ratio(r.nodes_flagged, r.nodes_slowed));
      row.push_back(fixed_text(slow.node_found, 2));
      row.push_back(ratio(r.rail.found, r.rail.injected));
      row.push_back(ratio(r.rail.correct, r.rail.blamed));
      row.push_back(fixed_text(slow.rail_found, 2));
      row.push_back(ratio(r.link.correct, r.link.blamed));
      row.push_back(ratio(r.link.found, r.link.injected));
      row.push_back(std::to_string(r.healthy_drained));
      row.push_back(std::to_string(r.healthy_degraded));
      row.push_back(fixed_text(slow.expected_flagged, 1));
      for (const Score* s : {&r.leaf_switch, &r.uplink}) {
        row.push_back(ratio(s->found, s->injected));
        row.push_back(ratio(s->correct, s->blamed));
      }
      row.push_back(std::to_string(r.paths));
    } else {
      row.push_back("not judged: " + std::to_string(r.measurements) + " measurements (over --max-measurements)");
    }
    row.push_back(r.judged ? fixed_text(r.rank0_cpu_s, 1) : "-");
    row.push_back(fixed_text(r.cpu_s, 1));
    for (std::size_t i = 0; i < row.size(); ++i) out << cell(row[i], i + 1 < row.size() ? columns[i].second : 0);
    out << "\n";
    for (const auto& d : r.dropped) out << "  budget: dropped " << d << "\n";
  }
  out << "rounds: network + re-test. rec: found/injected; prec: correct/blamed (a rail blamed on a faulty node "
         "counts as correct). found: slowed nodes (slow or in the bad batch) not admitted as healthy / injected; "
         "power, rail pow: the chance "
         "the plan was stated to find a node, or one rail, slowed by the slow factor (health/power.h, at the "
         "model's noise, among the slowed nodes injected); expected: the healthy nodes it was stated to flag "
         "(drained + degraded observed). link prec: link blames an injected fault explains. uplink: pairs measured "
         "through a "
         "bad uplink that were blamed as a link / all such pairs (with the topology the uplink explains them). "
         "sw, up: leaf switches down and leaves with a bad uplink (a rail's), found by switch and uplink verdicts "
         "when the judge has the topology (--topology model); an uplink verdict on a leaf that is down counts "
         "as correct (where no pair within it was measured the two look alike). paths: verdicts on a cut between "
         "groups of "
         "hosts. "
         "drained, degraded: fault-free nodes the "
         "verdicts drain or admit degraded. Time: each round as long as its slowest pair (a dead end: the meeting "
         "timeout), by the check's cost model. rank 0 s: CPU seconds of rank 0's part of a real run, within CPU s: "
         "the ranks' results serialised as they send them, then read, assembled and judged by the same code.\n";
  return 0;
}

}  // namespace ibgpu
