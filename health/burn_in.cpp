#include "health/burn_in.h"

#include <algorithm>
#include <unordered_set>

#include "health/admission.h"
#include "health/thresholds.h"
#include "probes/ib/counters.h"
#include "probes/stats.h"

namespace ibgpu {

namespace {

bool passed(HealthState s) { return s == HealthState::healthy || s == HealthState::degraded; }

// The entity a judged number speaks for, as the judge files it before
// localisation: a pair's numbers belong to its link, a one-host number with
// one GPU device to that GPU, anything else one-host to the node.
std::string rails_of(const ProbeResult& p) {
  return p.scope.hosts.size() == 2 && p.scope.devices.size() == 2 ? p.scope.devices[0] + "<->" + p.scope.devices[1]
                                                                  : std::string();
}

bool has_inventory(const HostInventory& h) { return !h.gpus.empty() || !h.hcas.empty() || !h.versions.empty(); }

std::string of_rounds(int k, int n) { return std::to_string(k) + " of " + std::to_string(n) + " rounds"; }

}  // namespace

std::string rounds_text(const std::vector<int>& rounds, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < rounds.size() && i < shown; ++i) text += (i ? ", " : "") + std::to_string(rounds[i]);
  if (rounds.size() > shown) text += ", ... (" + std::to_string(rounds.size() - shown) + " more)";
  return text;
}

BurnInTally::BurnInTally(Profile profile) : profile_(std::move(profile)) {}

BurnInTally::EntityTally& BurnInTally::entity(const Entity& e) {
  auto [it, fresh] = index_[e.kind].try_emplace(e.id, entities_.size());
  if (fresh) {
    entities_.emplace_back();
    entities_.back().stats.entity = e;
  }
  return entities_[it->second];
}

void BurnInTally::add(const Report& round) {
  ++rounds_;
  if (rounds_ == 1) first_started_ = round.run.started;
  if (!round.run.finished.empty()) last_finished_ = round.run.finished;
  for (const auto& h : round.hosts) {
    auto [it, fresh] = host_index_.try_emplace(h.name, hosts_.size());
    if (fresh)
      hosts_.push_back(h);
    else if (has_inventory(h))
      hosts_[it->second] = h;  // a lost rank's host keeps its last full inventory
  }
  add_verdicts(round);
  add_figures(round);
  add_counters(round);
}

void BurnInTally::add_verdicts(const Report& round) {
  for (const auto& v : round.verdicts) {
    EntityTally& t = entity(v.entity);
    BurnInEntity& s = t.stats;
    ++s.rounds_judged;
    switch (v.state) {
      case HealthState::healthy:
        ++s.healthy;
        break;
      case HealthState::degraded:
        ++s.degraded;
        break;
      case HealthState::failed:
        ++s.failed;
        break;
      case HealthState::unknown:
        ++s.unknown;
        break;
    }
    if (v.state != HealthState::healthy) {
      if (!s.first_not_healthy_round) s.first_not_healthy_round = rounds_;
      s.last_not_healthy_round = rounds_;
    }
    if (!passed(v.state)) s.not_passed_rounds.push_back(rounds_);
    std::unordered_set<std::string> seen;  // a code counts once per round
    for (const auto& r : v.reasons) {
      if (seen.insert(r.code).second) {
        ++s.reasons[r.code];
        s.reason_rounds[r.code].push_back(rounds_);
      }
      auto [it, fresh] = t.last_reason.try_emplace(r.code);
      if (fresh) t.reason_order.push_back(r.code);
      it->second.state = worst(it->second.state, v.state);
      it->second.reason = r;
    }
  }
}

void BurnInTally::add_figures(const Report& round) {
  for (const Measurement& m : extract_measurements(round.probes, profile_)) {
    EntityTally& t = entity(measured_entity(*m.probe));
    const std::string rails = rails_of(*m.probe);
    auto [it, fresh] = t.figure_index.try_emplace(std::string(m.kind) + '\x1f' + rails, t.figures.size());
    if (fresh) {
      FigureTally f;
      f.figure.figure = std::string(m.kind);
      f.figure.metric = m.metric;
      f.figure.rails = rails;
      f.figure.higher_is_better = m.sense == LimitSense::floor;
      t.figures.push_back(std::move(f));
    }
    FigureTally& f = t.figures[it->second];
    f.values.push_back(m.value);
    auto& series = f.figure.series;  // the round's worst, as the re-tests add to it
    if (series.empty() || series.back().round != rounds_)
      series.push_back({rounds_, m.value});
    else if (f.figure.higher_is_better ? m.value < series.back().value : m.value > series.back().value)
      series.back().value = m.value;
  }
}

