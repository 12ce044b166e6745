// The formats ops tools ingest: Prometheus text exposition, JUnit XML and a
// Markdown summary. Golden files for the fixed report, a strict parser for
// every Prometheus line, and escaping of hostile text. (The JUnit XML is
// also validated against tests/data/junit.xsd by xmllint: tests/cli.)
#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "core/probe_kind.h"
#include "reports/json.h"
#include "reports/prometheus_names.h"
#include "tests/reports/golden.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using namespace ibgpu::golden;

// ---- a strict reader of the Prometheus text format (0.0.4) ----------------

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped values
  double value = 0;
};

struct Exposition {
  std::vector<Sample> samples;
  std::string error;  // the first line that is neither a comment nor a valid sample, and why
};

bool metric_name_ok(const std::string& s) {
  static const std::regex re("[a-zA-Z_:][a-zA-Z0-9_:]*");
  return std::regex_match(s, re);
}

bool label_name_ok(const std::string& s) {
  static const std::regex re("[a-zA-Z_][a-zA-Z0-9_]*");
  return std::regex_match(s, re) && s.rfind("__", 0) != 0;
}

// Go's ParseFloat forms the format allows; no spaces, no hex.
bool parse_value(const std::string& s, double& v) {
  if (s == "NaN" || s == "+Inf" || s == "-Inf") {
    v = s == "NaN" ? std::nan("") : (s[0] == '+' ? INFINITY : -INFINITY);
    return true;
  }
  static const std::regex re("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (!std::regex_match(s, re)) return false;
  v = std::stod(s);
  return true;
}

// Returns "" or why the sample line is invalid.
std::string parse_sample(const std::string& line, Sample& out) {
  std::size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  out.name = line.substr(0, i);
  if (!metric_name_ok(out.name)) return "bad metric name '" + out.name + "'";
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (true) {
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      const std::size_t eq = line.find('=', i);
      if (eq == std::string::npos) return "label without '='";
      const std::string name = line.substr(i, eq - i);
      if (!label_name_ok(name)) return "bad label name '" + name + "'";
      if (eq + 1 >= line.size() || line[eq + 1] != '"') return "label value not quoted";
      std::string value;
      std::size_t j = eq + 2;
      for (;; ++j) {
        if (j >= line.size()) return "unterminated label value";
        const char c = line[j];
        if (c == '"') break;
        if (c == '\n') return "raw newline in a label value";
        if (c == '\\') {
          if (j + 1 >= line.size()) return "dangling backslash";
          const char e = line[++j];
          if (e == '\\')
            value += '\\';
          else if (e == '"')
            value += '"';
          else if (e == 'n')
            value += '\n';
          else
            return std::string("unknown escape \\") + e;
        } else {
          value += c;
        }
      }
      if (!out.labels.emplace(name, value).second) return "label '" + name + "' twice";
      i = j + 1;
      if (i < line.size() && line[i] == ',')
        ++i;
      else if (i < line.size() && line[i] == '}')
        continue;
      else
        return "expected ',' or '}' after a label";
    }
  }
  if (i >= line.size() || line[i] != ' ') return "no space before the value";
  const std::string rest = line.substr(i + 1);
  const std::size_t space = rest.find(' ');
  if (!parse_value(rest.substr(0, space), out.value)) return "bad value '" + rest.substr(0, space) + "'";
  if (space != std::string::npos && !std::regex_match(rest.substr(space + 1), std::regex("-?[0-9]+")))
    return "bad timestamp";
  return "";
}

