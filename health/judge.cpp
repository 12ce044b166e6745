#include "health/judge.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "health/admission.h"
#include "health/fleet.h"
#include "health/local_health.h"
#include "health/localise.h"
#include "health/result_facts.h"
#include "health/thresholds.h"
#include "health/verdict_book.h"

namespace ibgpu {

namespace {

// ---- The node's own hardware: health/local_health.cpp. ---------------------

LocalLimits local_limits(const Profile& profile) {
  LocalLimits l;
  l.expect_gpus = profile.node.expect_gpus;
  l.expect_active_ports = profile.node.expect_active_ports;
  l.port_rate_gbps = profile.node.port_rate_gbps;
  l.port_width = profile.node.port_width;
  if (profile.counters.symbol_error_per_hour_degraded)
    l.symbol_error_per_hour_degraded = *profile.counters.symbol_error_per_hour_degraded;
  if (profile.counters.link_error_recovery_per_hour_degraded)
    l.link_error_recovery_per_hour_degraded = *profile.counters.link_error_recovery_per_hour_degraded;
  // GPU copy and memory bandwidth are judged with the other measurements (limits and fleet rules).
  return l;
}

void judge_local(VerdictBook& book, const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                 const ResultFacts& facts, const Profile& profile) {
  for (const auto& host : hosts) book.at({"node", host.name});
  judge_local_health(book, hosts, probes, facts, local_limits(profile));
}

// ---- Probe outcomes: errors, timeouts, wrong data, skipped checks. ---------

// The state a probe's outcome contributes, with its reason.
Finding probe_outcome(const ProbeResult& p) {
  auto reason = [&](const char* code, const std::string& text) {
    return Reason{code, p.id + ": " + text, p.id, std::nullopt, std::nullopt};
  };
  switch (p.status) {
    case ProbeStatus::ok: return {};
    case ProbeStatus::skipped:
      return {HealthState::unknown, reason("CHECK_SKIPPED", p.reason.value_or("skipped"))};
    case ProbeStatus::timeout:
      return {HealthState::failed, reason("PROBE_TIMEOUT", p.error.value_or("timeout"))};
    case ProbeStatus::error: return {HealthState::failed, reason("PROBE_ERROR", p.error.value_or("error"))};
    case ProbeStatus::failed: {
      auto wrong = p.metrics.find("wrong_elements");
      if (is_allreduce_probe(p) && wrong != p.metrics.end() && wrong->second.typical().value_or(0) > 0)
        return {HealthState::failed, Reason{"ALLREDUCE_WRONG_DATA", p.id + ": " + p.error.value_or("wrong data"),
                                            "wrong_elements", wrong->second.typical(), 0.0}};
      return {HealthState::failed, reason("PROBE_FAILED", p.error.value_or("failed"))};
    }
  }
  return {HealthState::unknown, std::nullopt};
}

// A profile that declares none of a device makes its absence expected.
bool expected_absent(const ProbeResult& p, const Profile& profile) {
  if (p.status != ProbeStatus::skipped) return false;
  if (p.id == "inventory.gpu") return profile.node.expect_gpus == 0;
  if (p.id == "inventory.rdma") return profile.node.expect_active_ports == 0;
  return false;
}

// A failed or skipped result lands on what it measured, or on each of its nodes.
std::vector<Entity> local_entities(const ProbeResult& p) {
  if (p.scope.hosts.size() == 1) return {measured_entity(p)};
  std::vector<Entity> out;
  for (const auto& h : p.scope.hosts) out.push_back({"node", h});
  return out;
}

// One end of a pair result, with the names the facts hold.
Endpoint endpoint(const ResultFacts& facts, const ResultFact& f, std::size_t side) {
  return {facts.hosts().name(f.host[side]),
          f.device[side] == ResultFact::kNone ? std::string_view() : facts.devices().name(f.device[side]),
          f.rank[side]};
}

// The pair observations of a run, with the texts their groups view.
struct PairEvidence {
  MeasurementKinds kinds;                    // measured pairs: groups are kinds
  std::unordered_set<std::string> outcomes;  // failed pairs: "<probe id>:outcome" (node-based: views stay valid)
  PairLedger ledger;

