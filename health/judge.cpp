#include "health/judge.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "health/admission.h"
#include "health/confidence.h"
#include "health/controls.h"
#include "health/fleet.h"
#include "health/local_health.h"
#include "health/localise.h"
#include "health/nccl_transport.h"
#include "health/nvlink_domains.h"
#include "health/thresholds.h"
#include "health/verdict_book.h"

namespace ibgpu {

namespace {

// ---- The node's own hardware: health/local_health.cpp. ---------------------

void judge_local(VerdictBook& book, const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                 const Profile& profile) {
  for (const auto& host : hosts) book.at(Entity::node(host.name));
  judge_local_health(book, hosts, probes, profile);
}

// ---- Probe outcomes: errors, timeouts, wrong data, skipped checks. ---------

// A failed or skipped result lands on what it measured, or on each of its nodes.
std::vector<Entity> local_entities(const ProbeResult& p) {
  if (p.scope.hosts.size() == 1) return {measured_entity(p)};
  std::vector<Entity> out;
  for (const auto& h : p.scope.hosts) out.push_back(Entity::node(h));
  return out;
}

// One end of a pair result: its host, and its rail and rank when the scope names two.
Endpoint endpoint(const ProbeResult& p, std::size_t side) {
  const Scope& s = p.scope;
  return {s.hosts[side], s.devices.size() == 2 ? std::string_view(s.devices[side]) : std::string_view(),
          s.ranks.size() == 2 ? s.ranks[side] : -1};
}

// The pair observations of a run, and the texts their groups view.
struct PairEvidence {
  std::map<std::string_view, std::string> outcome_groups;  // pair probe ids that failed -> "<probe id>:outcome"
  std::vector<Measurement> measurements;                   // measured pairs: groups are their kinds
  std::vector<PairObservation> observations;