// Also the rules across lines: one TYPE and one HELP per family, before its
// samples; a family's samples together; no series twice.
Exposition parse_exposition(const std::string& text) {
  Exposition x;
  std::map<std::string, std::string> types;
  std::set<std::string> helps, series, finished;
  std::string current;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    auto fail = [&](const std::string& why) {
      x.error = "line " + std::to_string(n) + ": " + why + ": " + line;
      return x;
    };
    if (line.empty()) return fail("empty line");
    if (line[0] == '#') {
      std::istringstream words(line);
      std::string hash, keyword, name;
      words >> hash >> keyword >> name;
      if (hash != "#") return fail("comment without a space after '#'");
      if (keyword != "HELP" && keyword != "TYPE") continue;  // a plain comment
      if (!metric_name_ok(name)) return fail("bad metric name in " + keyword);
      if (keyword == "TYPE") {
        std::string type, extra;
        words >> type >> extra;
        static const std::set<std::string> kTypes{"counter", "gauge", "histogram", "summary", "untyped"};
        if (!kTypes.count(type) || !extra.empty()) return fail("bad TYPE");
        if (!types.emplace(name, type).second) return fail("second TYPE");
        if (finished.count(name) || name == current) return fail("TYPE after the family's samples");
      } else if (!helps.insert(name).second) {
        return fail("second HELP");
      }
      continue;
    }
    Sample s;
    if (const std::string why = parse_sample(line, s); !why.empty()) return fail(why);
    if (!types.count(s.name)) return fail("sample without a TYPE line");
    if (s.name != current) {
      if (finished.count(s.name)) return fail("family's samples not together");
      if (!current.empty()) finished.insert(current);
      current = s.name;
    }
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += '\x1f' + k + '=' + v;
    if (!series.insert(key).second) return fail("series twice");
    x.samples.push_back(std::move(s));
  }
  return x;
}

std::vector<Sample> find(const Exposition& x, const std::string& name, const std::map<std::string, std::string>& with) {
  std::vector<Sample> out;
  for (const auto& s : x.samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : with) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (match) out.push_back(s);
  }
  return out;
}

// A report whose text is made to break naive output: quotes, backslashes,
// newlines, markup and control characters in ids, reasons and metric keys.
Report hostile_report() {
  Report r = testing::sample_report();
  r.run.id = "id \"quoted\" <&>";
  r.run.notes = {"note with\nnewline & <tag> | pipe"};
  Verdict& v = r.verdicts.at(4);
  v.entity = Entity::link("a\\b\"c\nd", "e");
  v.reasons.at(0).message = "bad <stuff> & \"quotes\" 'single' \x01 bell\x07 | *stars* _under_";
  ProbeResult odd;
  odd.id = "net.9odd-id/x";
  odd.scope = Scope{{"h\"1", "h\\2"}, {0, 1}, {"mlx5_0:1", "mlx5_0:1"}};
  odd.params = {{"size_B", 8}};
  odd.metrics = {{"bw/avg GBps", Metric::of(1.5)}, {"9lives", Metric::of(2)}};
  odd.error = "<error & \"detail\">";
  odd.status = ProbeStatus::error;
  r.probes.push_back(odd);
  return r;
}

// ---- golden files -----------------------------------------------------------

TEST(FormatGolden, PrometheusMatchesCheckedInText) {
  expect_golden("report.prom", render(PrometheusReporter{}, testing::sample_report()));
}

TEST(FormatGolden, JunitMatchesCheckedInText) {
  expect_golden("report.junit.xml", render(JunitReporter{}, testing::sample_report()));
}

TEST(FormatGolden, MarkdownMatchesCheckedInText) {
  expect_golden("report.md", render(MarkdownReporter{}, testing::sample_report()));
}

// `ibgpu report saved.json` must print what the run itself printed.
TEST(FormatGolden, SavedReportRendersAsTheRunDid) {
  const Report saved = report_from_json(read_json_file((kGoldenDir / "report.json").string()));
  for (const auto& format : reporter_formats()) {
    const auto reporter = make_reporter(format);
    ASSERT_NE(reporter, nullptr) << format;
    EXPECT_EQ(render(*reporter, saved), render(*reporter, testing::sample_report())) << format;
  }
  EXPECT_EQ(render(TableReporter{}, saved), read_text(kGoldenDir / "report.table.txt"));
}

