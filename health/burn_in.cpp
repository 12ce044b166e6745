#include "health/burn_in.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/statistics.h"
#include "core/text.h"
#include "core/units.h"
#include "health/admission.h"
#include "health/sequence.h"
#include "health/thresholds.h"
#include "probes/ib/counters.h"

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

std::string of_rounds(int k, int n) { return std::to_string(k) + " of " + count_text(n, "round"); }

// A reason that says something was found, not that a check did not run or could not be judged.
bool is_finding(ReasonCode code) {
  return code != ReasonCode::CHECK_SKIPPED && code != ReasonCode::NOT_JUDGED && code != ReasonCode::CHECK_NOT_RUN;
}

// For an entity never healthy: the rounds of the findings that came and went (in at least
// min_rounds of the rounds it was judged in, and not in all of them). A node unknown in every
// round for its skipped GPU checks, or degraded throughout by a steady finding, still shows a
// network fault that comes and goes this way.
std::vector<int> intermittent_rounds(const BurnInEntity& e, int min_rounds) {
  std::set<int> rounds;
  for (const auto& [code, in] : e.reason_rounds) {
    const int n = static_cast<int>(in.size());
    if (is_finding(code) && n >= min_rounds && n < e.rounds_judged) rounds.insert(in.begin(), in.end());
  }
  return {rounds.begin(), rounds.end()};
}

}  // namespace

std::string rounds_text(const std::vector<int>& rounds, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < rounds.size() && i < shown; ++i) text += (i ? ", " : "") + std::to_string(rounds[i]);
  if (rounds.size() > shown) text += ", ... (" + std::to_string(rounds.size() - shown) + " more)";
  return text;
}

BurnInTally::BurnInTally(Profile profile) : profile_(std::move(profile)) {}

BurnInTally::EntityTally& BurnInTally::entity(const Entity& e) {
  auto [it, fresh] = index_[e.kind()].try_emplace(e.id(), entities_.size());
  if (fresh) {
    entities_.emplace_back();
    entities_.back().stats.entity = e;
  }
  return entities_[it->second];
}

void BurnInTally::add(const Report& round) {
  ++rounds_;
  if (rounds_ == 1) first_started_ = round.run.started;
  round_started_.push_back(round.run.started);
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
  if (std::any_of(round.verdicts.begin(), round.verdicts.end(),
                  [](const Verdict& v) { return v.entity.kind() == EntityKind::link; }))
    ++network_rounds_;
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
      t.not_healthy_rounds.push_back(rounds_);
      if (!s.first_not_healthy_round) s.first_not_healthy_round = rounds_;
      s.last_not_healthy_round = rounds_;
    }
    if (!passed(v.state)) s.not_passed_rounds.push_back(rounds_);
    std::set<ReasonCode> seen;  // a code counts once per round
    for (const auto& r : v.reasons) {
      if (seen.insert(r.code).second) {
        ++s.reasons[r.code];
        s.reason_rounds[r.code].push_back(rounds_);
      }
      auto [it, fresh] = t.last_reason.try_emplace(r.code);
      if (fresh) t.reason_order.push_back(r.code);
      it->second = r;
    }
  }
}

