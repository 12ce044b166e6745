#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "health/thresholds.h"
#include "probes/stats.h"
#include "reports/render_util.h"
#include "reports/text_table.h"

namespace ibgpu {

using nlohmann::json;

namespace {

std::string entity_text(const Entity& e) { return e.kind + " " + e.id; }

std::string reasons_text(const Verdict& v) {
  std::vector<std::string> parts;
  for (const auto& r : v.reasons) parts.push_back(r.code + (r.message.empty() ? "" : ": " + r.message));
  return join(parts, "; ");
}

// Every size counts: two runs may have measured at sizes a profile ignores.
Profile every_size() {
  Profile p = generic_profile();
  p.network.bw_min_size_B = 0;
  p.allreduce.min_size_B = 0;
  return p;
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
  const Profile profile = every_size();  // outlives the measurements, which point into it
  for (const auto& m : extract_measurements(r.probes, profile)) {
    auto k = std::make_pair(subject(*m.probe), std::string(m.kind));
    auto [it, fresh] = out.values.try_emplace(k);
    if (fresh) out.order.push_back(k);
    it->second.push_back(m.value);
  }
  return out;
}

double median(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

const char* to_string(Change::Kind kind) {
  switch (kind) {
    case Change::Kind::state:
      return "state";
    case Change::Kind::appeared:
      return "new";
    case Change::Kind::vanished:
      return "vanished";
    case Change::Kind::metric:
      return "metric";
  }
  return "?";
}

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
    const double x = median(it->second), y = median(b.values.at(k));
    const std::optional<double> rel = x != 0 ? std::optional<double>((y - x) / std::fabs(x)) : std::nullopt;
    const bool changed = rel ? std::fabs(*rel) > threshold : y != 0;
    if (!changed) continue;
    c.changes.push_back(Change{Change::Kind::metric, k.first, k.second, format_number(x), format_number(y), x, y, rel});
  }
  return c;
}

void print_comparison(const Comparison& c, std::ostream& out) {
  out << "Changes from run " << c.old_run << " to run " << c.new_run << " (metrics beyond "
      << format_value(c.threshold * 100) << "%)\n";
  if (c.changes.empty()) {
    out << "  no change\n";
    return;
  }
  TextTable table({{"change"},
                   {"entity"},
                   {"old", TextTable::Align::right},
                   {"new", TextTable::Align::right},
                   {"delta", TextTable::Align::right},
                   {"detail"}});
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& ch : c.changes) {
    ++counts[static_cast<int>(ch.kind)];
    std::string delta;
    if (ch.kind == Change::Kind::metric) delta = ch.relative ? format_value(*ch.relative * 100) + "%" : "from 0";
    table.add_row({to_string(ch.kind), ch.entity, ch.old_text, ch.new_text, delta, ch.what.empty() ? "-" : ch.what});
  }
  table.print(out, "  ");
  out << c.changes.size() << (c.changes.size() == 1 ? " change" : " changes") << ": " << counts[0] << " state, "
      << counts[1] << " new, " << counts[2] << " vanished, " << counts[3] << " metric\n";
}

json to_json(const Comparison& c) {
  json changes = json::array();
  for (const auto& ch : c.changes) {
    json j{{"change", to_string(ch.kind)}, {"entity", ch.entity}};
    if (ch.kind == Change::Kind::metric) {
      j["kind"] = ch.what;
      j["old"] = ch.old_value ? json(*ch.old_value) : json(nullptr);
      j["new"] = ch.new_value ? json(*ch.new_value) : json(nullptr);
      j["relative_change"] = ch.relative ? json(*ch.relative) : json(nullptr);
    } else {
      j["old"] = ch.old_text == "-" ? json(nullptr) : json(ch.old_text);
      j["new"] = ch.new_text == "-" ? json(nullptr) : json(ch.new_text);
      j["reasons"] = ch.what;
    }
    changes.push_back(std::move(j));
  }
  return json{{"old_run", c.old_run},
              {"new_run", c.new_run},
              {"threshold", c.threshold},
              {"changed", !c.changes.empty()},
              {"changes", changes}};
}

}  // namespace ibgpu
