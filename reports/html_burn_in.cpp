// The burn-in section of the HTML report: for each entity the rounds did not
// find healthy, its judged figures round by round, the rounds it was not
// healthy in shaded and their points marked. Healthy entities are counted,
// not drawn: a fleet has thousands.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text.h"
#include "reports/html.h"
#include "reports/html_chart.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

// Past these, the rest is in the JSON report: a page to read, not an archive.
constexpr std::size_t kChartedEntities = 40;
constexpr std::size_t kFiguresPerEntity = 8;

std::string key_of(const Entity& e) { return entity_text(e); }

// The rounds an entity was not healthy in: those a reason came from (degraded
// ones included), and those it did not pass.
std::set<int> bad_rounds(const BurnInEntity& e) {
  std::set<int> rounds(e.not_passed_rounds.begin(), e.not_passed_rounds.end());
  for (const auto& [code, in] : e.reason_rounds) rounds.insert(in.begin(), in.end());
  return rounds;
}

std::string rounds_text(const std::vector<int>& rounds) {
  std::string text;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (i == 12) return text + ", ... (" + std::to_string(rounds.size()) + " rounds)";
    text += (i ? ", " : "") + std::to_string(rounds[i]);
  }
  return text;
}

std::string joined(const std::set<int>& rounds) {
  std::string text;
  for (const int r : rounds) text += (text.empty() ? "" : ",") + std::to_string(r);
  return text;
}

void write_figure(const BurnInEntity& e, const BurnInFigure& f, int rounds, const std::set<int>& bad,
                  std::ostream& out) {
  LineChart chart;
  chart.cls = "burn-in";
  chart.label = e.entity.id() + ": " + f.figure + " over the rounds";
  chart.x_label = "round";
  chart.y_label = f.metric.empty() ? f.figure : f.metric;
  chart.x_range = std::pair{0.5, static_cast<double>(std::max(rounds, 1)) + 0.5};
  const int every = std::max(1, (rounds + 9) / 10);
  for (int r = 1; r <= rounds; r += every) chart.x_ticks.emplace_back(r, std::to_string(r));
  for (const int r : bad) chart.bands.push_back({r - 0.5, r + 0.5, "round " + std::to_string(r) + ": not healthy"});
  ChartSeries s;
  s.name = f.figure;
  std::size_t flagged = 0;
  for (const auto& p : f.series) {
    const bool in_bad = bad.count(p.round) > 0;
    flagged += in_bad;
    s.points.push_back(
        {static_cast<double>(p.round), p.value, in_bad,
         "round " + std::to_string(p.round) + ": " + format_number(p.value) + (in_bad ? " (not healthy)" : "")});
  }
  chart.series.push_back(std::move(s));
  chart.data = {{"entity", entity_text(e.entity)},
                {"figure", f.figure},
                {"bad-rounds", joined(bad)},
                {"flagged-points", std::to_string(flagged)}};
  out << "<figure class=\"chart\">\n<figcaption><code>" << html_escape(f.figure) << "</code>"
      << (f.rails.empty() ? "" : " on " + html_escape(f.rails)) << ": worst " << format_number(f.worst) << ", median "
      << format_number(f.median) << " over " << count_text(f.count, "measurement") << "; "
      << (f.higher_is_better ? "higher" : "lower") << " is better</figcaption>\n";
  write_line_chart(chart, out);
  out << "</figure>\n";
}

void write_entity(const BurnInEntity& e, const std::string& state, int rounds, std::ostream& out) {
  const std::set<int> bad = bad_rounds(e);
  out << "<div class=\"entity\" data-entity=\"" << html_escape(entity_text(e.entity)) << "\" data-state=\""
      << html_escape(state) << "\">\n<h3>" << state_badge(state) << " " << html_escape(to_string(e.entity.kind()))
      << " <code>" << html_escape(e.entity.id()) << "</code></h3>\n<p>" << e.healthy << " healthy, " << e.degraded
      << " degraded, " << e.failed << " failed, " << e.unknown << " unknown of " << count_text(e.rounds_judged, "round")
      << " judged";
  if (e.rounds_judged) out << " (passed " << format_number(100 * e.pass_ratio, 3) << " %)";
  out << ".</p>\n";
  if (!e.reason_rounds.empty()) {
    out << "<ul class=\"reason-rounds\">\n";
    for (const auto& [code, in] : e.reason_rounds)
      out << "<li><code>" << html_escape(to_string(code)) << "</code> in " << (in.size() == 1 ? "round " : "rounds ")
          << rounds_text(in) << "</li>\n";
    out << "</ul>\n";
  }
  std::size_t drawn = 0;
  for (const auto& f : e.figures) {
    if (f.series.empty()) continue;
    if (drawn++ == kFiguresPerEntity) break;
    write_figure(e, f, rounds, bad, out);
  }
  if (drawn == 0) out << "<p class=\"empty\">No judged figure was recorded round by round for it.</p>\n";
  if (drawn > kFiguresPerEntity) out << "<p class=\"more\">More figures are in the JSON report.</p>\n";
  out << "</div>\n";
}

}  // namespace

void write_burn_in_section(const Report& r, std::ostream& out) {
  if (!r.burn_in) return;
  const BurnInStats& b = *r.burn_in;
  std::unordered_map<std::string, HealthState> verdict_of;
  for (const auto& v : r.verdicts) verdict_of.emplace(key_of(v.entity), v.state);
  std::vector<std::pair<const BurnInEntity*, std::string>> flagged;
  for (const auto& e : b.entities) {
    const auto v = verdict_of.find(key_of(e.entity));
    // Without a verdict of its own, what the rounds said of it decides.
    const bool not_healthy =
        v != verdict_of.end() ? v->second != HealthState::healthy : e.degraded + e.failed + e.unknown > 0;
    if (!not_healthy) continue;
    const std::string state = v != verdict_of.end() ? to_string(v->second)
                              : e.failed            ? "failed"
                              : e.unknown           ? "unknown"
                                                    : "degraded";
    flagged.emplace_back(&e, state);
  }
  // Worst first, as the reasons table.
  std::stable_sort(flagged.begin(), flagged.end(), [](const auto& a, const auto& b_) {
    auto rank = [](const std::string& s) { return s == "failed" ? 0 : s == "unknown" ? 1 : 2; };
    return rank(a.second) < rank(b_.second);
  });
  out << "<section id=\"burn-in\" data-rounds=\"" << b.rounds << "\">\n<h2>Burn-in over "
      << count_text(b.rounds, "round") << "</h2>\n<p>" << count_text(b.entities.size(), "entity", "entities")
      << " judged; " << flagged.size() << " not healthy over the run";
  if (!b.first_round_started.empty())
    out << " (" << html_escape(b.first_round_started) << " to " << html_escape(b.last_round_finished) << ")";
  out << ". Rounds an entity was not healthy in are shaded and their points drawn as outlined diamonds.</p>\n";
  for (std::size_t i = 0; i < flagged.size() && i < kChartedEntities; ++i)
    write_entity(*flagged[i].first, flagged[i].second, b.rounds, out);
  if (flagged.size() > kChartedEntities)
    out << "<p class=\"more\">" << flagged.size() - kChartedEntities
        << " more entities not healthy are in the JSON report.</p>\n";
  out << "</section>\n";
}

}  // namespace ibgpu