void BurnInTally::add_figures(const Report& round) {
  for (const Measurement& m : extract_measurements(round.probes, profile_)) {
    EntityTally& t = entity(measured_entity(*m.probe));
    const std::string rails = rails_of(*m.probe);
    auto [it, fresh] = t.figure_index.try_emplace(m.figure.text() + '\x1f' + rails, t.figures.size());
    if (fresh) {
      FigureTally f;
      f.figure.figure = m.figure.text();
      f.figure.metric = m.metric;
      f.figure.rails = rails;
      f.figure.higher_is_better = m.sense == LimitSense::floor;
      cite(f.cites, *m.probe);
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
    BurnInEntity& s = entity(Entity::port(p.scope.hosts[0], p.scope.devices[0])).stats;
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

namespace {

// A figure's trend over the run, in the direction that is worse (falling for a floor, rising for a
// ceiling): Mann-Kendall's z of the round-ordered values (how sure the trend is, beyond the noise)
// and Theil-Sen's slope in log space, as the whole run's fractional change. None under min_rounds.
struct Trend {
  double z = 0;       // > 0: worse over the run
  double change = 0;  // the fraction it got worse by, first round to last
};
std::optional<Trend> trend_of(const BurnInFigure& f, int min_rounds) {
  const auto& pts = f.series;
  if (static_cast<int>(pts.size()) < std::max(min_rounds, 3)) return std::nullopt;
  for (const auto& p : pts)
    if (p.value <= 0) return std::nullopt;
  const double sense = f.higher_is_better ? -1.0 : 1.0;  // worse is down for a floor
  double s = 0;
  std::vector<double> slopes;
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j) {
      const double d = sense * (pts[j].value - pts[i].value);
      s += d > 0 ? 1 : d < 0 ? -1 : 0;
      slopes.push_back(sense * (std::log(pts[j].value) - std::log(pts[i].value)) / (pts[j].round - pts[i].round));
    }
  const double n = static_cast<double>(pts.size());
  const double sd = std::sqrt(n * (n - 1) * (2 * n + 5) / 18);
  Trend t;
  t.z = s > 0 ? (s - 1) / sd : s < 0 ? (s + 1) / sd : 0;  // with the continuity correction
  const double slope = quantile(std::move(slopes), 0.5);
  t.change = 1 - std::exp(-slope * (pts.back().round - pts.front().round));
  return t;
}

// One-sided p < 0.001: a figure of pure noise drifts in about one burn-in of a thousand.
constexpr double kDriftZ = 3.09;

}  // namespace

// The entity's statistics over the run: pass ratio, figures with their worst and median.
BurnInEntity BurnInTally::entity_stats(const EntityTally& t) const {
  BurnInEntity s = t.stats;
  if (is_fabric(s.entity.kind())) {
    // Blamed only: a round that judged the network without blaming it passed it.
    const int passed_silently = std::max(0, network_rounds_ - s.rounds_judged);
    s.rounds_judged += passed_silently;
    s.healthy += passed_silently;
  }
  s.pass_ratio = s.rounds_judged ? static_cast<double>(s.healthy + s.degraded) / s.rounds_judged : 0.0;
  for (const FigureTally& f : t.figures) {
    BurnInFigure figure = f.figure;
    figure.count = f.values.size();
    const auto [lo, hi] = std::minmax_element(f.values.begin(), f.values.end());
    figure.worst = figure.higher_is_better ? *lo : *hi;
    figure.median = *lower_median(f.values);
    s.figures.push_back(std::move(figure));
  }
  return s;
}

namespace {

// How much better than its own median a figure read in a round, in log space (worse is negative).
double log_goodness(const BurnInFigure& f, double value) {
  const double ratio = std::log(value / f.median);
  return f.higher_is_better ? ratio : -ratio;
}

// The run's own round-to-round noise, per figure: every entity's reading in every round against
// its own median, and the fence past which a round is beyond that noise (noise_fence, as the
// fleet rule's). None from fewer than kNoiseSample readings. A small group has too few pairs for the fleet rule to
// learn its noise in one round, but a burn-in's rounds show it: on a loaded host a clean pair reads half its median now
// and then, a link limited to a fifth reads a seventh.
std::map<std::string, double> round_noise_fences(const std::vector<BurnInEntity>& entities) {
  std::map<std::string, std::vector<double>> readings;
  for (const BurnInEntity& e : entities)
    for (const BurnInFigure& f : e.figures)
      for (const auto& p : f.series)
        if (f.median > 0 && p.value > 0) readings[f.figure].push_back(log_goodness(f, p.value));
  std::map<std::string, double> fences;
  for (const auto& [figure, d] : readings)
    if (d.size() >= kNoiseSample) fences[figure] = noise_fence(d);
  return fences;
}

// The degraded rounds that count towards flakiness: for an entity with figures the run's noise is
// known for, those in which one of them read beyond that noise; otherwise every degraded round.
int degraded_beyond_noise(const std::vector<int>& not_healthy_rounds, const BurnInEntity& e,
                          const std::map<std::string, double>& fences) {
  std::set<int> degraded(not_healthy_rounds.begin(), not_healthy_rounds.end());
  for (const int k : e.not_passed_rounds) degraded.erase(k);
  bool gated = false;
  std::set<int> beyond;
  for (const BurnInFigure& f : e.figures) {
    const auto fence = fences.find(f.figure);
    if (fence == fences.end() || f.median <= 0) continue;
    gated = true;
    for (const auto& p : f.series)
      if (p.value > 0 && log_goodness(f, p.value) < fence->second) beyond.insert(p.round);
  }
  if (!gated) return static_cast<int>(degraded.size());
  return static_cast<int>(std::count_if(degraded.begin(), degraded.end(), [&](int k) { return beyond.count(k); }));
}

// "net.mpi.bw@1048576:bw_avg_GBps (mlx5_0:1<->mlx5_0:1)": a figure, with its rails where it has them.
std::string figure_text(const BurnInFigure& f) { return f.figure + (f.rails.empty() ? "" : " (" + f.rails + ")"); }

// " (2026-12-05T15:29:42Z)": when round `round` (from 1) started, where known; else nothing.
std::string started_text(const std::vector<std::string>& round_started, int round) {
  const auto k = static_cast<std::size_t>(round - 1);
  return round >= 1 && k < round_started.size() && !round_started[k].empty() ? " (" + round_started[k] + ")" : "";
}

// A bandwidth's drop in one round: what it read there against what it read in its other rounds.
struct Drop {
  const BurnInEntity* entity = nullptr;  // whose figure
  const BurnInFigure* figure = nullptr;
  double value = 0, others = 0;  // in the round; the upper median of its other rounds
  double ratio() const { return value / others; }
};

// Each host's links (a node's drops are read from its links' figures), and each host's drop by round.
using LinksOf = std::unordered_map<std::string, std::vector<const BurnInEntity*>>;
using HostDrops = std::unordered_map<std::string, std::vector<std::optional<Drop>>>;

struct DropReading {
  const LinksOf& links_of;
  const HostDrops& host_drops;
  int rounds;
  const Profile& profile;
  const std::vector<std::string>& round_started;  // by round, from 1 at index 0
};

// e's deepest bandwidth drop in each round (index round - 1), where it has a bandwidth figure
// measured there and in other rounds. Latencies are not read: they spike on a busy host.
std::vector<std::optional<Drop>> drops_by_round(const BurnInEntity& e, int rounds) {
  std::vector<std::optional<Drop>> out(static_cast<std::size_t>(rounds));
  for (const BurnInFigure& f : e.figures) {
    if (!f.higher_is_better || f.series.size() < 2) continue;
    std::vector<double> sorted;
    for (const auto& p : f.series) sorted.push_back(p.value);
    std::sort(sorted.begin(), sorted.end());
    // The upper median of the others, without p: the middle of the n - 1 left, the upper one of
    // an even count (in three rounds, two drops are each set beside the good round, not each other).
    const std::size_t mid = (sorted.size() - 1) / 2;
    for (const auto& p : f.series) {
      const auto at =
          static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), p.value) - sorted.begin());
      const double others = at <= mid ? sorted[mid + 1] : sorted[mid];
      if (p.round < 1 || p.round > rounds || others <= 0) continue;
      std::optional<Drop>& slot = out[static_cast<std::size_t>(p.round - 1)];
      const Drop d{&e, &f, p.value, others};
      if (!slot || d.ratio() < slot->ratio()) slot = d;
    }
  }
  return out;
}

