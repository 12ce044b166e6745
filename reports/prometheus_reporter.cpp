// Prometheus text exposition (format 0.0.4) for node_exporter's textfile
// collector. Every number is a gauge: a run is a snapshot, not a counter.
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/result.h"
#include "reports/render_util.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Metric and label names: [a-zA-Z_:][a-zA-Z0-9_:]*; anything else becomes '_'.
std::string metric_name(const std::string& text) {
  std::string name;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
    name += ok ? c : '_';
  }
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) name.insert(name.begin(), '_');
  return name;
}

std::string label_value(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string help_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return shortest_number(v);
}

// The text between a sample's braces: name="value" pairs, comma-separated.
std::string label_text(const Labels& labels) {
  std::string text;
  for (const auto& [name, v] : labels) {
    if (!text.empty()) text += ',';
    text += metric_name(name) + "=\"" + label_value(v) + '"';
  }
  return text;
}

// Families keep the order of their first sample; a series written twice (a
// re-tested pair) keeps its last value, since the exposition allows each once.
class Exposition {
 public:
  void add(const std::string& family, const std::string& help, const Labels& labels, double value) {
    add_rendered(family, help, label_text(labels), value);
  }

  // `labels`: the text between the braces, as label_text() renders it.
  void add_rendered(const std::string& family, const std::string& help, const std::string& labels, double value) {
    auto [it, fresh] = index_.try_emplace(family, families_.size());
    if (fresh) families_.push_back(Family{family, help, {}, {}});
    Family& f = families_[it->second];
    auto [series, new_series] = f.index.try_emplace(labels, f.samples.size());
    if (new_series)
      f.samples.emplace_back(labels, value);  // a copy: the built text carries spare capacity
    else
      f.samples[series->second].second = value;
  }

  void add_help(const std::string& family, const std::string& help) {
    if (auto it = index_.find(family); it != index_.end()) families_[it->second].help = help;
  }

  void write(std::ostream& out) const {
    for (const auto& f : families_) {
      out << "# HELP " << f.name << ' ' << help_text(f.help) << '\n' << "# TYPE " << f.name << " gauge\n";
      for (const auto& [labels, value] : f.samples) {
        out << f.name;
        if (!labels.empty()) out << '{' << labels << '}';
        out << ' ' << sample_value(value) << '\n';
      }
    }
  }

 private:
  struct Family {
    std::string name, help;
    std::vector<std::pair<std::string, double>> samples;
    std::map<std::string, std::size_t> index;
  };
  std::vector<Family> families_;
  std::map<std::string, std::size_t> index_;
};

// What a probe's numbers describe, as a family prefix and the labels naming it.
std::pair<std::string, Labels> subject(const ProbeResult& p) {
  const auto& hosts = p.scope.hosts;
  const auto& devices = p.scope.devices;
  Labels labels{{"probe", p.id}};
  std::string prefix;
  if (is_pair_probe(p)) {
    prefix = "link";
    labels.insert(labels.end(), {{"a", hosts[0]}, {"b", hosts[1]}});
    if (!devices.empty())
      labels.emplace_back("rail", devices.size() == 2 && devices[0] == devices[1] ? devices[0] : join(devices, ","));
  } else if (is_allreduce_probe(p)) {
    prefix = "allreduce";
    labels.emplace_back("hosts", join(hosts, ","));
    if (!devices.empty()) labels.emplace_back("devices", join(devices, ","));
  } else if (p.kind().subject == ProbeSubject::gpu && hosts.size() == 1 && devices.size() == 1) {
    prefix = "gpu";
    labels.insert(labels.end(), {{"host", hosts[0]}, {"gpu", gpu_name(devices[0])}});
  } else if (p.kind().subject == ProbeSubject::hca_port && hosts.size() == 1 && devices.size() == 1) {
    prefix = "port";
    labels.insert(labels.end(), {{"host", hosts[0]}, {"port", devices[0]}});
  } else {
    prefix = "node";
    labels.emplace_back("host", join(hosts, ","));
    if (!devices.empty()) labels.emplace_back("devices", join(devices, ","));
  }
  if (p.scope.ranks.size() > 1 && prefix == "link")
    labels.emplace_back("ranks", std::to_string(p.scope.ranks[0]) + "," + std::to_string(p.scope.ranks[1]));
  // The parameters that tell one measurement of a probe from another.
  for (const char* key : {"size_B", "direction", "in_place", "placement", "group"}) {
    auto it = p.params.find(key);
    if (it == p.params.end() || it->is_null()) continue;
    labels.emplace_back(key, it->is_string() ? it->get<std::string>() : it->dump());
  }
  return {"ibgpu_" + prefix + "_", labels};
}