  void add(std::string_view group, const ProbeResult& p, HealthState state, std::optional<Reason> reason,
           const FleetReference* fleet = nullptr) {
    const bool retest = p.params.is_object() && p.params.contains("retest");
    observations.push_back(PairObservation{group, endpoint(p, 0), endpoint(p, 1), state, std::move(reason), retest,
                                           fleet ? std::optional(fleet->reference) : std::nullopt,
                                           fleet ? fleet->sigma : 0});
  }
};

// The link verdicts of pairs of hosts (as the pair names them, first host first), by position
// in the book: a fleet's pairs name a few links each.
struct HostPairHash {
  std::size_t operator()(const std::pair<std::string_view, std::string_view>& hosts) const {
    const std::size_t first = std::hash<std::string_view>{}(hosts.first);
    return first ^ (std::hash<std::string_view>{}(hosts.second) + 0x9e3779b97f4a7c15 + (first << 6) + (first >> 2));
  }
};
using LinkIndex = std::unordered_map<std::pair<std::string_view, std::string_view>, std::size_t, HostPairHash>;

// Pair failures go to localisation (a dead node times out with all its
// peers); everything else lands on its own entity.
void judge_outcomes(VerdictBook& book, const std::vector<ProbeResult>& probes, const Profile& profile,
                    const std::vector<HostInventory>& hosts, PairEvidence& evidence) {
  const RunScope scope = scope_of(hosts);
  int ranks = 0;
  for (const auto& host : hosts) ranks += static_cast<int>(host.ranks.size());
  // Pair probes with a failed outcome: their groups are localised.
  std::vector<bool> pair(probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const ProbeResult& p = probes[i];
    pair[i] = is_pair_probe(p);
    if (pair[i] && p.status != ProbeStatus::ok && p.status != ProbeStatus::skipped && !not_reproduced(p) &&
        !evidence.outcome_groups.count(p.id))
      evidence.outcome_groups.emplace(p.id, p.id + ":outcome");
  }
  // One observation per pair result at most, and per measurement (extracted before): a fleet's are
  // a million, and growing them moves each.
  evidence.observations.reserve(evidence.observations.size() +
                                static_cast<std::size_t>(std::count(pair.begin(), pair.end(), true)) +
                                evidence.measurements.size());
  LinkIndex links;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const ProbeResult& p = probes[i];
    if (!pair[i] && is_local_probe(p)) continue;  // judged by judge_local
    if (absence_expected(p, profile) || out_of_scope(p, scope, ranks)) continue;
    // An all-reduce group's control is evidence for its group's error (settle_by_controls), no
    // more: a ring's step fails with either neighbour, so it names no device of its own.
    if (p.kind().all_reduce() && p.params.contains("control_of")) continue;
    Finding found = probe_outcome(p);
    if (const auto group_hosts = not_reproduced_in_group(p); !pair[i] && group_hosts.size() > 1) {
      // An all-reduce error its group's control did not reproduce: the group's, never a node's.
      book.add(Entity::hosts_group(group_hosts), found.state, found.reason);
    } else if (!pair[i] && group_hosts.size() == 1) {
      // The same on one host: that node's or the instrument's; no GPU carries it, the node is not decided.
      book.add(Entity::node(group_hosts.front()), found.state, found.reason);
    } else if (!pair[i]) {
      for (const auto& e : local_entities(p)) book.add(e, found.state, found.reason);
    } else if (p.status == ProbeStatus::ok || p.status == ProbeStatus::skipped || not_reproduced(p)) {
      // A pair that ran is a good peer to the outcome group too: without it, a rail that fails
      // with every peer (its leaf down) would be all its host shows there, and blamed as the node.
      if (p.status == ProbeStatus::ok)
        if (const auto group = evidence.outcome_groups.find(p.id); group != evidence.outcome_groups.end())
          evidence.add(group->second, p, HealthState::healthy, std::nullopt);
      const std::string& a = p.scope.hosts[0];
      const std::string& b = p.scope.hosts[1];
      auto [link, fresh] = links.try_emplace({a, b}, 0);
      if (fresh) link->second = book.index(Entity::link(a, b));
      VerdictBook::add(book[link->second], found.state, std::move(found.reason));
    } else {
      evidence.add(evidence.outcome_groups.at(p.id), p, found.state, std::move(found.reason));
    }
  }
}

// ---- Measurements: profile limits, fleet rules, localisation. --------------

// The measurements: evidence.measurements, extracted before the outcomes are judged. Returns the
// run's pair-bandwidth noise (Judgement::bw_sigma).
double judge_measurements(VerdictBook& book, const Profile& profile, PairEvidence& evidence,
                          const std::unordered_map<std::string, double>* reference_medians) {
  const auto& measurements = evidence.measurements;
  const FleetReferences references = fleet_references(measurements, profile.fleet, reference_medians);
  // Per kind, its first-pass measurements: the family a finding's confidence is over.
  std::unordered_map<std::string_view, int> kind_count;
  for (const auto& m : measurements)
    if (!m.retest) ++kind_count[m.figure.text()];
  double bw_sigma = 0;
  int bw_count = 0;
  for (const auto& m : measurements) {
    const auto fleet = references.find(m.figure.text());
    if (m.retest || !is_pair_probe(*m.probe) || m.probe->kind().quantity != Quantity::bandwidth ||
        fleet == references.end() || fleet->second.sigma <= 0 || fleet->second.count <= bw_count)
      continue;
    bw_sigma = fleet->second.sigma;
    bw_count = fleet->second.count;
  }
  // Pairs go to localisation; re-tests of the same entity and kind: the mildest measurement counts.
  // What no rule could judge lands on its entity as a note (Evidence::not_judged), never in localisation.
  std::vector<std::pair<Entity, Finding>> local;
  std::unordered_map<std::string, std::size_t> local_index;
  for (const auto& m : measurements) {
    const auto counted = kind_count.find(m.figure.text());
    Finding f = judge_measurement(m, references, profile.fleet, profile.confidence,
                                  counted == kind_count.end() ? 1 : counted->second);
    const bool judged = !f.reason || f.reason->evidence != Evidence::not_judged;
    if (is_pair_probe(*m.probe) && judged) {
      const auto fleet = references.find(m.figure.text());
      evidence.add(m.figure.text(), *m.probe, f.state, std::move(f.reason),
                   fleet == references.end() ? nullptr : &fleet->second);
      continue;
    }
    Entity e = measured_entity(*m.probe);
    auto [it, fresh] =
        local_index.try_emplace(m.figure.text() + '\x1f' + to_string(e.kind()) + '\x1f' + e.id(), local.size());
    if (fresh)
      local.emplace_back(std::move(e), std::move(f));
    else if (f.state < local[it->second].second.state)
      local[it->second].second = std::move(f);
  }
  for (auto& [e, f] : local) {
    if (f.reason) f.state = held_to_confidence(f.state, *f.reason, profile.confidence);
    book.add(e, f.state, std::move(f.reason));
  }
  return bw_sigma;
}

}  // namespace

