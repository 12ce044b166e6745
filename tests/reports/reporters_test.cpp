// Golden tests for the reporters and the JSON Schema contract.
//
// The table and JSON output of a fixed report are compared with checked-in
// files. After an intended change to the output, regenerate them with
//   IBGPU_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden
// and review the difference with git diff.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/pipeline.h"
#include "reports/json.h"
#include "reports/reporter.h"
#include "tests/reports/golden.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using nlohmann::json;
using namespace ibgpu::golden;

TEST(ReporterGolden, TableMatchesCheckedInText) {
  expect_golden("report.table.txt", render(TableReporter{}, testing::sample_report()));
}

TEST(ReporterGolden, JsonMatchesCheckedInText) {
  expect_golden("report.json", render(JsonReporter{}, testing::sample_report()));
}

TEST(ReporterGolden, HtmlMatchesCheckedInText) {
  expect_golden("report.html", render(HtmlReporter{}, testing::sample_report()));
}

TEST(ReporterGolden, MakeReporterGivesEveryListedFormat) {
  for (const auto& format : reporter_formats()) EXPECT_NE(make_reporter(format), nullptr) << format;
  EXPECT_EQ(make_reporter("yaml"), nullptr);
}

TEST(ReportJson, RoundTripIsLossless) {
  const json first = testing::sample_report();
  const Report back = report_from_json(first);
  const json second = back;
  EXPECT_EQ(first, second) << "first:\n" << first.dump(2) << "\nsecond:\n" << second.dump(2);
  // And through the text form, as a saved report is read.
  EXPECT_EQ(json(report_from_json(json::parse(render(JsonReporter{}, back)))), first);
}

TEST(ReportJson, RejectsNewerSchemaVersionWithUpgradeHint) {
  json doc = testing::sample_report();
  doc["schema_version"] = kSchemaVersion + 1;
  try {
    report_from_json(doc);
    FAIL() << "a schema_version " << kSchemaVersion + 1 << " report was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("upgrade"), std::string::npos) << e.what();
  }
}

TEST(ReportJson, RejectsDocumentWithoutSchemaVersion) {
  json doc = testing::sample_report();
  doc.erase("schema_version");
  EXPECT_THROW(report_from_json(doc), std::exception);
}

TEST(ReportJson, MissingMetricStaysNull) {
  const json doc = testing::sample_report();
  const json& written = doc.at("probes").at(3).at("metrics").at("msg_rate_Mpps");
  ASSERT_TRUE(written.is_null()) << written;

  const Report back = report_from_json(doc);
  const Metric& metric = back.probes.at(3).metrics.at("msg_rate_Mpps");
  EXPECT_FALSE(metric.value.has_value());
  EXPECT_FALSE(metric.summary.has_value());
  EXPECT_FALSE(metric.typical().has_value());
  EXPECT_TRUE(json(back).at("probes").at(3).at("metrics").at("msg_rate_Mpps").is_null());
}

TEST(ReportJson, MetricKindsKeepTheirShape) {
  const Report back = report_from_json(json(testing::sample_report()));
  const Metric& bw = back.probes.at(3).metrics.at("bw_avg_GBps");
  ASSERT_TRUE(bw.value.has_value());
  EXPECT_FALSE(bw.summary.has_value());
  EXPECT_DOUBLE_EQ(*bw.value, 11.5);
  const Metric& lat = back.probes.at(2).metrics.at("lat_us");
  EXPECT_FALSE(lat.value.has_value());
  ASSERT_TRUE(lat.summary.has_value());
  EXPECT_EQ(lat.summary->n, 1000u);
  EXPECT_DOUBLE_EQ(lat.summary->p999, 7.5);
  EXPECT_DOUBLE_EQ(*lat.typical(), 2.125);
}

// ---- the schema -------------------------------------------------------------

class ReportSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = why_validator_cannot_run(); !why.empty()) GTEST_SKIP() << why;
  }

  // The sample report's JSON, changed by `edit`, written to a temporary file.
  static fs::path sample_with(const std::string& name, const std::function<void(json&)>& edit) {
    json doc = testing::sample_report();
    edit(doc);
    const fs::path path = temp_path(name);
    write_text(path, doc.dump(2));
    return path;
  }
};

TEST_F(ReportSchema, GoldenJsonIsValid) {
  const Validation out = validate_reports({kGoldenDir / "report.json"});
  EXPECT_EQ(out.exit_code, 0) << out.output;
}

TEST_F(ReportSchema, FreshlyRenderedJsonIsValid) {
  const fs::path path = temp_path("sample_report.json");
  write_text(path, render(JsonReporter{}, testing::sample_report()));
  const Validation out = validate_reports({path});
  EXPECT_EQ(out.exit_code, 0) << out.output;
}

