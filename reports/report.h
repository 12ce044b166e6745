#pragma once
// The whole result of one run, as rank 0 renders it. The JSON Schema in
// reports/schema/report.schema.json is the contract for its JSON form.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "health/verdict.h"
#include "probes/inventory.h"
#include "probes/result.h"

namespace ibgpu {

inline constexpr int kSchemaVersion = 1;

struct ToolInfo {
  std::string name = "ibgpu";
  std::string version;
  std::string git;
};

struct RunInfo {
  std::string id;
  std::string started;   // RFC 3339, UTC
  std::string finished;  // RFC 3339, UTC
  std::vector<std::string> command;
  nlohmann::json profile = nlohmann::json::object();  // the thresholds actually applied
  std::optional<double> budget_s;
  int ranks = 1;
  std::vector<std::string> notes;  // what the run could not do, in words (e.g. ranks lost)
};

struct Report {
  int schema_version = kSchemaVersion;
  ToolInfo tool;
  RunInfo run;
  std::vector<HostInventory> hosts;
  std::vector<ProbeResult> probes;
  std::vector<Verdict> verdicts;
  RunSummary summary;
};

}  // namespace ibgpu
