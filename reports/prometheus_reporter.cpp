// Prometheus text exposition (format 0.0.4) for node_exporter's textfile collector and a
// Pushgateway. Every number is a gauge: a run is a snapshot, not a counter. Names and units
// follow Prometheus' own rules (`promtool check metrics` is clean; reports/prometheus_names.h).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/result.h"
#include "reports/prometheus_names.h"
#include "reports/render_util.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
}

// Metric and label names: [a-zA-Z_:][a-zA-Z0-9_:]*; anything else becomes '_'.
std::string metric_name(const std::string& text) {
  std::string name;
  for (char c : text) name += name_char(c) ? c : '_';
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) name.insert(name.begin(), '_');
  return name;
}

void append_label_value(std::string& out, std::string_view text) {
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

void append_sample_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
  } else {
    char text[64];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
    if (ec == std::errc())
      out.append(text, end);
    else
      out += shortest_number(v);  // its fallback; the same text when to_chars succeeds
  }
}

// Appends name="value" to the text between a sample's braces, comma-separated; `name` is a
// valid label name.
void add_label(std::string& text, std::string_view name, std::string_view value) {
  if (!text.empty()) text += ',';
  text += name;
  text += "=\"";
  append_label_value(text, value);
  text += '"';
}

std::string label_text(const Labels& labels) {
  std::string text;
  for (const auto& [name, v] : labels) add_label(text, metric_name(name), v);
  return text;
}

// Families keep the order of their first sample; a series written twice (a
// re-tested pair) keeps its last value, since the exposition allows each once.
// A sample's labels are two texts, each kept once however many samples share it:
// its subject's (a probe's or an entity's labels) and a last label that tells
// the subject's samples of one family apart (stat="p50", state="failed"), or none.
class Exposition {
 public:
  static constexpr std::uint32_t kNone = 0;  // the id of the empty text

  Exposition() { text_id(""); }

  // The id of a label text (as label_text() renders it), the same for the same text.
  std::uint32_t text_id(std::string text) {
    auto [it, fresh] = text_ids_.try_emplace(std::move(text), static_cast<std::uint32_t>(texts_.size()));
    if (fresh) {
      texts_.push_back(&it->first);  // a node of the map: it stays put
      asked_.push_back(0);
      owned_.push_back(false);
    }
    if (owned_[it->second]) throw std::logic_error("prometheus: a subject's own labels were asked for again");
    ++asked_[it->second];
    return it->second;
  }

  // Brackets the samples of one subject (a probe) named by `labels`. When text_id() gave that
  // text out once only, the subject's series can repeat only among its own samples: a fleet's
  // millions of samples then need no index over them all (at 4096 hosts that index cost seconds).
  // Every text must be asked for before a subject begins.
  void begin_subject(std::uint32_t labels) {
    own_ = asked_[labels] == 1 ? std::optional(labels) : std::nullopt;
    own_samples_.clear();
  }
  void end_subject() { own_.reset(); }

  std::size_t family(const std::string& name, const std::string& help = "") {
    auto [it, fresh] = family_ids_.try_emplace(name, families_.size());
    if (fresh) families_.push_back(Family{name, help, {}, {}});
    return it->second;
  }

  void add(std::size_t family, std::uint32_t labels, std::uint32_t last, double value) {
    Family& f = families_[family];
    if (own_ && labels == *own_) {
      owned_[labels] = true;
      for (const OwnSample& o : own_samples_)
        if (o.family == family && f.samples[o.sample].last == last) return void(f.samples[o.sample].value = value);
      own_samples_.push_back({family, f.samples.size()});
      f.samples.push_back({labels, last, value});
      return;
    }
    const std::uint64_t series = std::uint64_t{labels} << 32 | last;
    auto [it, fresh] = f.index.try_emplace(series, f.samples.size());
    if (fresh)
      f.samples.push_back({labels, last, value});
    else
      f.samples[it->second].value = value;
  }

  void add(const std::string& family_name, const std::string& help, const Labels& labels, double value) {
    add(family(family_name, help), text_id(label_text(labels)), kNone, value);
  }