TEST(FormatRegistry, EveryFormatIsListedOnceAndDocumentsSayIfTheyConcatenate) {
  const auto formats = reporter_formats();
  EXPECT_EQ(std::set<std::string>(formats.begin(), formats.end()).size(), formats.size());
  for (const char* f : {"table", "json", "prometheus", "junit", "markdown"})
    EXPECT_NE(std::find(formats.begin(), formats.end(), f), formats.end()) << f;
  EXPECT_TRUE(reporter_concatenates("table"));
  EXPECT_TRUE(reporter_concatenates("markdown"));
  EXPECT_FALSE(reporter_concatenates("json"));
  EXPECT_FALSE(reporter_concatenates("prometheus"));
  EXPECT_FALSE(reporter_concatenates("junit"));
  EXPECT_FALSE(reporter_concatenates("no-such-format"));
}

// ---- Prometheus ---------------------------------------------------------------

TEST(Prometheus, ParserRejectsWhatTheFormatForbids) {
  const std::string head = "# TYPE m gauge\n";
  EXPECT_EQ(parse_exposition(head + "m 1\n").error, "");
  EXPECT_EQ(parse_exposition(head + "m{a=\"x\\\"y\"} 1\n").error, "");
  for (const char* bad : {"m{a=\"x\"y\"} 1", "m{a=x} 1", "m{a=\"x\\t\"} 1", "m 1.2.3", "m", "m{a=\"1\",a=\"2\"} 1",
                          "9m 1", "m{__a=\"1\"} 1", "m{a=\"1\"}1", "#TYPE m gauge"})
    EXPECT_NE(parse_exposition(head + bad + "\n").error, "") << bad;
  EXPECT_NE(parse_exposition("m 1\n").error, "") << "no TYPE";
  EXPECT_NE(parse_exposition(head + "m 1\nm 2\n").error, "") << "series twice";
  EXPECT_NE(parse_exposition(head + "# TYPE n gauge\nm 1\nn 1\nm{a=\"b\"} 1\n").error, "") << "split family";
}

TEST(Prometheus, EveryLineIsACommentOrAValidSample) {
  const Exposition x = parse_exposition(render(PrometheusReporter{}, testing::sample_report()));
  ASSERT_EQ(x.error, "");
  // Spot checks of what alerts and dashboards read.
  ASSERT_EQ(find(x, "ibgpu_run_exit_code", {}).size(), 1u);
  EXPECT_EQ(find(x, "ibgpu_run_exit_code", {})[0].value, 2);
  ASSERT_EQ(find(x, "ibgpu_run_finished_timestamp_seconds", {}).size(), 1u);
  EXPECT_EQ(find(x, "ibgpu_run_finished_timestamp_seconds", {})[0].value, 1767323075);  // 2026-01-02T03:04:35Z
  // In base units: bytes per second, seconds, celsius.
  const auto bw =
      find(x, "ibgpu_link_bandwidth_bytes_per_second", {{"probe", "net.mpi.bw"}, {"host", "node1"}, {"peer", "node1"}});
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_EQ(bw[0].value, 11.5e9);
  EXPECT_EQ(bw[0].labels.at("size_bytes"), "1048576");
  EXPECT_EQ(find(x, "ibgpu_link_latency_seconds", {{"stat", "p99"}}).at(0).value, 3.25e-6);
  EXPECT_EQ(find(x, "ibgpu_link_messages_per_second", {}).size(), 0u) << "a missing metric is no series, not a number";
  EXPECT_EQ(find(x, "ibgpu_gpu_temperature_celsius", {{"host", "node1"}, {"gpu", "gpu0"}}).at(0).value, 41);
  EXPECT_EQ(find(x, "ibgpu_port_symbol_error_per_second", {{"port", "mlx5_0:1"}}).at(0).value, 0.1);
  EXPECT_EQ(find(x, "ibgpu_node_gpus", {{"host", "node1"}}).at(0).value, 2);
  EXPECT_EQ(find(x, "ibgpu_entity_reason", {{"id", "node1/mlx5_1:1"}, {"code", "IB_PORT_DOWN"}}).at(0).value, 1);
  for (const Sample& sample : x.samples)  // not the bits twin of the bytes, no abbreviated unit
    EXPECT_TRUE(sample.name.find("bps") == std::string::npos && sample.name.find("_us") == std::string::npos)
        << sample.name;
}

