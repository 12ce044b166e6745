// The streaming JSON writer and the JSON reporter built on it must write the
// very text nlohmann's dump(2) writes for the same document: saved reports
// and the golden file do not change with the way they are produced.
#include "reports/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "reports/json.h"
#include "reports/reporter.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using nlohmann::json;

std::string written(const json& doc) {
  std::ostringstream out;
  JsonWriter w(out);
  w.json(doc);
  w.flush();
  return out.str();
}

std::string rendered(const Report& report) {
  std::ostringstream out;
  JsonReporter{}.render(report, out);
  return out.str();
}

TEST(JsonWriter, WritesWhatDumpWrites) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const json doc = {
      {"empty_object", json::object()},
      {"empty_array", json::array()},
      {"nested", {{"a", json::array({json::object(), json::array(), json::array({1, 2})})}, {"b", nullptr}}},
      {"doubles",
       {0.0, -0.0, 400.0, 48.8, 0.1, 1e-5, 1.5e-7, 1e15, 1e16, 1e21, 123456789012345678.0, -2.5,
        std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(), nan, inf, -inf}},
      {"integers", {0, -1, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max()}},
      {"unsigned", {0u, std::numeric_limits<unsigned long long>::max()}},
      {"booleans", {true, false}},
      {"strings",
       {"", "plain", "quote \" and backslash \\", "tab\tnew\nline", std::string("nul\0byte", 8), "\x7f",
        "caf\xc3\xa9 \xe2\x9c\x93", "\x01\x1f"}},
      {"key \"quoted\"\n", "odd keys are escaped too"},
  };
  EXPECT_EQ(written(doc), doc.dump(2));
  for (const json& scalar : {json(nullptr), json(1.25), json("x"), json::array(), json::object()})
    EXPECT_EQ(written(scalar), scalar.dump(2));
}

// The word-at-a-time check against the byte-by-byte rule: every byte value at
// every place of strings long enough to take both paths.
TEST(JsonWriter, PlainTextIsPrintableAsciiWithoutQuoteOrBackslash) {
  auto plain = [](unsigned char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; };
  for (std::size_t size : {1u, 7u, 8u, 9u, 16u, 19u}) {
    for (std::size_t at = 0; at < size; ++at) {
      for (int byte = 0; byte < 256; ++byte) {
        std::string text(size, 'a');
        text[at] = static_cast<char>(byte);
        ASSERT_EQ(json_plain_text(text.data(), text.size()), plain(static_cast<unsigned char>(byte)))
            << "byte " << byte << " at " << at << " of " << size;
      }
    }
  }
  EXPECT_TRUE(json_plain_text("", 0));
  // Keys and strings with an escape past the first word are escaped as dump() escapes them.
  const json doc = {{"a long key with a \"quote\" in it", "a long value with a tab\tand a\\backslash"},
                    {"0123456789abcdef\u007f", std::string("0123456789\0abcdef", 17)}};
  EXPECT_EQ(written(doc), doc.dump(2));
}

TEST(JsonWriter, InvalidUtf8IsRefusedAsDumpRefusesIt) {
  const json doc = {{"bad", std::string("\xff\xfe")}};
  EXPECT_THROW(doc.dump(2), json::type_error);
  EXPECT_THROW(written(doc), json::type_error);
}

TEST(JsonReporter, RendersTheDumpOfTheWholeReport) {
  const Report report = testing::sample_report();
  EXPECT_EQ(rendered(report), json(report).dump(2) + "\n");
}

TEST(JsonReporter, RendersEveryFieldFormAsDumpDoes) {
  Report report = testing::sample_report();
  // The forms the sample may lack: errors and reasons with escapes, missing
  // and non-finite metrics, empty scopes and params, verdicts of every kind.
  ProbeResult odd;
  odd.id = "net.verbs.write_bw";
  odd.status = ProbeStatus::error;
  odd.error = "peer said \"no\"\n\tand hung up";
  odd.reason = "caf\xc3\xa9";
  odd.metrics["missing"] = Metric::missing();
  odd.metrics["nan"] = Metric::of(std::nan(""));
  odd.metrics["whole"] = Metric::of(400.0);
  odd.metrics["stats"] = Metric::of(Stats{3, 1, 2, 3, 4, 5, 6, 2.5, 0.1});
  odd.params = {{"size_B", std::size_t{8} << 20}, {"direction", "bidir"}, {"list", {1, -2, 3.5}}};
  report.probes.push_back(odd);
  report.probes.push_back(ProbeResult{});
  Verdict link{{"link", "a<->b"}, HealthState::degraded, {}, std::nullopt};
  link.reasons.push_back(Reason{"LAT_HIGH", "", "", std::nullopt, std::nullopt});
  link.reasons.push_back(Reason{"X", "m \"q\"", "lat_us.p50", 1e-7, std::numeric_limits<double>::infinity()});
  report.verdicts.push_back(link);
  report.verdicts.push_back(Verdict{{"node", "n9"}, HealthState::failed, {}, Action::drain, {}, {"gpu0"}});
  EXPECT_EQ(rendered(report), json(report).dump(2) + "\n");
}

TEST(JsonReporter, RendersTheSummaryAsDumpDoes) {
  Report report = testing::sample_report();
  RunSummary& s = report.summary;
  s.admit = {"n1", "n2"};
  s.admit_degraded = {};
  s.drain = {"n3 \"quoted\""};
  s.kubernetes.clear();  // absent when empty
  EXPECT_EQ(rendered(report), json(report).dump(2) + "\n");
  s.kubernetes["n1"] = KubernetesNode{};  // empty maps and taints
  s.kubernetes["n0"].labels = {{"b", "2"}, {"a", "1"}};
  s.kubernetes["n0"].annotations = {{"why", "line\nbreak"}};
  s.kubernetes["n0"].taints = {{"k1", "v1", "NoSchedule"}, {"k2", "", "PreferNoSchedule"}};
  EXPECT_EQ(rendered(report), json(report).dump(2) + "\n");
}

TEST(JsonReporter, RendersAnEmptyReportAsDumpDoes) { EXPECT_EQ(rendered(Report{}), json(Report{}).dump(2) + "\n"); }

}  // namespace
}  // namespace ibgpu