// Each host's drop in each round: the middle one of its links' deepest (the upper middle: more
// than half its links, both of two), as localisation blames a node whose pairs all read low. A host with
// one link measured in a round has none: its link and it cannot be told apart, and the link keeps it.
HostDrops drops_of_hosts(const LinksOf& links_of, int rounds) {
  HostDrops out;
  for (const auto& [host, links] : links_of) {
    std::vector<std::vector<std::optional<Drop>>> of_links;
    for (const BurnInEntity* link : links) of_links.push_back(drops_by_round(*link, rounds));
    std::vector<std::optional<Drop>>& drops = out[host];
    drops.resize(static_cast<std::size_t>(rounds));
    for (std::size_t k = 0; k < drops.size(); ++k) {
      std::vector<Drop> in_round;
      for (const auto& link : of_links)
        if (link[k]) in_round.push_back(*link[k]);
      std::sort(in_round.begin(), in_round.end(), [](const Drop& a, const Drop& b) { return a.ratio() < b.ratio(); });
      if (in_round.size() >= 2) drops[k] = in_round[in_round.size() / 2];  // one link: its own drop
    }
  }
  return out;
}

// What the drops said of an entity, and its deepest drop (the figure its reason names).
struct DropCall {
  Finding finding;
  Drop deepest;
};