  void write(std::ostream& out) const {
    std::string text;
    for (const auto& f : families_) {
      text += "# HELP " + f.name + ' ' + help_text(f.help) + "\n# TYPE " + f.name + " gauge\n";
      for (const Sample& s : f.samples) {
        text += f.name;
        const std::string& labels = *texts_[s.labels];
        const std::string& last = *texts_[s.last];
        if (!labels.empty() || !last.empty()) {
          text += '{';
          text += labels;
          if (!labels.empty() && !last.empty()) text += ',';
          text += last;
          text += '}';
        }
        text += ' ';
        append_sample_value(text, s.value);
        text += '\n';
        if (text.size() > (1 << 16)) {
          out.write(text.data(), static_cast<std::streamsize>(text.size()));
          text.clear();
        }
      }
    }
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }

 private:
  struct Sample {
    std::uint32_t labels, last;  // text ids
    double value;
  };
  struct Family {
    std::string name, help;
    std::vector<Sample> samples;
    std::unordered_map<std::uint64_t, std::size_t> index;  // labels and last -> samples[i], but a subject's own
  };
  struct OwnSample {
    std::size_t family, sample;
  };
  std::vector<Family> families_;
  std::map<std::string, std::size_t> family_ids_;
  std::vector<const std::string*> texts_;
  std::unordered_map<std::string, std::uint32_t> text_ids_;
  std::vector<std::uint32_t> asked_;  // by text id: how often text_id() gave it out
  std::vector<bool> owned_;           // by text id: a subject's own, with samples
  std::optional<std::uint32_t> own_;  // the labels of the subject begun, when its own
  std::vector<OwnSample> own_samples_;
};

// What a probe's numbers describe, as a family prefix and the text of the labels naming it. The
// labels name the entity and the measurement's parameters, so a series is the same from run to
// run: not the devices a node's listing or an all-reduce used (a GPU that drops would change the
// series instead of its value), and ranks only where nothing else tells two measurements of one
// run apart (pairs over MPI, which name no rail: one per rank pair of a host pair; an all-reduce
// result of one rank of its group). Those are the same from run to run while the launch layout is.
std::pair<std::string, std::string> subject(const ProbeResult& p) {
  const auto& hosts = p.scope.hosts;
  const auto& devices = p.scope.devices;
  std::string labels;
  add_label(labels, "probe", p.id);
  std::string prefix;
  if (is_pair_probe(p)) {
    prefix = "link";
    add_label(labels, "host", hosts[0]);
    add_label(labels, "peer", hosts[1]);
    if (!devices.empty()) add_label(labels, "port", devices[0]);
    if (devices.size() > 1) add_label(labels, "peer_port", devices[1]);
    if (devices.empty() && p.scope.ranks.size() == 2) {
      add_label(labels, "rank", std::to_string(p.scope.ranks[0]));
      add_label(labels, "peer_rank", std::to_string(p.scope.ranks[1]));
    }
  } else if (is_allreduce_probe(p)) {
    prefix = "allreduce";
    add_label(labels, "hosts", join(hosts, ","));
    if (p.scope.ranks.size() == 1) add_label(labels, "rank", std::to_string(p.scope.ranks[0]));
  } else if (p.kind().subject == ProbeSubject::gpu && hosts.size() == 1 && devices.size() == 1) {
    prefix = "gpu";
    add_label(labels, "host", hosts[0]);
    add_label(labels, "gpu", gpu_name(devices[0]));
  } else if (p.kind().subject == ProbeSubject::hca_port && hosts.size() == 1 && devices.size() == 1) {
    prefix = "port";
    add_label(labels, "host", hosts[0]);
    add_label(labels, "port", devices[0]);
  } else {
    prefix = "node";
    add_label(labels, "host", join(hosts, ","));
    // A node's result for one of its devices (the kernel log's, per GPU by PCI address and per
    // RDMA device), not a listing of them (inventory).
    if (p.kind().stage != ProbeStage::inventory && devices.size() == 1) add_label(labels, "device", devices[0]);
  }
  // The parameters that tell one measurement of a probe from another.
  for (const auto& [key, label] :
       {std::pair{"size_B", "size_bytes"}, std::pair{"direction", "direction"}, std::pair{"in_place", "in_place"},
        std::pair{"placement", "placement"}, std::pair{"group", "group"}}) {
    auto it = p.params.find(key);
    if (it == p.params.end() || it->is_null()) continue;
    add_label(labels, label, it->is_string() ? it->get_ref<const std::string&>() : it->dump());
  }
  return {"ibgpu_" + prefix + "_", std::move(labels)};
}