TEST_F(ReportSchema, UsageErrorDocumentIsValid) {
  const fs::path path = temp_path("usage_error.json");
  fs::remove(path);
  report_usage_error("--profile: file not found: nope.toml", path.string());
  ASSERT_TRUE(fs::exists(path));
  const Validation out = validate_reports({path});
  EXPECT_EQ(out.exit_code, 0) << out.output;
}

TEST_F(ReportSchema, RejectsUnknownProbeStatus) {
  const Validation out =
      validate_reports({sample_with("bogus_status.json", [](json& doc) { doc["probes"][3]["status"] = "bogus"; })});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("$.probes[3].status"), std::string::npos) << out.output;
}

TEST_F(ReportSchema, RejectsStringWhereNumberBelongs) {
  const Validation out = validate_reports({sample_with("string_number.json", [](json& doc) {
    doc["probes"][3]["metrics"]["bw_avg_GBps"] = "11.5";
    doc["verdicts"][3]["reasons"][0]["threshold"] = "4";
  })});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("$.probes[3].metrics.bw_avg_GBps"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("$.verdicts[3].reasons[0].threshold"), std::string::npos) << out.output;
}

TEST_F(ReportSchema, FabricVerdictsAreValidAndShowInTheTable) {
  // Localisation's switch, uplink and path verdicts (health/fabric.h): entities without an action.
  auto fabric = [](json& doc) {
    doc["verdicts"][4]["entity"] = {{"kind", "uplink"}, {"id", "leaf1/mlx5_0:1"}};
    doc["verdicts"][4]["reasons"][0]["code"] = "FABRIC_UPLINK_BAD";
    json path = doc["verdicts"][4];
    path["entity"] = {{"kind", "path"}, {"id", "node[1-2]<->node[3-4]"}};
    json sw = doc["verdicts"][4];
    sw["entity"] = {{"kind", "switch"}, {"id", "leaf2"}};
    doc["verdicts"].push_back(path);
    doc["verdicts"].push_back(sw);
  };
  const Validation out = validate_reports({sample_with("fabric.json", fabric)});
  EXPECT_EQ(out.exit_code, 0) << out.output;
  json doc = testing::sample_report();
  fabric(doc);
  const std::string table = render(TableReporter{}, report_from_json(doc));
  for (const char* shown : {"uplink leaf1/mlx5_0:1", "path node[1-2]<->node[3-4]", "switch leaf2"})
    EXPECT_NE(table.find(shown), std::string::npos) << shown << " not in\n" << table;
}

TEST_F(ReportSchema, RejectsOtherContractBreaks) {
  const std::vector<std::pair<std::string, std::function<void(json&)>>> breaks{
      {"schema_version 5", [](json& d) { d["schema_version"] = 5; }},
      {"missing summary", [](json& d) { d.erase("summary"); }},
      {"extra key in a probe", [](json& d) { d["probes"][0]["extra"] = 1; }},
      {"probe id with capitals", [](json& d) { d["probes"][0]["id"] = "Net.Verbs"; }},
      {"stats without p999", [](json& d) { d["probes"][2]["metrics"]["lat_us"].erase("p999"); }},
      {"unknown entity kind", [](json& d) { d["verdicts"][0]["entity"]["kind"] = "spine"; }},
      {"action on a port", [](json& d) { d["verdicts"][2]["action"] = "drain"; }},
      {"exit code not matching state", [](json& d) { d["summary"]["exit_code"] = 0; }},
      {"missing value as a string", [](json& d) { d["hosts"][0]["gpus"][1]["memory_total_GiB"] = "n/a"; }},
      {"label value with a colon",
       [](json& d) { d["summary"]["kubernetes"]["node1"]["labels"]["ibgpu.io/usable-rails"] = "mlx5_0:1"; }},
      {"label value of 64 characters",
       [](json& d) { d["summary"]["kubernetes"]["node1"]["labels"]["ibgpu.io/state"] = std::string(64, 'a'); }},
      {"taint with an unknown effect",
       [](json& d) { d["summary"]["kubernetes"]["node2"]["taints"][0]["effect"] = "Evict"; }},
  };
  // One validator run for all of them: python starts slowly.
  std::vector<fs::path> files;
  for (std::size_t i = 0; i < breaks.size(); ++i)
    files.push_back(sample_with("break_" + std::to_string(i) + ".json", breaks[i].second));
  const Validation out = validate_reports(files);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  for (std::size_t i = 0; i < breaks.size(); ++i) {
    EXPECT_EQ(out.output.find(files[i].string() + ": valid"), std::string::npos)
        << breaks[i].first << " was not rejected:\n"
        << out.output;
    EXPECT_NE(out.output.find(files[i].string() + ": $"), std::string::npos)
        << breaks[i].first << ": no error with a JSON path:\n"
        << out.output;
  }
}

TEST_F(ReportSchema, UnreadableFileIsAUsageError) {
  const Validation out = validate_reports({temp_path("no_such_file.json")});
  EXPECT_EQ(out.exit_code, 2) << out.output;
}

}  // namespace
}  // namespace ibgpu