// e's bandwidth read round by round as a sequence (health/sequence.h): a round is bad where it
// dropped under [burn_in].drop_fraction of its other rounds'. Bad in one round: seen once
// (BURN_IN_SEEN_ONCE); in flaky_min_rounds and not in all: flaky (BURN_IN_FLAKY).
std::optional<DropCall> drops_call(const BurnInEntity& e, const DropReading& in) {
  std::vector<std::optional<Drop>> drops;
  std::size_t links = 0;
  if (e.entity.kind() == EntityKind::node) {
    const auto it = in.host_drops.find(std::string(e.entity.host()));
    if (it != in.host_drops.end()) drops = it->second;
    if (const auto l = in.links_of.find(std::string(e.entity.host())); l != in.links_of.end()) links = l->second.size();
  } else {
    drops = drops_by_round(e, in.rounds);
  }
  const double fraction = in.profile.burn_in.drop_fraction;
  // A link's drop in a round one of its hosts dropped in is that host's (as localisation lays a
  // slow node's pairs on the node): not the link's.
  if (e.entity.kind() == EntityKind::link)
    for (const std::string_view end : {e.entity.host(), e.entity.peer()})
      if (const auto it = in.host_drops.find(std::string(end)); it != in.host_drops.end())
        for (std::size_t k = 0; k < drops.size() && k < it->second.size(); ++k)
          if (it->second[k] && it->second[k]->ratio() < fraction) drops[k].reset();
  // The rounds as a sequence (health/sequence.h): bad where the drop is deep.
  std::vector<Outcome> steps(drops.size(), Outcome::unknown);
  std::vector<int> deep;  // the rounds it dropped in
  std::size_t deepest = 0;
  for (std::size_t k = 0; k < drops.size(); ++k) {
    if (!drops[k]) continue;
    const bool bad = drops[k]->ratio() < fraction;
    steps[k] = bad ? Outcome::bad : Outcome::clean;
    if (!bad) continue;
    if (deep.empty() || drops[k]->ratio() < drops[deepest]->ratio()) deepest = k;
    deep.push_back(static_cast<int>(k) + 1);
  }
  const BurnInRules& rules = in.profile.burn_in;
  const SequenceReading reading = read_sequence(steps);
  const bool flaky = reading.repeated(rules.flaky_min_rounds);
  if (!flaky && !reading.seen_once()) return std::nullopt;
  const Drop& drop = *drops[deepest];
  const BurnInFigure& f = *drop.figure;
  const int at = static_cast<int>(deepest) + 1;
  std::string text = "bandwidth under " + format_value(fraction) +
                     " x its other rounds' ([burn_in].drop_fraction) in " + of_rounds(reading.bad, reading.judged) +
                     " (round" + (deep.size() == 1 ? " " : "s ") + rounds_text(deep) + "), not in the others; ";
  if (links > 0)
    text += "the middle of its " + count_text(static_cast<long>(links), "link") + "' drops, " +
            entity_text(drop.entity->entity) + " ";
  text += figure_text(f) + " " + format_value(drop.value) + " in round " + std::to_string(at) +
          started_text(in.round_started, at) + ", " + format_value(drop.ratio()) + " x its other rounds' " +
          format_value(drop.others);
  return DropCall{Finding{flaky ? rules.flaky_state : rules.seen_once_state,
                          Reason{flaky ? ReasonCode::BURN_IN_FLAKY : ReasonCode::BURN_IN_SEEN_ONCE, text, f.metric,
                                 drop.value, fraction * drop.others}},
                  drop};
}

}  // namespace

