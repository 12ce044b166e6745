#include "health/judge.h"

#include <algorithm>
#include <map>

#include "health/local_health.h"

namespace ibgpu {

namespace {

std::string link_id(const Scope& scope) { return scope.hosts.at(0) + "<->" + scope.hosts.at(1); }

// The state a probe's outcome contributes, with its reason.
std::pair<HealthState, std::optional<Reason>> probe_outcome(const ProbeResult& p) {
  switch (p.status) {
    case ProbeStatus::ok: return {HealthState::healthy, std::nullopt};
    case ProbeStatus::skipped:
      return {HealthState::unknown, Reason{"CHECK_SKIPPED", p.id + ": " + p.reason.value_or("skipped"), p.id, std::nullopt, std::nullopt}};
    case ProbeStatus::timeout:
      return {HealthState::failed, Reason{"PROBE_TIMEOUT", p.id + ": " + p.error.value_or("timeout"), p.id, std::nullopt, std::nullopt}};
    case ProbeStatus::failed:
      return {HealthState::failed, Reason{"PROBE_FAILED", p.id + ": " + p.error.value_or("failed"), p.id, std::nullopt, std::nullopt}};
    case ProbeStatus::error:
      return {HealthState::failed, Reason{"PROBE_ERROR", p.id + ": " + p.error.value_or("error"), p.id, std::nullopt, std::nullopt}};
  }
  return {HealthState::unknown, std::nullopt};
}

class VerdictBook {
 public:
  Verdict& at(const Entity& e) {
    auto it = std::find_if(verdicts_.begin(), verdicts_.end(), [&](const Verdict& v) { return v.entity == e; });
    if (it != verdicts_.end()) return *it;
    verdicts_.push_back(Verdict{e, HealthState::healthy, {}, std::nullopt});
    return verdicts_.back();
  }
  void add(const Entity& e, HealthState state, std::optional<Reason> reason) {
    Verdict& v = at(e);
    v.state = worst(v.state, state);
    if (reason) v.reasons.push_back(std::move(*reason));
  }
  void merge(Verdict v) {
    for (auto& r : v.reasons) add(v.entity, v.state, std::move(r));
    add(v.entity, v.state, std::nullopt);
  }
  std::vector<Verdict> take() { return std::move(verdicts_); }

 private:
  std::vector<Verdict> verdicts_;
};

// A profile that declares none of a device makes its absence expected.
bool expected_absent(const ProbeResult& p, const Profile& profile) {
  if (p.status != ProbeStatus::skipped) return false;
  if (p.id == "inventory.gpu") return profile.expect_gpus == 0;
  if (p.id == "inventory.rdma") return profile.expect_active_ports == 0;
  return false;
}

RunSummary summarise(const std::vector<Verdict>& verdicts) {
  RunSummary s;
  s.state = verdicts.empty() ? HealthState::unknown : HealthState::healthy;
  for (const auto& v : verdicts) {
    s.state = worst(s.state, v.state);
    if (!v.action) continue;
    switch (*v.action) {
      case Action::admit: s.admit.push_back(v.entity.id); break;
      case Action::admit_degraded: s.admit_degraded.push_back(v.entity.id); break;
      case Action::drain: s.drain.push_back(v.entity.id); break;
    }
  }
  s.exit_code = exit_code_for(s.state);
  return s;
}

}  // namespace

Judgement judge(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                const Profile& profile) {
  VerdictBook book;
  for (const auto& host : hosts) {
    book.at({"node", host.name});
  }
  LocalLimits local;
  local.expect_gpus = profile.expect_gpus;
  local.expect_active_ports = profile.expect_active_ports;
  for (auto& v : judge_local_health(hosts, probes, local)) book.merge(std::move(v));
  for (const auto& p : probes) {
    if (expected_absent(p, profile) || is_local_probe(p)) continue;
    auto [state, reason] = probe_outcome(p);
    if (p.scope.hosts.size() == 2) {
      book.add({"link", link_id(p.scope)}, state, std::move(reason));
    } else {
      for (const auto& h : p.scope.hosts) book.add({"node", h}, state, reason);
    }
  }
  std::vector<Verdict> verdicts = book.take();
  // A node carries its ports' state: a failed rail leaves the node usable with fewer rails.
  for (auto& node : verdicts) {
    if (node.entity.kind != "node") continue;
    // A degraded or unknown port passes its state on as it is.
    bool some_port_up = false;
    HealthState worst_port = HealthState::healthy;
    for (const auto& v : verdicts)
      if (v.entity.kind == "hca_port" && v.entity.id.rfind(node.entity.id + "/", 0) == 0) {
        some_port_up = some_port_up || v.state == HealthState::healthy;
        worst_port = worst(worst_port, v.state);
      }
    if (worst_port == HealthState::failed && some_port_up) worst_port = HealthState::degraded;
    node.state = worst(node.state, worst_port);
    node.action = node.state == HealthState::healthy    ? Action::admit
                  : node.state == HealthState::degraded ? Action::admit_degraded
                                                        : Action::drain;
  }
  Judgement out;
  out.summary = summarise(verdicts);
  out.verdicts = std::move(verdicts);
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