TEST(Prometheus, EveryEntityHasOneLinePerStateAndExactlyOneIsSet) {
  const Report r = testing::sample_report();
  const Exposition x = parse_exposition(render(PrometheusReporter{}, r));
  ASSERT_EQ(x.error, "");
  for (const auto& v : r.verdicts) {
    const auto lines = find(x, "ibgpu_entity_state", {{"kind", to_string(v.entity.kind())}, {"id", v.entity.id()}});
    ASSERT_EQ(lines.size(), 4u) << v.entity.id();
    for (const auto& s : lines) EXPECT_EQ(s.value, s.labels.at("state") == to_string(v.state) ? 1 : 0) << v.entity.id();
  }
  EXPECT_EQ(find(x, "ibgpu_entity_state", {{"id", "node2"}, {"state", "failed"}}).at(0).value, 1);
  EXPECT_EQ(find(x, "ibgpu_node_action", {{"node", "node2"}, {"action", "drain"}}).at(0).value, 1);
  EXPECT_EQ(find(x, "ibgpu_node_action", {{"node", "node1"}, {"action", "drain"}}).at(0).value, 0);
}

TEST(Prometheus, HostileTextIsEscapedAndNamesSanitised) {
  const Report r = hostile_report();
  const Exposition x = parse_exposition(render(PrometheusReporter{}, r));
  ASSERT_EQ(x.error, "");
  EXPECT_EQ(find(x, "ibgpu_entity_state", {{"id", "a\\b\"c\nd<->e"}, {"state", "failed"}}).at(0).value, 1);
  EXPECT_EQ(find(x, "ibgpu_run_info", {}).at(0).labels.at("run_id"), "id \"quoted\" <&>");
  // A key no row knows ("bw/avg GBps") is written as recorded, its name sanitised.
  EXPECT_EQ(
      find(x, "ibgpu_link_bw_avg_GBps", {{"probe", "net.9odd-id/x"}, {"host", "h\"1"}, {"peer", "h\\2"}}).at(0).value,
      1.5);
  EXPECT_EQ(find(x, "ibgpu_link_9lives", {}).at(0).value, 2);
}

TEST(Prometheus, RetestedPairIsOneSeriesWithItsLastValue) {
  Report r = testing::sample_report();
  ProbeResult again = r.probes.at(3);  // net.mpi.bw node1<->node1 at 1 MiB
  again.metrics["bw_avg_GBps"] = Metric::of(12.5);
  r.probes.push_back(again);
  const Exposition x = parse_exposition(render(PrometheusReporter{}, r));
  ASSERT_EQ(x.error, "");
  const auto bw = find(x, "ibgpu_link_bandwidth_bytes_per_second", {{"probe", "net.mpi.bw"}});
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_EQ(bw[0].value, 12.5e9);
}

TEST(Prometheus, MetricsWhoseNamesSanitiseAlikeAreOneSeriesWithTheLastValue) {
  Report r = testing::sample_report();
  ProbeResult p = r.probes.at(3);  // net.mpi.bw node1<->node1 at 1 MiB
  p.metrics = {{"odd.name", Metric::of(1)}, {"odd_name", Metric::of(2)}};
  ProbeResult summary = p;  // and a re-tested summary keeps each statistic's last value
  summary.metrics = {{"lat_us", Metric::of(Stats{4, 1, 2, 3, 4, 5, 6, 7, 8})}};
  r.probes.insert(r.probes.end(), {p, summary});
  summary.metrics = {{"lat_us", Metric::of(Stats{5, 10, 20, 30, 40, 50, 60, 70, 80})}};
  r.probes.push_back(summary);
  const std::string text = render(PrometheusReporter{}, r);
  const Exposition x = parse_exposition(text);
  ASSERT_EQ(x.error, "");
  const auto odd = find(x, "ibgpu_link_odd_name", {});
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].value, 2);
  EXPECT_EQ(find(x, "ibgpu_link_latency_seconds", {{"probe", "net.mpi.bw"}, {"stat", "p50"}}).at(0).value, 20e-6);
  EXPECT_EQ(find(x, "ibgpu_link_latency_seconds_samples", {{"probe", "net.mpi.bw"}}).at(0).value, 5);
}