BurnInResult BurnInTally::finish() const {
  BurnInResult out;
  out.hosts = hosts_;
  out.stats.rounds = rounds_;
  out.stats.first_round_started = first_started_;
  out.stats.last_round_finished = last_finished_;
  out.stats.entities.reserve(entities_.size());
  const BurnInRules& rules = profile_.burn_in;
  for (const EntityTally& t : entities_) out.stats.entities.push_back(entity_stats(t));
  const std::map<std::string, double> fences = round_noise_fences(out.stats.entities);
  LinksOf links_of;  // a node's drops are read from its links' figures
  for (const BurnInEntity& e : out.stats.entities)
    if (e.entity.kind() == EntityKind::link && !e.entity.peer().empty() && e.entity.host() != e.entity.peer()) {
      links_of[std::string(e.entity.host())].push_back(&e);  // a loopback's drop stays its own
      links_of[std::string(e.entity.peer())].push_back(&e);
    }
  const HostDrops host_drops = drops_of_hosts(links_of, rounds_);
  for (std::size_t i = 0; i < entities_.size(); ++i) {
    const EntityTally& t = entities_[i];
    BurnInEntity& e = out.stats.entities[i];
    const int judged = e.rounds_judged;
    if (judged == 0) continue;  // only measured or counted (a re-test pair's figures): no verdict of its own

    Verdict v{e.entity, HealthState::healthy, {}, std::nullopt};
    const int not_passed = e.failed + e.unknown;
    const int not_healthy = judged - e.healthy;
    const std::vector<int> came_and_went =
        e.healthy == 0 ? intermittent_rounds(e, rules.flaky_min_rounds) : std::vector<int>{};
    // As bad as it was in its worst round (unchecked throughout stays unknown).
    const HealthState as_bad = e.failed     ? HealthState::failed
                               : e.degraded ? HealthState::degraded
                                            : HealthState::unknown;
    if (e.healthy == 0 && came_and_went.empty()) {
      v.state = as_bad;  // the same every round
    } else if (!came_and_went.empty() || not_passed > 0 ||
               degraded_beyond_noise(t.not_healthy_rounds, e, fences) >= rules.flaky_min_rounds) {
      v.state = e.healthy == 0 ? worst(rules.flaky_state, as_bad) : rules.flaky_state;
      v.reasons.push_back(flaky_reason(t, e, came_and_went));
    } else if (std::optional<DropCall> drops =
                   drops_call(e, DropReading{links_of, host_drops, rounds_, profile_, round_started_})) {
      v.state = drops->finding.state;  // a bandwidth that fell deep in some rounds (seen once, or flaky)
      Reason& r = *drops->finding.reason;
      const BurnInEntity& by = *drops->deepest.entity;  // a node's drop is one of its links'
      cite_figure(r, entities_[static_cast<std::size_t>(&by - out.stats.entities.data())], by, *drops->deepest.figure);
      if (e.entity.kind() == EntityKind::node && e.entity.host() == by.entity.peer())
        std::swap(r.port, r.peer_port);  // the node's own end first, as localisation cites a node
      v.reasons.push_back(std::move(r));
    }
    for (const BurnInFigure& f : e.figures) {
      const auto trend = trend_of(f, rules.drift_min_rounds);
      if (!trend || trend->z < kDriftZ || trend->change < rules.drift_fraction) continue;
      v.state = worst(v.state, rules.drift_state);
      const auto& pts = f.series;
      Reason drift{ReasonCode::BURN_IN_DRIFT,
                   figure_text(f) + " " + (f.higher_is_better ? "fell" : "rose") + " " +
                       std::to_string(std::lround(100 * trend->change)) + "% over rounds " +
                       std::to_string(pts.front().round) + "-" + std::to_string(pts.back().round) + " (" +
                       format_value(pts.front().value) + " to " + format_value(pts.back().value) +
                       "), a steady trend beyond the run's noise",
                   f.metric, 1 - trend->change, 1 - rules.drift_fraction};
      cite_figure(drift, t, e, f);
      v.reasons.push_back(std::move(drift));
    }
    // Every code the rounds reported, with the rounds it came in.
    if (v.state != HealthState::healthy && not_healthy > 0)
      for (const auto& code : t.reason_order) {
        Reason r = t.last_reason.at(code);
        const auto& in = e.reason_rounds.at(code);
        r.message += " (in " + of_rounds(static_cast<int>(in.size()), judged) +
                     (static_cast<int>(in.size()) < judged ? ": " + rounds_text(in) : "") + ")";
        v.reasons.push_back(std::move(r));
      }
    e.burn_in_class = burn_in_class(e, &v);
    out.verdicts.push_back(std::move(v));
  }
  decide_admission(out.verdicts, out.hosts, profile_.node);
  out.summary = summarise(out.verdicts);
  return out;
}

