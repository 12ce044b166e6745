#pragma once
// Golden-file helpers shared by the report tests. Header-only: the test build
// globs only *_test.cpp files.
//
// After an intended change to an output, regenerate the files with
//   IBGPU_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden
// and review the difference with git diff.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "reports/reporter.h"

namespace ibgpu::golden {

namespace fs = std::filesystem;

inline const fs::path kGoldenDir = fs::path(IBGPU_TEST_DATA) / "golden";

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string render(const Reporter& reporter, const Report& report) {
  std::ostringstream out;
  reporter.render(report, out);
  return out.str();
}

// Private to this process: other builds of these tests may run at the same time.
inline fs::path temp_path(const std::string& name) {
  return fs::path(::testing::TempDir()) / ("ibgpu_" + std::to_string(::getpid()) + "_" + name);
}

inline bool updating_golden() {
  const char* flag = std::getenv("IBGPU_UPDATE_GOLDEN");
  return flag && std::string(flag) == "1";
}

// Says where the texts first differ, so a failure reads without a diff tool.
inline std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, el));
    const bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e && !more_a) return "texts differ only in the final newline";
    if (!more_e || !more_a || el != al)
      return "first difference at line " + std::to_string(line) + "\n  golden: " + (more_e ? el : "<end>") +
             "\n  actual: " + (more_a ? al : "<end>");
  }
}

// Compares with the golden file, or rewrites it when IBGPU_UPDATE_GOLDEN=1.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const fs::path path = kGoldenDir / name;
  if (updating_golden()) {
    write_text(path, actual);
    GTEST_SKIP() << "IBGPU_UPDATE_GOLDEN=1: rewrote " << path << " (nothing compared); review it with git diff";
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; create it with IBGPU_UPDATE_GOLDEN=1";
  const std::string expected = read_text(path);
  EXPECT_TRUE(expected == actual)
      << name << " differs from the golden file " << path << ": " << first_difference(expected, actual)
      << "\nIf the change is intended, rerun with IBGPU_UPDATE_GOLDEN=1 and review git diff.";
}

// The report schema and the repository's validator, run with the system python (the one whose
// jsonschema module CI installs).
inline const fs::path kReportSchema = fs::path(IBGPU_SOURCE_DIR) / "reports/schema/report.schema.json";
inline const fs::path kSchemaValidator = fs::path(IBGPU_SOURCE_DIR) / "tests/tools/validate_json.py";
inline constexpr const char* kPython = "/usr/bin/python3";

// Empty when the validator can run here, else why not.
inline std::string why_validator_cannot_run() {
  if (!fs::exists(kPython)) return std::string(kPython) + " not found";
  const std::string probe = std::string(kPython) + " -c 'import jsonschema' > /dev/null 2>&1";
  if (std::system(probe.c_str()) != 0)
    return std::string("python module jsonschema missing for ") + kPython + " (apt-get install python3-jsonschema)";
  return "";
}

struct Validation {
  int exit_code = -1;
  std::string output;  // the validator's lines: "FILE: valid" or "FILE: PATH: why"
};

// Validates FILES against the report schema, in one run of the validator.
inline Validation validate_reports(const std::vector<fs::path>& files) {
  // One log per test: ctest may run the tests in parallel.
  const fs::path log = temp_path(std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".log");
  std::string command = std::string(kPython) + " '" + kSchemaValidator.string() + "' '" + kReportSchema.string() + "'";
  for (const auto& f : files) command += " '" + f.string() + "'";
  command += " > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  Validation out;
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.output = read_text(log);
  return out;
}

}  // namespace ibgpu::golden
