#include "reports/json.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "core/bounded_input.h"
#include "core/inventory.h"
#include "reports/json_errors.h"

namespace ibgpu {

using nlohmann::json;

namespace {

template <class T>
json nullable(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
void read_nullable(const json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    out.reset();
  } else {
    out = it->get<T>();
  }
}

std::string get_string(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? std::string{} : it->get<std::string>();
}

json nullable_text(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// Reason codes are names in JSON: one this build does not know is an error, not a guess.
ReasonCode reason_code(const std::string& name) {
  const auto code = reason_code_from_string(name);
  if (!code) throw std::runtime_error("unknown reason code '" + name + "' (a report of a newer ibgpu?)");
  return *code;
}

Entity entity_from_json(const json& j) {
  const auto kind_text = j.at("kind").get<std::string>();
  const auto kind = entity_kind_from_string(kind_text);
  if (!kind) throw std::runtime_error("unknown entity kind '" + kind_text + "'");
  const auto id = j.at("id").get<std::string>();
  auto entity = Entity::from_text(*kind, id);
  if (!entity) throw std::runtime_error("entity id '" + id + "' does not name a " + kind_text);
  return std::move(*entity);
}

template <class T>
json by_name(const std::map<ReasonCode, T, ReasonCodeByName>& codes) {
  json out = json::object();
  for (const auto& [code, value] : codes) out[std::string(to_string(code))] = value;
  return out;
}

}  // namespace

void to_json(json& j, const Stats& s) {
  j = json{{"n", s.n},       {"min", s.min}, {"p50", s.p50},   {"p90", s.p90},      {"p99", s.p99},
           {"p999", s.p999}, {"max", s.max}, {"mean", s.mean}, {"stddev", s.stddev}};
}

void from_json(const json& j, Stats& s) {
  s.n = exact_integer<std::size_t>(j.at("n"), "n");
  for (auto [key, field] : {std::pair{"min", &s.min},
                            {"p50", &s.p50},
                            {"p90", &s.p90},
                            {"p99", &s.p99},
                            {"p999", &s.p999},
                            {"max", &s.max},
                            {"mean", &s.mean},
                            {"stddev", &s.stddev}})
    *field = j.at(key).get<double>();
}

void to_json(json& j, const Metric& m) {
  if (m.value) {
    j = *m.value;
  } else if (m.summary) {
    j = *m.summary;
  } else {
    j = nullptr;
  }
}

void to_json(json& j, const Metrics& m) {
  j = json::object();
  for (const auto& [name, metric] : m) j[name] = metric;
}

void from_json(const json& j, Metrics& m) {
  if (!j.is_object()) throw json::type_error::create(302, "metrics must be an object", &j);
  m.clear();
  m.reserve(j.size());
  for (const auto& [name, metric] : j.items()) m[name] = metric.get<Metric>();  // in name order: appended
}

void from_json(const json& j, Metric& m) {
  m = Metric{};
  if (j.is_number()) m.value = j.get<double>();
  if (j.is_object()) m.summary = j.get<Stats>();
}

void to_json(json& j, const Scope& s) { j = json{{"hosts", s.hosts}, {"ranks", s.ranks}, {"devices", s.devices}}; }

void from_json(const json& j, Scope& s) {
  s.hosts = j.value("hosts", std::vector<std::string>{});
  s.ranks = integers_or_empty<int>(j, "ranks");
  s.devices = j.value("devices", std::vector<std::string>{});
}

void to_json(json& j, const ProbeResult& p) {
  j = json{{"id", p.id},           {"status", to_string(p.status)}, {"scope", p.scope},          {"params", p.params},
           {"metrics", p.metrics}, {"reason", nullable(p.reason)},  {"error", nullable(p.error)}};
  if (p.status == ProbeStatus::skipped) j["skipped_by"] = to_string(p.skipped_by);
  if (!p.time.empty()) j["time"] = p.time;
}

void from_json(const json& j, ProbeResult& p) {
  p.id = j.at("id").get<std::string>();
  const auto status = probe_status_from_string(j.at("status").get<std::string>());
  if (!status) throw std::runtime_error("unknown probe status '" + j.at("status").get<std::string>() + "'");
  p.status = *status;
  p.scope = j.value("scope", Scope{});
  p.params = j.value("params", json::object());
  p.metrics = j.value("metrics", Metrics{});
  read_nullable(j, "reason", p.reason);
  read_nullable(j, "error", p.error);
  p.skipped_by = j.value("skipped_by", std::string()) == "ibgpu" ? SkippedBy::ibgpu : SkippedBy::node;
  p.time = get_string(j, "time");
}

void to_json(json& j, const GpuInfo& g) {
  j = json{{"index", g.index},
           {"name", g.name},
           {"uuid", g.uuid},
           {"pci_bus_id", g.pci_bus_id},
           {"memory_total_GiB", nullable(g.memory_total_GiB)}};
  if (!g.serial.empty()) j["serial"] = g.serial;  // absent where NVML gives none
}

void from_json(const json& j, GpuInfo& g) {
  g.index = exact_integer<int>(j.at("index"), "index");
  g.name = get_string(j, "name");
  g.uuid = get_string(j, "uuid");
  g.serial = get_string(j, "serial");
  g.pci_bus_id = get_string(j, "pci_bus_id");
  read_nullable(j, "memory_total_GiB", g.memory_total_GiB);
}

namespace {

json coded(const std::optional<CodedState>& s) {
  return s ? json{{"code", s->code}, {"name", s->name}} : json(nullptr);
}

std::optional<CodedState> read_coded(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return CodedState{exact_integer<int>(it->at("code"), "code"), it->at("name").get<std::string>()};
}

}  // namespace

void to_json(json& j, const IbPort& p) {
  j = json{{"port", p.port},
           {"state", coded(p.state)},
           {"phys_state", coded(p.phys_state)},
           {"rate", nullable_text(p.rate_text)},
           {"rate_Gbps", p.rate ? json(p.rate->gbps) : json(nullptr)},
           {"lanes", p.rate ? nullable(p.rate->lanes) : json(nullptr)},
           {"speed", p.rate ? nullable_text(p.rate->speed) : json(nullptr)},
           {"link_layer", nullable_text(p.link_layer)},
           {"lid", nullable(p.lid)},
           {"counters", p.counters}};
}

void from_json(const json& j, IbPort& p) {
  p.port = exact_integer<int>(j.at("port"), "port");
  p.state = read_coded(j, "state");
  p.phys_state = read_coded(j, "phys_state");
  p.rate_text = get_string(j, "rate");
  p.rate = parse_rate(p.rate_text);
  p.link_layer = get_string(j, "link_layer");
  read_nullable(j, "lid", p.lid);
  p.counters = integer_map_or_empty<std::uint64_t>(j, "counters");
}

void to_json(json& j, const PciLink& l) {
  j = json{{"speed_GTps", nullable(l.speed_GTps)},
           {"max_speed_GTps", nullable(l.max_speed_GTps)},
           {"width", nullable(l.width)},
           {"max_width", nullable(l.max_width)}};
}

void from_json(const json& j, PciLink& l) {
  read_nullable(j, "speed_GTps", l.speed_GTps);
  read_nullable(j, "max_speed_GTps", l.max_speed_GTps);
  read_nullable(j, "width", l.width);
  read_nullable(j, "max_width", l.max_width);
}

void to_json(json& j, const PciGpu& g) {
  j = json{{"pci_address", g.pci_address},
           {"device_id", nullable_text(g.device_id)},
           {"numa_node", nullable(g.numa_node)},
           {"pci_link", g.link}};
}

void from_json(const json& j, PciGpu& g) {
  g.pci_address = j.at("pci_address").get<std::string>();
  g.device_id = get_string(j, "device_id");
  read_nullable(j, "numa_node", g.numa_node);
  g.link = j.value("pci_link", PciLink{});
}

void to_json(json& j, const Hca& h) {
  j = json{{"name", h.name},
           {"node_guid", nullable_text(h.node_guid)},
           {"fw_ver", nullable_text(h.fw_ver)},
           {"board_id", nullable_text(h.board_id)},
           {"hca_type", nullable_text(h.hca_type)},
           {"pci_address", nullable_text(h.pci_address)},
           {"numa_node", nullable(h.numa_node)},
           {"pci_link", h.link},
           {"rail", h.rail},
           {"ports", h.ports}};
}

void from_json(const json& j, Hca& h) {
  h.name = j.at("name").get<std::string>();
  h.node_guid = get_string(j, "node_guid");
  h.fw_ver = get_string(j, "fw_ver");
  h.board_id = get_string(j, "board_id");
  h.hca_type = get_string(j, "hca_type");
  h.pci_address = get_string(j, "pci_address");
  read_nullable(j, "numa_node", h.numa_node);
  h.link = j.value("pci_link", PciLink{});
  h.rail = j.value("rail", true);
  h.ports = j.value("ports", std::vector<IbPort>{});
}

namespace {

json proximity_json(const std::optional<PciProximity>& p) { return p ? json(to_string(*p)) : json(nullptr); }

std::optional<PciProximity> read_proximity(const json& j) {
  auto p = j.find("proximity");
  if (p == j.end() || p->is_null()) return std::nullopt;
  return pci_proximity_from_string(p->get<std::string>());
}

}  // namespace

void to_json(json& j, const GpuHcaAffinity& a) {
  j = json{{"gpu", a.gpu},
           {"gpu_pci", nullable_text(a.gpu_pci)},
           {"gpu_numa_node", nullable(a.gpu_numa_node)},
           {"hca", nullable_text(a.hca)},
           {"hca_pci", nullable_text(a.hca_pci)},
           {"proximity", proximity_json(a.proximity)}};
}

void from_json(const json& j, GpuHcaAffinity& a) {
  a.gpu = exact_integer<int>(j.at("gpu"), "gpu");
  a.gpu_pci = get_string(j, "gpu_pci");
  read_nullable(j, "gpu_numa_node", a.gpu_numa_node);
  a.hca = get_string(j, "hca");
  a.hca_pci = get_string(j, "hca_pci");
  a.proximity = read_proximity(j);
}

void to_json(json& j, const RailAssignment& a) {
  j = json{{"local_rank", a.local_rank},
           {"gpu_pci", nullable_text(a.gpu_pci)},
           {"port", nullable_text(a.port)},
           {"proximity", proximity_json(a.proximity)},
           {"note", nullable_text(a.note)}};
}

void from_json(const json& j, RailAssignment& a) {
  a.local_rank = exact_integer<int>(j.at("local_rank"), "local_rank");
  a.gpu_pci = get_string(j, "gpu_pci");
  a.port = get_string(j, "port");
  a.proximity = read_proximity(j);
  a.note = get_string(j, "note");
}

void to_json(json& j, const HostInventory& h) {
  j = json{
      {"name", h.name},
      {"ranks", h.ranks},
      {"gpus", h.gpus},
      {"pci_gpus", h.pci_gpus},
      {"hcas", h.hcas},
      {"topology", h.topology},
      {"rails", h.rails},
      {"cpu",
       {{"model", nullable_text(h.cpu.model)}, {"logical_cpus", h.cpu.logical_cpus}, {"numa_nodes", h.cpu.numa_nodes}}},
      {"versions", h.versions},
      {"env", h.env},
      {"leaf", nullable_text(h.leaf)}};
  if (!h.cuda_visible_devices.empty()) {
    json visible = json::object();  // by rank, as text: JSON's keys are strings
    for (const auto& [rank, devices] : h.cuda_visible_devices) visible[std::to_string(rank)] = devices;
    j["cuda_visible_devices"] = std::move(visible);
  }
}

void from_json(const json& j, HostInventory& h) {
  h.name = j.at("name").get<std::string>();
  h.ranks = integers_or_empty<int>(j, "ranks");
  h.gpus = j.value("gpus", std::vector<GpuInfo>{});
  h.pci_gpus = j.value("pci_gpus", std::vector<PciGpu>{});
  h.hcas = j.value("hcas", std::vector<Hca>{});
  h.topology = j.value("topology", std::vector<GpuHcaAffinity>{});
  h.rails = j.value("rails", std::vector<RailAssignment>{});
  if (auto cpu = j.find("cpu"); cpu != j.end()) {
    h.cpu.model = get_string(*cpu, "model");
    h.cpu.logical_cpus = integer_or(*cpu, "logical_cpus", 0);
    h.cpu.numa_nodes = integer_or(*cpu, "numa_nodes", 0);
  }
  h.versions = j.value("versions", std::map<std::string, std::string>{});
  h.env = j.value("env", std::map<std::string, std::string>{});
  h.leaf = get_string(j, "leaf");
  h.cuda_visible_devices.clear();
  for (const auto& [rank, devices] : j.value("cuda_visible_devices", std::map<std::string, std::string>{})) {
    int r = -1;
    const auto [end, error] = std::from_chars(rank.data(), rank.data() + rank.size(), r);
    if (error != std::errc() || end != rank.data() + rank.size() || r < 0)
      throw std::runtime_error("cuda_visible_devices: '" + rank + "' is not a rank");
    h.cuda_visible_devices[r] = devices;
  }
}

namespace {

// A finding's confidence (health/confidence.h); a combination has no sigmas of its own.
json confidence_json(const Confidence& c) {
  json j{{"level", to_string(c.level)}, {"method", to_string(c.method)}, {"p", c.p}, {"count", c.count}};
  if (c.method != ConfidenceMethod::combined) {
    j["sigmas"] = c.sigmas;
    j["noise"] = c.noise;
  }
  return j;
}

std::optional<Confidence> confidence_from_json(const json& reason) {
  const auto found = reason.find("confidence");
  if (found == reason.end() || !found->is_object()) return std::nullopt;
  const json& j = *found;
  const auto level = confidence_level_from_string(j.value("level", std::string()));
  const auto method = confidence_method_from_string(j.value("method", std::string()));
  if (!level || !method) throw std::runtime_error("unreadable reason confidence");
  Confidence c;
  c.level = *level;
  c.method = *method;
  c.p = j.value("p", 1.0);
  c.count = j.value("count", 0);
  c.sigmas = j.value("sigmas", 0.0);
  c.noise = j.value("noise", 0.0);
  return c;
}

}  // namespace

void to_json(json& j, const Verdict& v) {
  json reasons = json::array();
  for (const auto& r : v.reasons) {
    json reason{{"code", to_string(r.code)},          {"message", r.message},
                {"metric", nullable_text(r.metric)},  {"value", nullable(r.value)},
                {"threshold", nullable(r.threshold)}, {"evidence", to_string(r.evidence)}};
    // The result it cites, where one: absent otherwise (older reports have none).
    for (const auto& [name, text] : {std::pair{"probe", &r.probe}, {"port", &r.port}, {"peer_port", &r.peer_port}})
      if (!text->empty()) reason[name] = *text;
    if (r.size_B) reason["size_B"] = *r.size_B;
    if (r.confidence) reason["confidence"] = confidence_json(*r.confidence);
    reasons.push_back(std::move(reason));
  }
  j = json{{"entity", {{"kind", to_string(v.entity.kind())}, {"id", v.entity.id()}}},
           {"state", to_string(v.state)},
           {"reasons", reasons},
           {"action", v.action ? json(to_string(*v.action)) : json(nullptr)}};
  // Nodes list the GPUs and rails admission may use and those it excluded.
  if (v.entity.kind() == EntityKind::node) {
    j["usable"] = v.usable;
    j["excluded"] = v.excluded;
  }
}

void from_json(const json& j, Verdict& v) {
  v.entity = entity_from_json(j.at("entity"));
  const auto state = health_state_from_string(j.at("state").get<std::string>());
  if (!state) throw std::runtime_error("unknown verdict state '" + j.at("state").get<std::string>() + "'");
  v.state = *state;
  v.reasons.clear();
  for (const auto& r : j.value("reasons", json::array())) {
    Reason reason;
    reason.code = reason_code(r.at("code").get<std::string>());
    reason.message = get_string(r, "message");
    reason.metric = get_string(r, "metric");
    read_nullable(r, "value", reason.value);
    read_nullable(r, "threshold", reason.threshold);
    reason.evidence = evidence_from_string(r.value("evidence", std::string())).value_or(Evidence::finding);
    reason.probe = get_string(r, "probe");
    reason.port = get_string(r, "port");
    reason.peer_port = get_string(r, "peer_port");
    if (const auto size = r.find("size_B"); size != r.end() && size->is_number_unsigned())
      reason.size_B = size->get<std::uint64_t>();
    reason.confidence = confidence_from_json(r);
    v.reasons.push_back(std::move(reason));
  }
  v.action.reset();
  if (auto a = j.find("action"); a != j.end() && !a->is_null()) v.action = action_from_string(a->get<std::string>());
  v.usable = j.value("usable", std::vector<std::string>{});
  v.excluded = j.value("excluded", std::vector<std::string>{});
}

namespace {

json kubernetes_json(const std::map<std::string, KubernetesNode>& nodes) {
  json out = json::object();
  for (const auto& [name, k] : nodes) {
    json taints = json::array();
    for (const auto& t : k.taints) taints.push_back(json{{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
    out[name] = json{{"labels", k.labels}, {"annotations", k.annotations}, {"taints", taints}};
  }
  return out;
}

std::map<std::string, KubernetesNode> kubernetes_from_json(const json& j) {
  std::map<std::string, KubernetesNode> out;
  for (const auto& [name, node] : j.items()) {
    KubernetesNode k;
    k.labels = node.value("labels", std::map<std::string, std::string>{});
    k.annotations = node.value("annotations", std::map<std::string, std::string>{});
    for (const auto& t : node.value("taints", json::array()))
      k.taints.push_back({t.at("key").get<std::string>(), get_string(t, "value"), t.at("effect").get<std::string>()});
    out.emplace(name, std::move(k));
  }
  return out;
}

}  // namespace

void to_json(json& j, const RunSummary& s) {
  j = json{{"state", to_string(s.state)},
           {"admit", s.admit},
           {"admit_degraded", s.admit_degraded},
           {"drain", s.drain},
           {"exit_code", s.exit_code}};
  // Absent, not empty, when there is no node to map (and in reports of older builds).
  if (!s.kubernetes.empty()) j["kubernetes"] = kubernetes_json(s.kubernetes);
}

void from_json(const json& j, RunSummary& s) {
  s.state = health_state_from_string(j.at("state").get<std::string>()).value_or(HealthState::unknown);
  s.admit = j.value("admit", std::vector<std::string>{});
  s.admit_degraded = j.value("admit_degraded", std::vector<std::string>{});
  s.drain = j.value("drain", std::vector<std::string>{});
  s.exit_code = exact_integer<int>(j.at("exit_code"), "exit_code");
  s.kubernetes = kubernetes_from_json(j.value("kubernetes", json::object()));
}

void to_json(json& j, const BurnInFigure& f) {
  json series = json::array();
  for (const auto& p : f.series) series.push_back(json{{"round", p.round}, {"value", p.value}});
  j = json{{"figure", f.figure},
           {"metric", f.metric},
           {"rails", nullable_text(f.rails)},
           {"sense", f.higher_is_better ? "floor" : "ceiling"},
           {"worst", f.worst},
           {"median", f.median},
           {"count", f.count},
           {"series", series}};
}

void from_json(const json& j, BurnInFigure& f) {
  f.figure = j.at("figure").get<std::string>();
  f.metric = get_string(j, "metric");
  f.rails = get_string(j, "rails");
  const std::string sense = j.at("sense").get<std::string>();
  if (sense != "floor" && sense != "ceiling") throw std::runtime_error("unknown figure sense '" + sense + "'");
  f.higher_is_better = sense == "floor";
  f.worst = j.at("worst").get<double>();
  f.median = j.at("median").get<double>();
  f.count = exact_integer<std::size_t>(j.at("count"), "count");
  for (const json& p : j.value("series", json::array()))
    f.series.push_back({exact_integer<int>(p.at("round"), "round"), p.at("value").get<double>()});
}

void to_json(json& j, const BurnInEntity& e) {
  j = json{{"entity", {{"kind", to_string(e.entity.kind())}, {"id", e.entity.id()}}},
           {"rounds_judged", e.rounds_judged},
           {"states", {{"healthy", e.healthy}, {"degraded", e.degraded}, {"failed", e.failed}, {"unknown", e.unknown}}},
           {"pass_ratio", e.rounds_judged ? json(e.pass_ratio) : json(nullptr)},
           {"first_not_healthy_round", nullable(e.first_not_healthy_round)},
           {"last_not_healthy_round", nullable(e.last_not_healthy_round)},
           {"not_passed_rounds", e.not_passed_rounds},
           {"reasons", by_name(e.reasons)},
           {"reason_rounds", by_name(e.reason_rounds)},
           {"figures", e.figures},
           {"counter_deltas", e.counter_deltas},
           {"counter_resets", e.counter_resets}};
  if (e.burn_in_class) j["class"] = to_string(*e.burn_in_class);
}

void from_json(const json& j, BurnInEntity& e) {
  e.entity = entity_from_json(j.at("entity"));
  e.rounds_judged = exact_integer<int>(j.at("rounds_judged"), "rounds_judged");
  const json& states = j.at("states");
  e.healthy = exact_integer<int>(states.at("healthy"), "healthy");
  e.degraded = exact_integer<int>(states.at("degraded"), "degraded");
  e.failed = exact_integer<int>(states.at("failed"), "failed");
  e.unknown = exact_integer<int>(states.at("unknown"), "unknown");
  std::optional<double> ratio;
  read_nullable(j, "pass_ratio", ratio);
  e.pass_ratio = ratio.value_or(0.0);
  read_nullable(j, "first_not_healthy_round", e.first_not_healthy_round);
  read_nullable(j, "last_not_healthy_round", e.last_not_healthy_round);
  e.not_passed_rounds = integers_or_empty<int>(j, "not_passed_rounds");
  for (const auto& [name, n] : integer_map_or_empty<int>(j, "reasons")) e.reasons[reason_code(name)] = n;
  for (const auto& [name, in] : j.value("reason_rounds", std::map<std::string, std::vector<int>>{}))
    e.reason_rounds[reason_code(name)] = in;
  e.figures = j.value("figures", std::vector<BurnInFigure>{});
  e.counter_deltas = j.value("counter_deltas", std::map<std::string, double>{});
  e.counter_resets = integer_map_or_empty<int>(j, "counter_resets");
  if (const auto c = j.find("class"); c != j.end()) {
    e.burn_in_class = burn_in_class_from_string(c->get<std::string>());
    if (!e.burn_in_class) throw std::runtime_error("unknown burn-in class '" + c->get<std::string>() + "'");
  }
}

void to_json(json& j, const BurnInStats& s) {
  j = json{{"rounds", s.rounds},
           {"duration_s", nullable(s.duration_s)},
           {"interval_s", nullable(s.interval_s)},
           {"first_round_started", nullable_text(s.first_round_started)},
           {"last_round_finished", nullable_text(s.last_round_finished)},
           {"entities", s.entities}};
}

void from_json(const json& j, BurnInStats& s) {
  s.rounds = exact_integer<int>(j.at("rounds"), "rounds");
  read_nullable(j, "duration_s", s.duration_s);
  read_nullable(j, "interval_s", s.interval_s);
  s.first_round_started = get_string(j, "first_round_started");
  s.last_round_finished = get_string(j, "last_round_finished");
  s.entities = j.value("entities", std::vector<BurnInEntity>{});
}

void to_json(json& j, const WorkOrder& o) {
  json entities = json::array();
  for (const Entity& e : o.entities) entities.push_back(json{{"kind", to_string(e.kind())}, {"id", e.id()}});
  j = json{{"cable", o.cable.empty() ? json(nullptr) : json(o.cable)},
           {"port", o.port},
           {"state", to_string(o.state)},
           {"entities", entities},
           {"shortfall", o.shortfall},
           {"counters", o.counters},
           {"unread", o.unread},
           {"next", o.next}};
}

void from_json(const json& j, WorkOrder& o) {
  o.cable = j.at("cable").is_null() ? std::string() : j.at("cable").get<std::string>();
  o.port = get_string(j, "port");
  const auto state = health_state_from_string(j.at("state").get<std::string>());
  if (!state) throw std::runtime_error("unknown work order state '" + j.at("state").get<std::string>() + "'");
  o.state = *state;
  o.entities.clear();
  for (const json& e : j.value("entities", json::array())) o.entities.push_back(entity_from_json(e));
  o.shortfall = get_string(j, "shortfall");
  o.counters = j.value("counters", std::map<std::string, double>{});
  o.unread = j.value("unread", std::vector<std::string>{});
  o.next = get_string(j, "next");
}

void to_json(json& j, const Report& r) {
  j = json{{"schema_version", r.schema_version},
           {"tool", {{"name", r.tool.name}, {"version", r.tool.version}, {"git", r.tool.git}}},
           {"run",
            {{"id", r.run.id},
             {"started", r.run.started},
             {"finished", r.run.finished},
             {"command", r.run.command},
             {"profile", r.run.profile},
             {"budget_s", nullable(r.run.budget_s)},
             {"ranks", r.run.ranks},
             {"scope", to_string(r.run.scope)},
             {"notes", r.run.notes}}},
           {"hosts", r.hosts},
           {"probes", r.probes},
           {"verdicts", r.verdicts},
           {"summary", r.summary}};
  if (!r.run.parent.empty()) j["run"]["parent"] = r.run.parent;
  if (!r.run.launch.empty()) j["run"]["launch"] = r.run.launch;
  if (r.run.interrupted) j["run"]["interrupted"] = true;  // absent otherwise: the usual shape
  if (r.run.actions != AdmissionActions::none) j["run"]["admission_actions"] = to_string(r.run.actions);  // likewise
  // Only burn-in reports have the section: a check's report keeps its shape.
  if (r.burn_in) j["burn_in"] = *r.burn_in;
  if (!r.work_orders.empty()) j["work_orders"] = r.work_orders;  // check --cabling only
}

void from_json(const json& j, Report& r) {
  r.schema_version = exact_integer<int>(j.at("schema_version"), "schema_version");
  const json& tool = j.at("tool");
  r.tool = ToolInfo{tool.at("name").get<std::string>(), get_string(tool, "version"), get_string(tool, "git")};
  const json& run = j.at("run");
  r.run.id = get_string(run, "id");
  r.run.started = get_string(run, "started");
  r.run.finished = get_string(run, "finished");
  r.run.command = run.value("command", std::vector<std::string>{});
  r.run.profile = run.value("profile", json::object());
  read_nullable(run, "budget_s", r.run.budget_s);
  r.run.ranks = integer_or(run, "ranks", 1);
  r.run.scope = RunScope::fleet;  // reports from before one-host checks were judged as such
  if (auto s = run.find("scope"); s != run.end()) {
    const auto scope = s->is_string() ? run_scope_from_string(s->get<std::string>()) : std::nullopt;
    if (!scope) throw std::runtime_error("run.scope: expected \"fleet\" or \"node\", got " + s->dump());
    r.run.scope = *scope;
  }
  r.run.notes = run.value("notes", std::vector<std::string>{});
  r.run.parent = get_string(run, "parent");
  r.run.launch = run.value("launch", std::map<std::string, std::string>{});
  r.run.interrupted = run.value("interrupted", false);
  r.run.actions = AdmissionActions::none;  // absent: none was asked for
  if (auto a = run.find("admission_actions"); a != run.end()) {
    const auto actions = a->is_string() ? admission_actions_from_string(a->get<std::string>()) : std::nullopt;
    if (!actions || *actions == AdmissionActions::none)
      throw std::runtime_error("run.admission_actions: expected \"run\" or \"dry_run\", got " + a->dump());
    r.run.actions = *actions;
  }
  r.hosts = j.value("hosts", std::vector<HostInventory>{});
  r.probes = j.value("probes", std::vector<ProbeResult>{});
  r.verdicts = j.value("verdicts", std::vector<Verdict>{});
  r.summary = j.at("summary").get<RunSummary>();
  r.work_orders = j.value("work_orders", std::vector<WorkOrder>{});
  r.burn_in.reset();
  if (auto b = j.find("burn_in"); b != j.end() && !b->is_null()) r.burn_in = b->get<BurnInStats>();
  if (r.burn_in) {  // written before the burn-in named its classes: as its verdicts' codes say
    std::map<Entity, const Verdict*> verdict_of;
    for (const Verdict& v : r.verdicts) verdict_of.emplace(v.entity, &v);
    for (BurnInEntity& e : r.burn_in->entities)
      if (!e.burn_in_class) {
        const auto v = verdict_of.find(e.entity);
        e.burn_in_class = burn_in_class(e, v == verdict_of.end() ? nullptr : v->second);
      }
  }
}

Report report_from_json(const json& j) {
  if (!j.is_object() || !j.contains("schema_version"))
    throw std::runtime_error("not an ibgpu report: no schema_version");
  const int version = exact_integer<int>(j.at("schema_version"), "schema_version");
  if (version > kSchemaVersion)
    throw std::runtime_error("report has schema_version " + std::to_string(version) + ", this ibgpu reads up to " +
                             std::to_string(kSchemaVersion) + ": upgrade ibgpu to read it");
  return decode_report(j);  // errors name the place and what was expected
}

json read_json_file(const std::string& path) { return parse_json_text(read_bounded_file(path, kReportMaxBytes), path); }

json parse_json_text(const std::string& text, const std::string& origin) {
  if (text.size() > kReportMaxBytes) throw InputError(origin + ": larger than a report can be");
  check_json_depth(text, kJsonMaxDepth, origin);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number such as 1e400
    throw InputError(origin + ": not JSON: " + describe_parse_error(e.what()));
  }
}

}  // namespace ibgpu