// "degraded in 5 of 16 rounds (rounds 6, 7, 8, 9, 10)", and where a figure was at its worst in one
// of those rounds, that figure, the round and when it started, against the figure's median.
Reason BurnInTally::flaky_reason(const EntityTally& t, const BurnInEntity& e,
                                 const std::vector<int>& came_and_went) const {
  const int judged = e.rounds_judged;
  std::string text;
  std::vector<int> bad_rounds = t.not_healthy_rounds;
  if (!came_and_went.empty()) {  // never healthy: "found in 2 of 11 rounds (rounds 3, 4), not in the others"
    std::string codes;
    for (const auto& [code, in] : e.reason_rounds)
      if (is_finding(code) && std::includes(came_and_went.begin(), came_and_went.end(), in.begin(), in.end()))
        codes += (codes.empty() ? "" : ", ") + std::string(to_string(code));
    text = (codes.empty() ? "findings" : codes) + " in " + of_rounds(static_cast<int>(came_and_went.size()), judged) +
           " (rounds " + rounds_text(came_and_went) + "), not in the others";
    bad_rounds = came_and_went;
  } else if (e.degraded == 0) {  // failed or unchecked rounds only: "failed 1 of 20 rounds (rounds 7)"
    const std::string what = e.failed && e.unknown ? "failed or unchecked in " : e.failed ? "failed " : "unchecked in ";
    text = what + of_rounds(e.failed + e.unknown, judged) + " (rounds " + rounds_text(e.not_passed_rounds) + ")";
  } else {
    std::vector<std::string> states;
    if (e.failed) states.push_back("failed");
    if (e.unknown) states.push_back("unchecked");
    states.push_back("degraded");
    std::string what = states[0];
    for (std::size_t i = 1; i < states.size(); ++i) what += (i + 1 == states.size() ? " or " : ", ") + states[i];
    text =
        what + " in " + of_rounds(judged - e.healthy, judged) + " (rounds " + rounds_text(t.not_healthy_rounds) + ")";
  }
  // The figure furthest below its own median (above, for a ceiling), if that was in a round that
  // was not healthy: what it read, when, and what it reads in the run as a whole.
  const std::set<int> bad(bad_rounds.begin(), bad_rounds.end());
  const BurnInFigure* worst_figure = nullptr;
  BurnInFigure::Point worst_point;
  double worst_ratio = 1;
  for (const BurnInFigure& f : e.figures) {
    if (f.median <= 0) continue;
    for (const auto& p : f.series) {
      if (!bad.count(p.round) || p.value <= 0) continue;
      const double ratio = f.higher_is_better ? p.value / f.median : f.median / p.value;
      if (ratio < worst_ratio) {
        worst_ratio = ratio;
        worst_figure = &f;
        worst_point = p;
      }
    }
  }
  if (worst_figure) {
    const BurnInFigure& f = *worst_figure;
    text += "; worst " + figure_text(f) + " " + format_value(worst_point.value) + " in round " +
            std::to_string(worst_point.round) + started_text(round_started_, worst_point.round) + ", median " +
            format_value(f.median);
  }
  // A rule over the rounds' verdicts, not read from one figure's results: it cites none.
  return Reason{ReasonCode::BURN_IN_FLAKY, text, "pass_ratio", e.pass_ratio, 1.0};
}

void BurnInTally::cite_figure(Reason& r, const EntityTally& t, const BurnInEntity& e, const BurnInFigure& f) {
  const Reason& cites = t.figures.at(static_cast<std::size_t>(&f - e.figures.data())).cites;
  r.probe = cites.probe;
  r.size_B = cites.size_B;
  r.port = cites.port;
  r.peer_port = cites.peer_port;
}

}  // namespace ibgpu
