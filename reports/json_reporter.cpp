#include "reports/json.h"
#include "reports/json_writer.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

using nlohmann::json;

// The long arrays of a fleet's report, written field by field in the order
// and form of to_json (reports/json.cpp): keys sorted, as nlohmann keeps them.
// tests/reports/json_writer_test.cpp holds the two to the same text.
void write_stats(JsonWriter& w, const Stats& s) {
  w.begin_object();
  w.key("max").number(s.max);
  w.key("mean").number(s.mean);
  w.key("min").number(s.min);
  w.key("n").unsigned_integer(s.n);
  w.key("p50").number(s.p50);
  w.key("p90").number(s.p90);
  w.key("p99").number(s.p99);
  w.key("p999").number(s.p999);
  w.key("stddev").number(s.stddev);
  w.end_object();
}

void write_text_or_null(JsonWriter& w, const std::string& text) { text.empty() ? w.null() : w.string(text); }

void write_probe(JsonWriter& w, const ProbeResult& p) {
  w.begin_object();
  w.key("error").string_or_null(p.error);
  w.key("id").string(p.id);
  w.key("metrics").begin_object();
  for (const auto& [name, m] : p.metrics) {
    w.key(name);
    if (m.value)
      w.number(*m.value);
    else if (m.summary)
      write_stats(w, *m.summary);
    else
      w.null();
  }
  w.end_object();
  w.key("params").json(p.params);
  w.key("reason").string_or_null(p.reason);
  w.key("scope").begin_object();
  w.key("devices").strings(p.scope.devices);
  w.key("hosts").strings(p.scope.hosts);
  w.key("ranks").integers(p.scope.ranks);
  w.end_object();
  w.key("status").string(to_string(p.status));
  w.end_object();
}

void write_verdict(JsonWriter& w, const Verdict& v) {
  w.begin_object();
  w.key("action");
  v.action ? w.string(to_string(*v.action)) : w.null();
  w.key("entity").begin_object();
  w.key("id").string(v.entity.id);
  w.key("kind").string(v.entity.kind);
  w.end_object();
  const bool node = v.entity.kind == "node";  // nodes list the parts admission may use and those it excluded
  if (node) w.key("excluded").strings(v.excluded);
  w.key("reasons").begin_array();
  for (const auto& r : v.reasons) {
    w.begin_object();
    w.key("code").string(r.code);
    w.key("message").string(r.message);
    write_text_or_null(w.key("metric"), r.metric);
    w.key("threshold").number(r.threshold);
    w.key("value").number(r.value);
    w.end_object();
  }
  w.end_array();
  w.key("state").string(to_string(v.state));
  if (node) w.key("usable").strings(v.usable);
  w.end_object();
}

void write_integer_or_null(JsonWriter& w, const std::optional<int>& v) { v ? w.integer(*v) : w.null(); }

void write_string_map(JsonWriter& w, const std::map<std::string, std::string>& items) {
  w.begin_object();
  for (const auto& [name, text] : items) w.key(name).string(text);
  w.end_object();
}

void write_coded(JsonWriter& w, const std::optional<CodedState>& s) {
  if (!s) return w.null();
  w.begin_object();
  w.key("code").integer(s->code);
  w.key("name").string(s->name);
  w.end_object();
}

void write_port(JsonWriter& w, const IbPort& p) {
  w.begin_object();
  w.key("counters").begin_object();
  for (const auto& [name, count] : p.counters) w.key(name).unsigned_integer(count);
  w.end_object();
  write_integer_or_null(w.key("lanes"), p.rate ? p.rate->lanes : std::nullopt);
  w.key("lid").string_or_null(p.lid);
  write_text_or_null(w.key("link_layer"), p.link_layer);
  write_coded(w.key("phys_state"), p.phys_state);
  w.key("port").integer(p.port);
  write_text_or_null(w.key("rate"), p.rate_text);
  w.key("rate_Gbps").number(p.rate ? std::optional<double>(p.rate->gbps) : std::nullopt);
  write_text_or_null(w.key("speed"), p.rate ? p.rate->speed : std::string());
  write_coded(w.key("state"), p.state);
  w.end_object();
}

