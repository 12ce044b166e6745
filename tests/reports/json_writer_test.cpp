// The writer says what the model's serializer (reports/json.cpp) says: each
// result and verdict written straight to text is its json's dump() and
// dump(2), in every form its fields take, nested as a report nests it.
#include "reports/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "reports/json.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using nlohmann::json;

template <class T>
std::string written(const T& item, bool indented, int depth = 0) {
  std::string text;
  JsonWriter w(text, indented, depth);
  write_json(w, item);
  return text;
}

// dump(2) of a value as it reads `depth` levels deep in a document.
std::string nested_dump(const json& j, int depth) {
  std::string text;
  for (const char c : j.dump(2)) {
    text += c;
    if (c == '\n') text.append(static_cast<std::size_t>(2 * depth), ' ');
  }
  return text;
}

template <class T>
void expect_dumps_text(const T& item) {
  const json j = item;
  EXPECT_EQ(written(item, false), j.dump());
  EXPECT_EQ(written(item, true), j.dump(2));
  EXPECT_EQ(written(item, true, 2), nested_dump(j, 2));
}

std::vector<ProbeResult> odd_probes() {
  std::vector<ProbeResult> out{ProbeResult{}};
  ProbeResult p;
  p.id = "net.verbs.write_bw";
  p.status = ProbeStatus::error;
  p.error = "peer said \"no\"\n\tand hung up \\ \x01";
  p.reason = "caf\xc3\xa9";
  p.scope = Scope{{"node1", "node2"}, {0, -1}, {"mlx5_0:1", "mlx5_0:1"}};
  p.metrics["missing"] = Metric::missing();
  p.metrics["whole"] = Metric::of(400.0);
  p.metrics["tiny"] = Metric::of(1e-7);
  p.metrics["huge"] = Metric::of(-1.2345678901234567e300);
  p.metrics["zero"] = Metric::of(-0.0);
  p.metrics["nan"] = Metric::of(std::nan(""));
  p.metrics["inf"] = Metric::of(-std::numeric_limits<double>::infinity());
  p.metrics["stats"] = Metric::of(Stats{3, 1, 2, 3, 4, 5, 6, 2.5, 0.1});
  p.metrics["both"] = Metric{1.5, Stats{}};
  p.metrics["quote\"d"] = Metric::of(1.0 / 3);
  p.params = {{"size_B", std::size_t{8} << 20},
              {"direction", "bidir"},
              {"list", {1, -2, 3.5, nullptr, true, false}},
              {"nested", {{"b", json::object()}, {"a", json::array()}, {"c", {{"x", "y"}}}}}};
  out.push_back(p);
  for (auto status : {ProbeStatus::ok, ProbeStatus::failed, ProbeStatus::skipped, ProbeStatus::timeout})
    for (auto by : {SkippedBy::node, SkippedBy::ibgpu}) {
      ProbeResult q = p;
      q.status = status;
      q.skipped_by = by;
      q.error.reset();
      q.metrics = {};
      q.params = json::object();
      out.push_back(q);
    }
  return out;
}

std::vector<Verdict> odd_verdicts() {
  Verdict link{Entity::link("a", "b"), HealthState::degraded, {}, std::nullopt};
  link.reasons.push_back(Reason{ReasonCode::LAT_HIGH, "", "", std::nullopt, std::nullopt});
  link.reasons.push_back(Reason{ReasonCode::LAT_OUTLIER, "m \"q\"\n", "lat_us.p50", 1e-7, 2.5, Evidence::unchecked});
  link.reasons.push_back(Reason{ReasonCode::NOT_JUDGED, "nan", "m", std::nan(""), 0.0, Evidence::not_judged});
  std::vector<Verdict> out{Verdict{}, link};
  out.push_back(Verdict{Entity::node("n9"), HealthState::failed, {}, Action::drain, {}, {"gpu0"}});
  out.push_back(Verdict{Entity::node("n1"), HealthState::healthy, {}, std::nullopt, {"gpu0", "mlx5_0:1"}, {}});
  out.push_back(Verdict{Entity::gpu("n1", "gpu0"), HealthState::unknown, {}, Action::admit, {"ignored"}, {"ignored"}});
  return out;
}

TEST(JsonWriter, AResultIsItsJsonsDumpInEveryForm) {
  for (const auto& p : odd_probes()) expect_dumps_text(p);
  for (const auto& p : testing::sample_report().probes) expect_dumps_text(p);
}

TEST(JsonWriter, AVerdictIsItsJsonsDumpInEveryForm) {
  for (const auto& v : odd_verdicts()) expect_dumps_text(v);
  for (const auto& v : testing::sample_report().verdicts) expect_dumps_text(v);
}

TEST(JsonWriter, AnyValueIsItsDump) {
  const json values[] = {json::object(),
                         json::array(),
                         json(nullptr),
                         testing::sample_report().run.profile,
                         json(testing::sample_report()),
                         json{{"a", {1, {2, {3}}}}, {"b", json::array({json::object()})}}};
  for (const json& j : values) {
    for (bool indented : {false, true}) {
      std::string text;
      JsonWriter w(text, indented);
      w.value(j);
      EXPECT_EQ(text, j.dump(indented ? 2 : -1));
    }
  }
}

TEST(JsonWriter, NumbersAreDumpsNumbers) {
  std::uint64_t bits = 0x9E3779B97F4A7C15u;
  for (int i = 0; i < 20000; ++i) {
    bits ^= bits << 13;
    bits ^= bits >> 7;
    bits ^= bits << 17;
    double v = 0;
    static_assert(sizeof v == sizeof bits);
    std::memcpy(&v, &bits, sizeof v);
    const double values[] = {v, static_cast<double>(bits % 100000) / 64, static_cast<double>(bits >> 11)};
    for (const double d : values) {
      std::string text;
      JsonWriter w(text, false);
      w.number(d);
      ASSERT_EQ(text, json(d).dump());
    }
  }
}

TEST(JsonWriter, InvalidUtf8IsRefusedAsDumpRefusesIt) {
  ProbeResult p;
  p.id = std::string("\xff\xfe");
  std::string text;
  JsonWriter w(text, false);
  EXPECT_THROW(write_json(w, p), json::type_error);
}

}  // namespace
}  // namespace ibgpu