void add_probe_metrics(Exposition& x, const ProbeResult& p, std::map<std::string, std::set<std::string>>& sources) {
  const auto [prefix, labels] = subject(p);
  const std::string text = label_text(labels);  // the same for each of the probe's samples
  for (const auto& [key, metric] : p.metrics) {
    const std::string family = metric_name(prefix + key);
    if (metric.value) {
      x.add_rendered(family, "", text, *metric.value);
    } else if (metric.summary) {
      const Stats& s = *metric.summary;
      for (const auto& [stat, v] : {std::pair{"min", s.min},
                                    {"p50", s.p50},
                                    {"p90", s.p90},
                                    {"p99", s.p99},
                                    {"p999", s.p999},
                                    {"max", s.max},
                                    {"mean", s.mean},
                                    {"stddev", s.stddev}})
        x.add_rendered(family, "", (text.empty() ? "" : text + ",") + label_text({{"stat", stat}}), v);
      x.add_rendered(family + "_samples", "", text, static_cast<double>(s.n));
      sources[family + "_samples"].insert(p.id);
    } else {
      continue;  // missing: no series rather than a made-up number
    }
    sources[family].insert(p.id);
  }
}

constexpr HealthState kStates[] = {HealthState::healthy, HealthState::degraded, HealthState::unknown,
                                   HealthState::failed};

}  // namespace

void PrometheusReporter::render(const Report& r, std::ostream& out) const {
  Exposition x;
  const std::string profile = r.run.profile.is_object() ? r.run.profile.value("name", std::string()) : std::string();
  x.add("ibgpu_run_info", "The run these metrics come from (always 1).",
        {{"run_id", r.run.id}, {"version", r.tool.version}, {"git", r.tool.git}, {"profile", profile}}, 1);
  x.add("ibgpu_run_exit_code",
        "Exit code of the run's admission: 0 all admitted healthy, 1 some admitted degraded, 2 some not admitted for a "
        "finding, 3 some not decided.",
        {}, r.summary.exit_code);
  for (HealthState s : kStates)
    x.add("ibgpu_run_state", "Overall state of the run: 1 for the state it is in, 0 for the others.",
          {{"state", to_string(s)}}, r.summary.state == s ? 1 : 0);
  if (auto t = unix_seconds(r.run.started))
    x.add("ibgpu_run_started_timestamp_seconds", "When the run started, in Unix seconds.", {}, static_cast<double>(*t));
  if (auto t = unix_seconds(r.run.finished))
    x.add("ibgpu_run_finished_timestamp_seconds", "When the run finished, in Unix seconds.", {},
          static_cast<double>(*t));
  x.add("ibgpu_run_ranks", "Ranks the run was launched with.", {}, r.run.ranks);

  for (const auto& v : r.verdicts)
    for (HealthState s : kStates)
      x.add("ibgpu_entity_state",
            "State of each judged entity (gpu, hca_port, link, node): 1 for the state it is in, 0 for the others.",
            {{"kind", v.entity.kind}, {"id", v.entity.id}, {"state", to_string(s)}}, v.state == s ? 1 : 0);
  for (const auto& v : r.verdicts)
    if (v.entity.kind == "node" && v.action)
      for (Action a : {Action::admit, Action::admit_degraded, Action::drain})
        x.add("ibgpu_node_action", "What the pool may do with each node: 1 for its action, 0 for the others.",
              {{"node", v.entity.id}, {"action", to_string(a)}}, *v.action == a ? 1 : 0);
  for (const auto& v : r.verdicts)
    x.add("ibgpu_entity_reasons", "Number of reasons behind each entity's state.",
          {{"kind", v.entity.kind}, {"id", v.entity.id}}, static_cast<double>(v.reasons.size()));

  std::map<std::string, std::set<std::string>> sources;  // family -> probe ids
  for (const auto& p : r.probes) add_probe_metrics(x, p, sources);
  for (const auto& [family, ids] : sources) {
    std::vector<std::string> names(ids.begin(), ids.end());
    x.add_help(family, "ibgpu measurement from " + join(names, ", ") + " (see the JSON report for its definition).");
  }
  x.write(out);
}

}  // namespace ibgpu