void BurnInTally::add_counters(const Report& round) {
  static const std::string kDelta = "_delta";
  for (const auto& p : round.probes) {
    if (p.id != kPortCountersProbe || p.status != ProbeStatus::ok) continue;
    if (p.scope.hosts.size() != 1 || p.scope.devices.size() != 1) continue;
    BurnInEntity& s = entity({"hca_port", p.scope.hosts[0] + "/" + p.scope.devices[0]}).stats;
    for (const auto& [name, metric] : p.metrics) {
      if (name.size() <= kDelta.size() || name.compare(name.size() - kDelta.size(), kDelta.size(), kDelta) != 0)
        continue;
      const std::string counter = name.substr(0, name.size() - kDelta.size());
      if (auto v = metric.typical())
        s.counter_deltas[counter] += *v;
      else
        ++s.counter_resets[counter];  // went backwards: no delta this round
    }
  }
}

BurnInResult BurnInTally::finish() const {
  BurnInResult out;
  out.hosts = hosts_;
  out.stats.rounds = rounds_;
  out.stats.first_round_started = first_started_;
  out.stats.last_round_finished = last_finished_;
  out.stats.entities.reserve(entities_.size());
  for (const EntityTally& t : entities_) {
    BurnInEntity s = t.stats;
    const int judged = s.rounds_judged;
    s.pass_ratio = judged ? static_cast<double>(s.healthy + s.degraded) / judged : 0.0;
    for (const FigureTally& f : t.figures) {
      BurnInFigure figure = f.figure;
      figure.count = f.values.size();
      const auto [lo, hi] = std::minmax_element(f.values.begin(), f.values.end());
      figure.worst = figure.higher_is_better ? *lo : *hi;
      figure.median = summarize(f.values).p50;
      s.figures.push_back(std::move(figure));
    }
    out.stats.entities.push_back(std::move(s));
    if (judged == 0) continue;  // only measured or counted (a re-test pair's figures): no verdict of its own

    const BurnInEntity& e = out.stats.entities.back();
    Verdict v{e.entity, HealthState::healthy, {}, std::nullopt};
    const int not_passed = e.failed + e.unknown;
    // The reasons of the rounds in the states that make the verdict, once per code.
    auto summarise_reasons = [&](auto wanted) {
      for (const auto& code : t.reason_order) {
        const auto& last = t.last_reason.at(code);
        if (!wanted(last.state)) continue;
        Reason r = last.reason;
        r.message += " (in " + of_rounds(e.reasons.at(code), judged) + ")";
        v.reasons.push_back(std::move(r));
      }
    };
    if (not_passed == judged) {
      v.state = e.failed ? HealthState::failed : HealthState::unknown;
      summarise_reasons([](HealthState st) { return !passed(st); });
    } else if (not_passed > 0) {
      v.state = HealthState::failed;
      std::string what = e.failed && e.unknown ? "failed or unchecked in " : e.failed ? "failed " : "unchecked in ";
      v.reasons.push_back(Reason{
          "BURN_IN_FLAKY", what + of_rounds(not_passed, judged) + " (rounds " + rounds_text(e.not_passed_rounds) + ")",
          "pass_ratio", e.pass_ratio, 1.0});
      summarise_reasons([](HealthState st) { return !passed(st); });
    } else if (2 * e.degraded > judged) {
      v.state = HealthState::degraded;
      summarise_reasons([](HealthState st) { return st == HealthState::degraded; });
    }
    out.verdicts.push_back(std::move(v));
  }
  decide_admission(out.verdicts, out.hosts, profile_.node);
  out.summary = summarise(out.verdicts);
  return out;
}

}  // namespace ibgpu