// The ids of the last label of each of a summary's samples, in the order they are written.
struct StatLabels {
  explicit StatLabels(Exposition& x) {
    for (std::size_t i = 0; i < std::size(kNames); ++i) ids[i] = x.text_id(label_text({{"stat", kNames[i]}}));
  }
  static constexpr const char* kNames[] = {"min", "p50", "p90", "p99", "p999", "max", "mean", "stddev"};
  std::uint32_t ids[std::size(kNames)] = {};
};

// `labels`: the id of the text of subject(p), the same for each of the probe's samples. A family's
// HELP is its row's (reports/prometheus_names.cpp), the same in every run.
void add_probe_metrics(Exposition& x, const StatLabels& stat_labels, const ProbeResult& p, const std::string& prefix,
                       std::uint32_t labels) {
  x.begin_subject(labels);
  for (const auto& [key, metric] : p.metrics) {
    const std::optional<ExposedMetric> exposed = exposed_metric(key);
    if (exposed && exposed->name.empty()) continue;  // the same figure exposed under another key
    const ExposedMetric as =
        exposed.value_or(ExposedMetric{key, 1, 1, "ibgpu measurement " + key + ", as recorded (see the JSON report)."});
    const std::string family = metric_name(prefix + as.name);
    if (metric.value) {
      x.add(x.family(family, as.help), labels, Exposition::kNone, as.of(*metric.value));
    } else if (metric.summary) {
      const Stats& s = *metric.summary;
      const double values[] = {s.min, s.p50, s.p90, s.p99, s.p999, s.max, s.mean, s.stddev};
      const std::size_t f = x.family(family, as.help + " The stat label says which statistic of the samples.");
      for (std::size_t i = 0; i < std::size(values); ++i) x.add(f, labels, stat_labels.ids[i], as.of(values[i]));
      x.add(x.family(family + "_samples", "Samples behind " + family + "."), labels, Exposition::kNone,
            static_cast<double>(s.n));
    }
    // missing: no series rather than a made-up number
  }
  x.end_subject();
}