// What `promtool check metrics` asks of a name (its lint, Prometheus 2.42): lower-case words, no
// abbreviated unit among them, no suffix a histogram, summary or counter owns. The lanes run
// promtool itself over real runs' reports (tests/mpi/check_test.sh, tests/cli/prometheus_test.sh).
std::string naming_problem(const std::string& name) {
  if (!std::regex_match(name, std::regex("[a-z][a-z0-9_]*"))) return "not lower-case snake_case";
  static const std::set<std::string> abbreviations{"s",  "ms", "us", "ns", "sec", "b", "kb", "mb",
                                                   "gb", "tb", "pb", "m",  "h",   "d", "c"};
  std::istringstream words(name);
  for (std::string word; std::getline(words, word, '_');)
    if (abbreviations.count(word)) return "the abbreviated unit '" + word + "'";
  for (const char* suffix : {"_total", "_count", "_sum", "_bucket"})
    if (name.ends_with(suffix)) return std::string("the suffix ") + suffix + " on a gauge";
  return "";
}

TEST(Prometheus, EveryCatalogueMetricIsExposedInBaseUnitsUnderALintCleanName) {
  for (const ProbeKind& kind : probe_catalogue())
    for (std::string_view metric : kind.metrics) {
      std::string key(metric);
      if (key.starts_with("<counter>")) key.replace(0, 9, "VL15_dropped");  // the one counter in capitals
      const auto exposed = exposed_metric(key);
      ASSERT_TRUE(exposed.has_value()) << key << " of " << kind.id << " has no row in reports/prometheus_names.cpp";
      if (exposed->name.empty()) continue;  // not exposed: bw_avg_Gbps, the bytes' twin in bits
      EXPECT_EQ(naming_problem("ibgpu_link_" + exposed->name), "") << key << " -> " << exposed->name;
    }
  EXPECT_EQ(exposed_metric("lat_us")->of(2.125), 2.125e-6);  // exact, not 2.1249999999999998e-06
  EXPECT_EQ(exposed_metric("bw_avg_GBps")->of(11.5), 11.5e9);
  EXPECT_EQ(exposed_metric("symbol_error_per_hour")->of(360), 0.1);
  EXPECT_EQ(exposed_metric("symbol_error_per_hour")->name, "symbol_error_per_second");
  EXPECT_FALSE(exposed_metric("a_newer_builds_metric").has_value());
}

TEST(Prometheus, EveryFamilyOfTheSampleReportIsLintClean) {
  const Exposition x = parse_exposition(render(PrometheusReporter{}, testing::sample_report()));
  ASSERT_EQ(x.error, "");
  for (const Sample& sample : x.samples) EXPECT_EQ(naming_problem(sample.name), "") << sample.name;
}

// A series is the same from run to run: a node's listing of its devices changes exactly when one
// drops, so it is no label (the `< 8` GPUs alert needs the same series), nor are the devices of an
// all-reduce, nor the ranks of a measurement that names its rails.
TEST(Prometheus, SeriesDoNotChangeWithTheDevicesOfANodeOrAnAllReduce) {
  const auto series = [](const Report& r) {
    std::set<std::string> out;
    for (const Sample& s : parse_exposition(render(PrometheusReporter{}, r)).samples) {
      std::string id = s.name;
      for (const auto& [name, value] : s.labels) id += " " + name + "=" + value;
      out.insert(id);
    }
    return out;
  };
  const Report before = testing::sample_report();
  Report after = before;
  for (ProbeResult& p : after.probes) {
    if (!p.scope.devices.empty() && p.scope.ranks.size() > 1)
      for (int& rank : p.scope.ranks) rank += 5;
    if (p.kind().subject == ProbeSubject::node && p.scope.devices.size() > 1) p.scope.devices.pop_back();
    if (is_allreduce_probe(p) && !p.scope.devices.empty()) p.scope.devices.pop_back();
  }
  EXPECT_EQ(series(after), series(before));
}

