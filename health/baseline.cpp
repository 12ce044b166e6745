#include "health/baseline.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/bounded_input.h"
#include "core/statistics.h"
#include "health/thresholds.h"

namespace ibgpu {

using nlohmann::json;

namespace {

// The entity the judge files a measurement under (measured_entity),
// then the nodes, ports and GPUs it touched.
std::vector<Entity> touched(const ProbeResult& p) {
  const auto& hosts = p.scope.hosts;
  const auto& devices = p.scope.devices;
  std::vector<Entity> out;
  if (!hosts.empty()) out.push_back(measured_entity(p));
  for (const auto& h : hosts) out.push_back(Entity::node(h));
  if (is_pair_probe(p) && devices.size() == 2)
    for (std::size_t side = 0; side < 2; ++side) out.push_back(Entity::port(hosts[side], devices[side]));
  return out;
}

}  // namespace

std::unordered_map<std::string, double> Baseline::medians() const {
  std::unordered_map<std::string, double> out;
  for (const auto& [kind, k] : kinds) out.emplace(kind, k.median);
  return out;
}

Baseline build_baseline(const std::vector<Report>& runs) {
  const Profile profile = every_size_profile();
  std::map<std::string, std::vector<double>> values;
  Baseline b;
  for (const auto& run : runs) {
    b.runs.push_back(BaselineRun{run.run.id, run.run.started});
    std::map<Entity, HealthState> states;
    for (const auto& v : run.verdicts) states.emplace(v.entity, v.state);
    for (const auto& m : extract_measurements(run.probes, profile)) {
      const auto entities = touched(*m.probe);
      if (entities.empty()) continue;
      const auto own = states.find(entities[0]);
      bool healthy = own != states.end() && own->second == HealthState::healthy;
      for (std::size_t i = 1; healthy && i < entities.size(); ++i) {
        const auto it = states.find(entities[i]);
        healthy = it == states.end() || it->second == HealthState::healthy;
      }
      if (healthy) values[m.figure.text()].push_back(m.value);
    }
  }
  for (auto& [kind, v] : values) {
    const std::size_t n = v.size();
    b.kinds[kind] = BaselineKind{*lower_median(std::move(v)), n};
  }
  return b;
}

json to_json(const Baseline& b) {
  json runs = json::array();
  for (const auto& r : b.runs) runs.push_back({{"id", r.id}, {"started", r.started}});
  json kinds = json::object();
  for (const auto& [kind, k] : b.kinds) kinds[kind] = {{"median", k.median}, {"n", k.n}};
  return json{{"baseline_version", b.baseline_version}, {"runs", runs}, {"kinds", kinds}};
}

Baseline baseline_from_json(const json& j) {
  if (!j.is_object() || !j.contains("baseline_version"))
    throw std::runtime_error("not an ibgpu baseline: no baseline_version");
  const int version = exact_integer<int>(j.at("baseline_version"), "baseline_version");
  if (version > kBaselineVersion)
    throw std::runtime_error("baseline has baseline_version " + std::to_string(version) + ", this ibgpu reads up to " +
                             std::to_string(kBaselineVersion) + ": upgrade ibgpu to read it");
  Baseline b;
  b.baseline_version = version;
  for (const auto& r : j.at("runs"))
    b.runs.push_back(BaselineRun{r.at("id").get<std::string>(), r.value("started", "")});
  for (const auto& [kind, k] : j.at("kinds").items()) {
    const double median = k.at("median").get<double>();
    const auto n = exact_integer<std::size_t>(k.at("n"), "n");
    if (n == 0) throw std::runtime_error("baseline kind '" + kind + "' has no values behind its median");
    b.kinds[kind] = BaselineKind{median, n};
  }
  return b;
}

}  // namespace ibgpu