// A burn-in's rounds, and what they said about each entity (the verdicts are the burn-in's own).
void add_burn_in(Exposition& x, const BurnInStats& b, const std::vector<Verdict>& verdicts) {
  x.add("ibgpu_burn_in_rounds", "Rounds the burn-in ran.", {}, b.rounds);
  std::map<Entity, const Verdict*> verdict_of;
  for (const auto& v : verdicts) verdict_of[v.entity] = &v;
  for (const auto& e : b.entities) {
    if (e.rounds_judged == 0) continue;  // only measured (a re-test pair's figures): nothing passed or failed
    const Labels entity{{"kind", to_string(e.entity.kind())}, {"id", e.entity.id()}};
    x.add("ibgpu_burn_in_rounds_judged", "Rounds of the burn-in with a verdict for the entity.", entity,
          e.rounds_judged);
    x.add("ibgpu_burn_in_rounds_not_passed", "Rounds of the burn-in the entity failed or was not checked in.", entity,
          static_cast<double>(e.not_passed_rounds.size()));
    x.add("ibgpu_burn_in_pass_ratio", "Rounds the entity passed (healthy or degraded) over the rounds judged.", entity,
          e.pass_ratio);
    const auto found = verdict_of.find(e.entity);
    const Verdict* verdict = found == verdict_of.end() ? nullptr : found->second;
    const auto has = [&](ReasonCode code) { return has_reason(verdict, code) ? 1.0 : 0.0; };
    x.add("ibgpu_burn_in_flaky", "1 when the entity was not healthy in some rounds only (BURN_IN_FLAKY).", entity,
          has(ReasonCode::BURN_IN_FLAKY));
    x.add("ibgpu_burn_in_seen_once", "1 when the entity's bandwidth dropped in one round only (BURN_IN_SEEN_ONCE).",
          entity, has(ReasonCode::BURN_IN_SEEN_ONCE));
    x.add("ibgpu_burn_in_drift", "1 when a figure of the entity got steadily worse over the rounds (BURN_IN_DRIFT).",
          entity, has(ReasonCode::BURN_IN_DRIFT));
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
  // Each GPU's identity, to join its series (host, gpu) with the board: `* on(host, gpu) group_left(uuid)`.
  for (const auto& h : r.hosts)
    for (const auto& g : h.gpus)
      x.add("ibgpu_gpu_info", "Each GPU of the inventory by host and index, with its UUID, serial and name (always 1).",
            {{"host", h.name},
             {"gpu", gpu_name(g.index)},
             {"uuid", g.uuid},
             {"serial", g.serial},
             {"name", g.name},
             {"pci_bus_id", g.pci_bus_id}},
            1);

  // An entity's labels are written four times over (a sample per state) and once more with its reasons.
  std::uint32_t state_labels[std::size(kStates)];
  for (std::size_t i = 0; i < std::size(kStates); ++i)
    state_labels[i] = x.text_id(label_text({{"state", to_string(kStates[i])}}));
  std::vector<std::uint32_t> entities;
  entities.reserve(r.verdicts.size());
  for (const auto& v : r.verdicts) {
    entities.push_back(x.text_id(label_text({{"kind", to_string(v.entity.kind())}, {"id", v.entity.id()}})));
    const std::size_t family = x.family(
        "ibgpu_entity_state",
        "State of each judged entity (gpu, hca_port, link, node): 1 for the state it is in, 0 for the others.");
    for (std::size_t i = 0; i < std::size(kStates); ++i)
      x.add(family, entities.back(), state_labels[i], v.state == kStates[i] ? 1 : 0);
  }
  for (const auto& v : r.verdicts)
    if (v.entity.kind() == EntityKind::node && v.action)
      for (Action a : {Action::admit, Action::admit_degraded, Action::drain})
        x.add("ibgpu_node_action", "What the pool may do with each node: 1 for its action, 0 for the others.",
              {{"node", v.entity.id()}, {"action", to_string(a)}}, *v.action == a ? 1 : 0);
  for (std::size_t i = 0; i < r.verdicts.size(); ++i)
    x.add(x.family("ibgpu_entity_reasons", "Number of reasons behind each entity's state."), entities[i],
          Exposition::kNone, static_cast<double>(r.verdicts[i].reasons.size()));
  // A series per reason code an entity has (1), for alerts on a code: `ibgpu_entity_reason{code="IB_PORT_DOWN"}`.
  for (const auto& v : r.verdicts) {
    std::set<ReasonCode, ReasonCodeByName> codes;
    for (const auto& reason : v.reasons) codes.insert(reason.code);
    for (ReasonCode code : codes)
      x.add("ibgpu_entity_reason", "1 for each reason code behind an entity's state (ibgpu explain CODE).",
            {{"kind", to_string(v.entity.kind())}, {"id", v.entity.id()}, {"code", std::string(to_string(code))}}, 1);
  }
  if (r.burn_in) add_burn_in(x, *r.burn_in, r.verdicts);

  const StatLabels stat_labels(x);
  std::vector<std::pair<std::string, std::uint32_t>> subjects;  // every text asked for before the samples
  subjects.reserve(r.probes.size());
  for (const auto& p : r.probes) {
    auto [prefix, text] = subject(p);
    subjects.emplace_back(std::move(prefix), x.text_id(std::move(text)));
  }
  for (std::size_t i = 0; i < r.probes.size(); ++i)
    add_probe_metrics(x, stat_labels, r.probes[i], subjects[i].first, subjects[i].second);
  x.write(out);
}

}  // namespace ibgpu