// Each measurement of a run is a series of its own, with its own value: the rank pairs of one host
// pair over MPI (no rail to tell them apart), the kernel log's results per GPU of one node, one
// rank's all-reduce result beside its group's.
TEST(Prometheus, EachMeasurementOfARunIsASeriesOfItsOwn) {
  Report r = testing::sample_report();
  r.probes.clear();
  const auto pair = [](int a, int b, double GBps) {
    ProbeResult p;
    p.id = kMpiBwProbe;
    p.scope = Scope{{"n1", "n2"}, {a, b}, {}};
    p.params = {{"size_B", 1048576}};
    p.metrics["bw_avg_GBps"] = Metric::of(GBps);
    return p;
  };
  const auto xid = [](const std::string& pci, double events) {
    ProbeResult p;
    p.id = kKernelLogXidProbe;
    p.scope = Scope{{"n1"}, {}, {pci}};
    p.metrics["xid_events"] = Metric::of(events);
    return p;
  };
  const auto allreduce = [](std::vector<int> ranks, double wrong) {
    ProbeResult p;
    p.id = kMpiAllReduceProbe;
    p.scope = Scope{{"n1"}, std::move(ranks), {}};
    p.params = {{"size_B", 1048576}};
    p.metrics["wrong_elements"] = Metric::of(wrong);
    return p;
  };
  r.probes = {
      pair(0, 8, 10),   pair(1, 9, 4), xid("0000:17:00.0", 3), xid("0000:2a:00.0", 0), allreduce({0, 1, 2, 3}, 0),
      allreduce({2}, 7)};
  const Exposition x = parse_exposition(render(PrometheusReporter{}, r));
  ASSERT_EQ(x.error, "");
  EXPECT_EQ(find(x, "ibgpu_link_bandwidth_bytes_per_second", {{"rank", "0"}, {"peer_rank", "8"}}).at(0).value, 10e9);
  EXPECT_EQ(find(x, "ibgpu_link_bandwidth_bytes_per_second", {{"rank", "1"}, {"peer_rank", "9"}}).at(0).value, 4e9);
  EXPECT_EQ(find(x, "ibgpu_node_xid_events", {{"device", "0000:17:00.0"}}).at(0).value, 3);
  EXPECT_EQ(find(x, "ibgpu_node_xid_events", {{"device", "0000:2a:00.0"}}).at(0).value, 0);
  const auto wrong = find(x, "ibgpu_allreduce_wrong_elements", {{"hosts", "n1"}});
  ASSERT_EQ(wrong.size(), 2u);
  EXPECT_EQ(find(x, "ibgpu_allreduce_wrong_elements", {{"rank", "2"}}).at(0).value, 7);
}

// A Pushgateway refuses a push whose HELP for a metric differs from what another group pushed:
// a family's HELP is the same whichever probes a run had.
TEST(Prometheus, AFamilysHelpIsTheSameWhateverProbesTheRunHad) {
  const auto helps = [](const Report& r) {
    std::map<std::string, std::string> out;
    std::istringstream in(render(PrometheusReporter{}, r));
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("# HELP ")) {
        const auto space = line.find(' ', 7);
        out[line.substr(7, space - 7)] = line.substr(space + 1);
      }
    return out;
  };
  const Report whole = testing::sample_report();
  Report some = whole;
  some.probes.erase(some.probes.begin(), some.probes.begin() + static_cast<std::ptrdiff_t>(some.probes.size() / 2));
  std::reverse(some.probes.begin(), some.probes.end());
  const auto all = helps(whole);
  const auto part = helps(some);
  ASSERT_FALSE(part.empty());
  for (const auto& [family, help] : part) EXPECT_EQ(help, all.at(family)) << family;
}

// ---- JUnit ---------------------------------------------------------------------

