#include "health/compare.h"

#include <cmath>
#include <map>
#include <unordered_map>

#include "core/statistics.h"
#include "core/text.h"
#include "health/thresholds.h"

namespace ibgpu {

namespace {

std::string reasons_text(const Verdict& v) {
  std::vector<std::string> parts;
  for (const auto& r : v.reasons)
    parts.push_back(std::string(to_string(r.code)) + (r.message.empty() ? "" : ": " + r.message));
  return join(parts, "; ");
}

std::string subject(const ProbeResult& p) {
  std::string text = join(p.scope.hosts, "<->");
  if (!p.scope.devices.empty()) text += " " + join(p.scope.devices, ",");
  return text;
}

// subject -> kind -> values, in first-seen order of subject and kind.
struct Values {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
};

Values measured(const Report& r) {
  Values out;
  // Every size counts (two runs may have measured at sizes a profile ignores); the profile
  // outlives the measurements, which point into it.
  const Profile profile = every_size_profile();
  for (const auto& m : extract_measurements(r.probes, profile)) {
    auto k = std::make_pair(subject(*m.probe), m.figure.text());
    auto [it, fresh] = out.values.try_emplace(k);
    if (fresh) out.order.push_back(k);
    it->second.push_back(m.value);
  }
  return out;
}

}  // namespace

Comparison compare_reports(const Report& old_run, const Report& new_run, double threshold) {
  Comparison c;
  c.old_run = old_run.run.id;
  c.new_run = new_run.run.id;
  c.threshold = threshold;

  std::unordered_map<std::string, const Verdict*> before, after;
  for (const auto& v : old_run.verdicts) before.emplace(entity_text(v.entity), &v);
  for (const auto& v : new_run.verdicts) after.emplace(entity_text(v.entity), &v);
  for (const auto& v : new_run.verdicts) {
    const std::string name = entity_text(v.entity);
    const auto it = before.find(name);
    if (it == before.end()) {
      c.changes.push_back(Change{Change::Kind::appeared, name, reasons_text(v), "-", to_string(v.state), {}, {}, {}});
    } else if (it->second->state != v.state) {
      c.changes.push_back(Change{
          Change::Kind::state, name, reasons_text(v), to_string(it->second->state), to_string(v.state), {}, {}, {}});
    }
  }
  for (const auto& v : old_run.verdicts)
    if (!after.count(entity_text(v.entity)))
      c.changes.push_back(
          Change{Change::Kind::vanished, entity_text(v.entity), "", to_string(v.state), "-", {}, {}, {}});

  const Values a = measured(old_run), b = measured(new_run);
  for (const auto& k : b.order) {
    const auto it = a.values.find(k);
    if (it == a.values.end()) continue;  // a measurement only one run made is not a change of a number
    const double x = *lower_median(it->second), y = *lower_median(b.values.at(k));
    const std::optional<double> rel = x != 0 ? std::optional<double>((y - x) / std::fabs(x)) : std::nullopt;
    const bool changed = rel ? std::fabs(*rel) > threshold : y != 0;
    if (!changed) continue;
    c.changes.push_back(Change{Change::Kind::metric, k.first, k.second, "", "", x, y, rel});
  }
  return c;
}

}  // namespace ibgpu