void write_host(JsonWriter& w, const HostInventory& h) {
  w.begin_object();
  w.key("cpu").begin_object();
  w.key("logical_cpus").integer(h.cpu.logical_cpus);
  write_text_or_null(w.key("model"), h.cpu.model);
  w.key("numa_nodes").integer(h.cpu.numa_nodes);
  w.end_object();
  write_string_map(w.key("env"), h.env);
  w.key("gpus").begin_array();
  for (const auto& g : h.gpus) {
    w.begin_object();
    w.key("index").integer(g.index);
    w.key("memory_total_GiB").number(g.memory_total_GiB);
    w.key("name").string(g.name);
    w.key("pci_bus_id").string(g.pci_bus_id);
    w.key("uuid").string(g.uuid);
    w.end_object();
  }
  w.end_array();
  w.key("hcas").begin_array();
  for (const auto& hca : h.hcas) {
    w.begin_object();
    write_text_or_null(w.key("board_id"), hca.board_id);
    write_text_or_null(w.key("fw_ver"), hca.fw_ver);
    write_text_or_null(w.key("hca_type"), hca.hca_type);
    w.key("name").string(hca.name);
    write_text_or_null(w.key("node_guid"), hca.node_guid);
    write_integer_or_null(w.key("numa_node"), hca.numa_node);
    write_text_or_null(w.key("pci_address"), hca.pci_address);
    w.key("ports").begin_array();
    for (const auto& port : hca.ports) write_port(w, port);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("name").string(h.name);
  w.key("ranks").integers(h.ranks);
  w.key("topology").begin_array();
  for (const auto& a : h.topology) {
    w.begin_object();
    w.key("gpu").integer(a.gpu);
    write_integer_or_null(w.key("gpu_numa_node"), a.gpu_numa_node);
    write_text_or_null(w.key("gpu_pci"), a.gpu_pci);
    write_text_or_null(w.key("hca"), a.hca);
    write_text_or_null(w.key("hca_pci"), a.hca_pci);
    w.key("proximity");
    a.proximity ? w.string(to_string(*a.proximity)) : w.null();
    w.end_object();
  }
  w.end_array();
  write_string_map(w.key("versions"), h.versions);
  w.end_object();
}

template <class T, class Write>
void write_array(JsonWriter& w, const std::vector<T>& items, Write write_item) {
  w.begin_array();
  for (const auto& item : items) write_item(w, item);
  w.end_array();
}

// A fleet's summary lists every node, and maps each to its Kubernetes
// metadata: written as it stands rather than copied into a document first.
void write_summary(JsonWriter& w, const RunSummary& s) {
  w.begin_object();
  w.key("admit").strings(s.admit);
  w.key("admit_degraded").strings(s.admit_degraded);
  w.key("drain").strings(s.drain);
  w.key("exit_code").integer(s.exit_code);
  if (!s.kubernetes.empty()) {  // absent, not empty, when there is no node to map
    w.key("kubernetes").begin_object();
    for (const auto& [name, node] : s.kubernetes) {
      w.key(name).begin_object();
      write_string_map(w.key("annotations"), node.annotations);
      write_string_map(w.key("labels"), node.labels);
      w.key("taints").begin_array();
      for (const auto& t : node.taints) {
        w.begin_object();
        w.key("effect").string(t.effect);
        w.key("key").string(t.key);
        w.key("value").string(t.value);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_object();
  }
  w.key("state").string(to_string(s.state));
  w.end_object();
}

void write_probes(JsonWriter& w, const std::vector<ProbeResult>& probes) {
  w.begin_array();
  for (const auto& p : probes) write_probe(w, p);
  w.end_array();
}

}  // namespace

// The same text as json(report).dump(2) (keys sorted), without building the
// whole document in memory first.
void JsonReporter::render(const Report& report, std::ostream& out) const {
  Report small;  // everything but the long arrays and the summary, which are written as they stand
  small.schema_version = report.schema_version;
  small.tool = report.tool;
  small.run = report.run;
  small.burn_in = report.burn_in;
  const json head = small;
  JsonWriter w(out);
  w.begin_object();
  for (const auto& [name, value] : head.items()) {  // sorted, as dump() writes them
    w.key(name);
    if (name == "hosts")
      write_array(w, report.hosts, write_host);
    else if (name == "probes")
      write_probes(w, report.probes);
    else if (name == "verdicts")
      write_array(w, report.verdicts, write_verdict);
    else if (name == "summary")
      write_summary(w, report.summary);
    else
      w.json(value);
  }
  w.end_object();
  w.flush();
  out << '\n';
}

}  // namespace ibgpu
