// Errors in saved reports name the place and what was expected, in the reader's words.
#include "reports/json_errors.h"

#include <gtest/gtest.h>

#include "core/bounded_input.h"
#include "reports/json.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using nlohmann::json;

std::string error_of(const json& doc) {
  try {
    report_from_json(doc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonErrors, SaysWhatWasExpectedInTheReadersWords) {
  EXPECT_EQ(describe_json_error("[json.exception.type_error.302] type must be string, but is null"),
            "expected a string, found null");
  EXPECT_EQ(describe_json_error("[json.exception.type_error.302] type must be array, but is object"),
            "expected an array, found an object");
  EXPECT_EQ(describe_json_error("[json.exception.out_of_range.403] key 'exit_code' not found"),
            "missing member 'exit_code'");
  EXPECT_EQ(describe_json_error("[json.exception.type_error.304] cannot use at() with array"),
            "expected an object, found an array");
  EXPECT_EQ(describe_json_error("unknown verdict state 'fine'"), "unknown verdict state 'fine'");
  EXPECT_EQ(describe_parse_error("[json.exception.parse_error.101] parse error at line 2, column 1: syntax error "
                                 "while parsing array - unexpected end of input; expected ']'"),
            "line 2, column 1: unexpected end of input; expected ']' (in an array)");
}

TEST(JsonErrors, NameThePlaceOfTheWrongMember) {
  const json good = json(testing::sample_report());
  ASSERT_EQ(error_of(good), "no error");
  json doc = good;
  doc["probes"][1]["status"] = nullptr;
  EXPECT_EQ(error_of(doc), "at /probes/1/status: expected a string, found null");
  doc = good;
  doc["verdicts"][0]["entity"]["kind"] = 7;
  EXPECT_EQ(error_of(doc), "at /verdicts/0/entity/kind: expected a string, found a number");
  doc = good;
  doc["verdicts"][0]["entity"].erase("id");
  EXPECT_EQ(error_of(doc), "at /verdicts/0/entity: missing member 'id'");
  doc = good;
  doc["summary"].erase("exit_code");
  EXPECT_EQ(error_of(doc), "at /summary: missing member 'exit_code'");
  doc = good;
  doc["tool"]["name"] = false;
  EXPECT_EQ(error_of(doc), "at /tool/name: expected a string, found a boolean");
  doc = good;
  doc["hosts"] = json::array({json::array()});
  EXPECT_EQ(error_of(doc), "at /hosts/0: expected an object, found an array");
}

TEST(JsonErrors, TwoWrongMembersNameTheirElement) {
  json doc = json(testing::sample_report());
  doc["probes"][0]["status"] = nullptr;
  doc["probes"][0]["id"] = nullptr;
  EXPECT_EQ(error_of(doc), "at /probes/0: expected a string, found null");
}

}  // namespace
}  // namespace ibgpu