Judgement judge(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes, const Profile& profile,
                const std::unordered_map<std::string, double>* reference_medians, const FabricTopology* topology,
                NodeHistory* history) {
  VerdictBook book;
  judge_local(book, hosts, probes, profile);
  PairEvidence evidence;
  const std::set<std::string> without_rdma = hosts_without_rdma(hosts);
  evidence.measurements = extract_measurements(probes, profile, &without_rdma);
  judge_outcomes(book, probes, profile, hosts, evidence);
  const double bw_sigma = judge_measurements(book, profile, evidence, reference_medians);
  for (auto& blame : localise(evidence.observations, topology)) {
    const HealthState state = held_to_confidence(blame.state, blame.reason, profile.confidence);
    book.add(blame.entity, state, std::move(blame.reason));
  }
  judge_nvlink_domains(book, probes, topology);
  judge_nccl_transport(book, hosts, probes, profile);

  Judgement out;
  out.verdicts = book.take();
  decide_admission(out.verdicts, hosts, profile.node, history);
  out.summary = summarise(out.verdicts);
  out.bw_sigma = bw_sigma;
  return out;
}

RetestCandidates retest_candidates(const std::vector<ProbeResult>& probes, const Profile& profile,
                                   const std::unordered_map<std::string, double>* reference_medians) {
  VerdictBook book;
  PairEvidence evidence;
  evidence.measurements = extract_measurements(probes, profile);
  judge_outcomes(book, probes, profile, {}, evidence);  // pairs only: the run's scope does not matter
  judge_measurements(book, profile, evidence, reference_medians);
  const auto& pairs = evidence.observations;
  // Re-tests fold as localisation folds them: a pair is a suspect while its deficit reproduces.
  std::deque<PairObservation> made;
  const std::vector<PairEdge> edges = pair_edges(pairs, made);
  const std::vector<Blame> blames = localise(pairs);
  // Pairs that a confirmed culprit at one end explains are not re-tested (kConfirmedByPeers).
  std::set<std::string_view> culprit_nodes, confirmed_nodes;
  std::set<std::pair<std::string_view, std::string_view>> culprit_rails, confirmed_rails;  // host, rail
  for (const Blame& b : blames) {
    const bool confirmed = b.bad_peers >= kConfirmedByPeers;
    if (b.entity.kind() == EntityKind::node) {
      culprit_nodes.insert(b.entity.host());
      if (confirmed) confirmed_nodes.insert(b.entity.host());
    }
    if (b.entity.kind() == EntityKind::hca_port) {
      const std::pair rail{b.entity.host(), b.entity.part()};
      culprit_rails.insert(rail);
      if (confirmed) confirmed_rails.insert(rail);
    }
  }
  auto confirmed = [&](const Endpoint& e) {
    return confirmed_nodes.count(e.host) > 0 || confirmed_rails.count({e.host, e.device}) > 0;
  };
  auto culprit = [&](const Endpoint& e) {
    return culprit_nodes.count(e.host) > 0 || culprit_rails.count({e.host, e.device}) > 0;
  };
  std::set<HostPair> suspects;
  std::set<std::string_view> not_cleared;  // an end of a bad pair that no culprit at its other end explains
  for (const PairEdge& edge : edges) {
    const PairObservation* e = edge.judged;
    if (e->state == HealthState::healthy) continue;
    if (!culprit(e->b)) not_cleared.insert(e->a.host);
    if (!culprit(e->a)) not_cleared.insert(e->b.host);
    if (confirmed(e->a) || confirmed(e->b)) continue;
    const auto [lo, hi] = std::minmax(e->a.host, e->b.host);
    if (lo != hi) suspects.emplace(lo, hi);
  }
  RetestCandidates out;
  out.suspects.assign(suspects.begin(), suspects.end());
  out.known_good = known_good_hosts(pairs, blames);
  std::erase_if(out.known_good, [&](const std::string& h) { return not_cleared.count(h) > 0; });
  std::sort(out.known_good.begin(), out.known_good.end());
  return out;
}

RunSummary summarise_without_verdicts(const std::vector<ProbeResult>& probes, SkippedMeans skipped) {
  RunSummary s;
  s.state = HealthState::healthy;
  for (const auto& p : probes) {
    if (not_reproduced(p)) {  // an error its control did not reproduce: not decided (health/controls.h)
      s.state = worst(s.state, HealthState::unknown);
      continue;
    }
    if (p.status == ProbeStatus::timeout) s.state = worst(s.state, HealthState::unknown);
    if (p.status == ProbeStatus::skipped && skipped == SkippedMeans::incomplete)
      s.state = worst(s.state, HealthState::unknown);
    if (p.status == ProbeStatus::error || p.status == ProbeStatus::failed)
      s.state = worst(s.state, HealthState::failed);
  }
  s.exit_code = exit_code_for(s.state);
  return s;
}

}  // namespace ibgpu