TEST(Junit, CountsFollowProbeStatusesAndVerdictStates) {
  const std::string xml = render(JunitReporter{}, testing::sample_report());
  // Probes: write_bw, memory_bw and gather are errors, the wrong all-reduce a failure,
  // NCCL skipped. Verdicts: gpu1, mlx5_1:1, the link, node1 (degraded) and node2 fail; gpu0 is unknown.
  EXPECT_NE(xml.find("<testsuites name=\"ibgpu run 5eed5eed5eed5eed\" tests=\"18\" failures=\"6\" errors=\"3\" "
                     "skipped=\"2\" time=\"30\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"verdict.node\""), std::string::npos);
  EXPECT_NE(xml.find("<error type=\"timeout\" message=\"peer rank 2 on node2"), std::string::npos);
}

TEST(Junit, HostileTextIsEscaped) {
  const std::string xml = render(JunitReporter{}, hostile_report());
  EXPECT_NE(xml.find("name=\"a\\b&quot;c&#10;d&lt;-&gt;e\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("bad &lt;stuff&gt; &amp; &quot;quotes&quot; &apos;single&apos; \xEF\xBF\xBD bell\xEF\xBF\xBD"),
            std::string::npos);
  EXPECT_NE(xml.find("message=\"&lt;error &amp; &quot;detail&quot;&gt;\""), std::string::npos);
  for (char c : xml) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << "raw control character";
}

// ---- Markdown ------------------------------------------------------------------

TEST(Markdown, TableCellsAndListItemsStayOneLine) {
  const std::string md = render(MarkdownReporter{}, hostile_report());
  // Control characters are shown as escapes (a newline would end the row), then Markdown's own.
  EXPECT_NE(md.find("- link **a\\\\b\"c\\\\nd\\<-\\>e**: PROBE\\_TIMEOUT"), std::string::npos) << md;
  EXPECT_NE(md.find("\\| \\*stars\\* \\_under\\_"), std::string::npos) << md;
  EXPECT_NE(md.find("\\\\x01 bell\\\\x07"), std::string::npos) << md;
  EXPECT_NE(md.find("- note with\\\\nnewline & \\<tag\\> \\| pipe\n"), std::string::npos) << md;
  for (char c : md) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << "raw control character";
}

// A finding's confidence is a word after its code in every format a person reads.
TEST(Formats, AFindingsConfidenceFollowsItsCode) {
  Report r = testing::sample_report();
  Verdict* flagged = nullptr;
  for (auto& v : r.verdicts)
    if (!v.reasons.empty() && !flagged) flagged = &v;
  ASSERT_NE(flagged, nullptr);
  Reason& reason = flagged->reasons.front();
  reason.confidence = Confidence{ConfidenceLevel::likely, ConfidenceMethod::run_noise, 0.01, 3.7, 0.05, 24};
  const std::string word = std::string(to_string(reason.code)) + " (likely)";
  EXPECT_NE(render(JunitReporter{}, r).find(word), std::string::npos);
  std::string escaped;  // Markdown escapes the code's underscores
  for (char c : word) escaped += c == '_' ? std::string("\\_") : std::string(1, c);
  EXPECT_NE(render(MarkdownReporter{}, r).find(escaped), std::string::npos);
  EXPECT_NE(render(HtmlReporter{}, r).find(word), std::string::npos);
  EXPECT_NE(render(TableReporter{}, r).find(word), std::string::npos);
  EXPECT_EQ(render(TableReporter{}, testing::sample_report()).find(" (likely)"), std::string::npos);
}

TEST(Markdown, LongFleetsAreCut) {
  Report r = testing::sample_report();
  r.verdicts.clear();
  for (int i = 0; i < 120; ++i)
    r.verdicts.push_back(Verdict{Entity::node("n" + std::to_string(i)),
                                 i % 2 ? HealthState::failed : HealthState::healthy,
                                 {},
                                 i % 2 ? Action::drain : Action::admit});
  const std::string md = render(MarkdownReporter{}, r);
  EXPECT_NE(md.find("_and 70 more nodes"), std::string::npos) << md;
  EXPECT_NE(md.find("- _and 10 more_"), std::string::npos) << md;
  // Failed nodes first: the first table row is a failed one.
  EXPECT_NE(md.find("|---|---|---|---:|---:|---|\n| n1 | failed |"), std::string::npos) << md;
}

}  // namespace
}  // namespace ibgpu