  std::size_t add(std::string_view group, const ResultFacts& facts, const ResultFact& f, HealthState state,
                  std::optional<Reason> reason = std::nullopt) {
    return ledger.add(group, endpoint(facts, f, 0), endpoint(facts, f, 1), state, std::move(reason));
  }
};

// Pair failures go to localisation (a dead node times out with all its
// peers); everything else lands on its own entity.
void judge_outcomes(VerdictBook& book, const std::vector<ProbeResult>& probes, const ResultFacts& facts,
                    const Profile& profile, PairEvidence& evidence) {
  std::string link;  // rebuilt in place for each pair result
  const ResultFact* last_ok_pair = nullptr;  // a pair's results come one after another
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const ResultFact& f = facts[i];
    if (facts.traits(f).local) continue;  // judged by judge_local
    if (f.status == ProbeStatus::skipped && expected_absent(probes[i], profile)) continue;
    if (facts.is_pair(f)) {
      if (f.status == ProbeStatus::ok) {
        // An ok result only makes its link known: once is enough for the same two hosts in a row.
        const bool known = last_ok_pair && last_ok_pair->host[0] == f.host[0] && last_ok_pair->host[1] == f.host[1];
        last_ok_pair = &f;
        if (known) continue;
      }
      Finding found = probe_outcome(probes[i]);
      if (f.status == ProbeStatus::ok || f.status == ProbeStatus::skipped) {
        link.assign(facts.hosts().name(f.host[0])).append("<->").append(facts.hosts().name(f.host[1]));
        VerdictBook::add(book.at("link", link), found.state, std::move(found.reason));
      } else {
        evidence.add(*evidence.outcomes.insert(probes[i].id + ":outcome").first, facts, f, found.state,
                     std::move(found.reason));
      }
      continue;
    }
    Finding found = probe_outcome(probes[i]);
    for (const auto& e : local_entities(probes[i])) book.add(e, found.state, found.reason);
  }
}

// ---- Measurements: profile limits, fleet rules, localisation. --------------

// A measurement in a third of the space, to judge once the medians are known:
// its judging rule (metric, limit, reason codes) is one of a handful.
struct Noted {
  std::uint32_t probe, kind;
  double value;
  std::uint16_t rule;
  bool retest;
  std::uint32_t pair;  // of a pair probe: its observation in the ledger (added while the probe is at hand)
};
constexpr std::uint32_t kNoPair = ~std::uint32_t{0};
struct Rule {
  const char* metric;
  const Limit* limit;
  const char* low_code;
  const char* outlier_code;
  LimitSense sense;
};

void judge_measurements(VerdictBook& book, const std::vector<ProbeResult>& probes, const ResultFacts& facts,
                        const Profile& profile, PairEvidence& evidence,
                        const std::unordered_map<std::string, double>* reference_medians) {
  // The fleet medians first, then each measurement against them.
  std::vector<std::vector<double>> values;
  std::vector<Rule> rules;
  std::vector<Noted> noted;
  noted.reserve(probes.size() * 3 / 2);  // a latency result is judged at p50 and p99
  for_each_measurement(facts, probes, profile, evidence.kinds, [&](const Measurement& m) {
    if (m.kind_index >= values.size()) values.resize(m.kind_index + 1);
    if (!m.retest) values[m.kind_index].push_back(m.value);  // re-tests aim at suspects: not the fleet
    const Rule rule{m.metric, m.limit, m.low_code, m.outlier_code, m.sense};
    auto same = [&](const Rule& r) {
      return r.metric == rule.metric && r.limit == rule.limit && r.low_code == rule.low_code &&
             r.outlier_code == rule.outlier_code && r.sense == rule.sense;
    };
    auto it = std::find_if(rules.begin(), rules.end(), same);
    if (it == rules.end()) it = rules.insert(rules.end(), rule);
    const std::uint32_t pair = facts.is_pair(*m.fact)
                                   ? static_cast<std::uint32_t>(evidence.add(m.kind, facts, *m.fact, HealthState::healthy))
                                   : kNoPair;
    noted.push_back(Noted{static_cast<std::uint32_t>(m.probe - probes.data()), m.kind_index, m.value,
                          static_cast<std::uint16_t>(it - rules.begin()), m.retest, pair});
  });
  auto medians = fleet_medians(std::move(values), profile.fleet);
  if (reference_medians && profile.fleet.enabled)
    for (std::size_t k = 0; k < medians.size(); ++k)
      if (auto it = reference_medians->find(std::string(evidence.kinds.list()[k])); it != reference_medians->end())
        medians[k] = it->second;
  // Re-tests of the same entity and kind: the mildest measurement counts.
  std::vector<std::pair<Entity, Finding>> local;
  std::unordered_map<std::string, std::size_t> local_index;
  for (const Noted& n : noted) {
    const Rule& r = rules[n.rule];
    const Measurement m{&probes[n.probe], evidence.kinds.list()[n.kind], n.value, r.metric, r.limit, r.low_code,
                        r.outlier_code, n.kind, r.sense, n.retest, &facts[n.probe]};
    Finding f = judge_measurement(m, medians, profile.fleet);
    if (n.pair != kNoPair) {
      if (f.state != HealthState::healthy) evidence.ledger.judged(n.pair, f.state, std::move(f.reason));
      continue;
    }
    Entity e = measured_entity(*m.probe);
    auto [it, fresh] =
        local_index.try_emplace(std::string(m.kind) + '\x1f' + e.kind + '\x1f' + e.id, local.size());
    if (fresh) local.emplace_back(std::move(e), std::move(f));
    else if (f.state < local[it->second].second.state) local[it->second].second = std::move(f);
  }
  for (auto& [e, f] : local) book.add(e, f.state, std::move(f.reason));
}

}  // namespace

Judgement judge(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                const Profile& profile, const std::unordered_map<std::string, double>* reference_medians) {
  VerdictBook book;
  // Room for each node with its GPUs and ports, and the links of a few
  // results each (more only costs a rehash).
  std::size_t entities = probes.size() / 8;
  for (const auto& host : hosts) {
    entities += 1 + host.gpus.size();
    for (const auto& hca : host.hcas) entities += hca.ports.size();
  }
  book.reserve(entities);
  const ResultFacts facts(probes);
  judge_local(book, hosts, probes, facts, profile);
  PairEvidence evidence;
  evidence.ledger.reserve(probes.size() * 3 / 2);  // a latency result is judged at p50 and p99
  judge_outcomes(book, probes, facts, profile, evidence);
  judge_measurements(book, probes, facts, profile, evidence, reference_medians);
  for (auto& blame : localise(evidence.ledger)) book.add(blame.entity, blame.state, std::move(blame.reason));

  Judgement out;
  out.verdicts = book.take();
  decide_admission(out.verdicts, hosts);
  out.summary = summarise(out.verdicts);
  return out;
}

RetestCandidates retest_candidates(const std::vector<ProbeResult>& probes, const Profile& profile,
                                   const std::unordered_map<std::string, double>* reference_medians) {
  VerdictBook book;
  PairEvidence evidence;
  const ResultFacts facts(probes);
  judge_outcomes(book, probes, facts, profile, evidence);
  judge_measurements(book, probes, facts, profile, evidence, reference_medians);
  const PairLedger& pairs = evidence.ledger;
  // The same measurement of the same two ends, observed again, is a re-test:
  // a pair is a suspect when bad in every observation.
  std::map<PairLedger::PairKey, std::pair<std::size_t, bool>> bad_every_time;  // -> an observation, bad
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const bool bad = pairs.state(i) != HealthState::healthy;
    auto [it, fresh] = bad_every_time.try_emplace(pairs.key(i), i, bad);
    if (!fresh) it->second.second = it->second.second && bad;
  }
  std::set<HostPair> suspects;
  for (const auto& [key, entry] : bad_every_time) {
    if (!entry.second) continue;
    const PairObservation o = pairs.at(entry.first);
    const auto [lo, hi] = std::minmax(o.a.host, o.b.host);
    if (lo != hi) suspects.emplace(lo, hi);
  }
  RetestCandidates out;
  out.suspects.assign(suspects.begin(), suspects.end());
  out.known_good = known_good_hosts(pairs, localise(pairs));
  std::sort(out.known_good.begin(), out.known_good.end());
  return out;
}

RunSummary summarise_without_verdicts(const std::vector<ProbeResult>& probes, SkippedMeans skipped) {
  RunSummary s;
  s.state = HealthState::healthy;
  for (const auto& p : probes) {
    if (p.status == ProbeStatus::timeout) s.state = worst(s.state, HealthState::unknown);
    if (p.status == ProbeStatus::skipped && skipped == SkippedMeans::incomplete)
      s.state = worst(s.state, HealthState::unknown);
    if (p.status == ProbeStatus::error || p.status == ProbeStatus::failed) s.state = worst(s.state, HealthState::failed);
  }
  s.exit_code = exit_code_for(s.state);
  return s;
}

}  // namespace ibgpu
