#pragma once
// JSON form of the result model. Numbers stay numbers, units live in key
// names, missing values are null. Both directions exist: ranks ship their
// results to rank 0 as JSON, and saved reports are read back.
#include <nlohmann/json.hpp>

#include "core/inventory.h"
#include "core/report.h"

namespace ibgpu {

void to_json(nlohmann::json& j, const Stats& s);
void from_json(const nlohmann::json& j, Stats& s);
void to_json(nlohmann::json& j, const Metric& m);
void from_json(const nlohmann::json& j, Metric& m);
void to_json(nlohmann::json& j, const Metrics& m);
void from_json(const nlohmann::json& j, Metrics& m);
void to_json(nlohmann::json& j, const Scope& s);
void from_json(const nlohmann::json& j, Scope& s);
void to_json(nlohmann::json& j, const ProbeResult& p);
void from_json(const nlohmann::json& j, ProbeResult& p);
void to_json(nlohmann::json& j, const GpuInfo& g);
void from_json(const nlohmann::json& j, GpuInfo& g);
void to_json(nlohmann::json& j, const IbPort& p);
void from_json(const nlohmann::json& j, IbPort& p);
void to_json(nlohmann::json& j, const PciLink& l);
void from_json(const nlohmann::json& j, PciLink& l);
void to_json(nlohmann::json& j, const PciGpu& g);
void from_json(const nlohmann::json& j, PciGpu& g);
void to_json(nlohmann::json& j, const Hca& h);
void from_json(const nlohmann::json& j, Hca& h);
void to_json(nlohmann::json& j, const GpuHcaAffinity& a);
void from_json(const nlohmann::json& j, GpuHcaAffinity& a);
void to_json(nlohmann::json& j, const RailAssignment& a);
void from_json(const nlohmann::json& j, RailAssignment& a);
void to_json(nlohmann::json& j, const HostInventory& h);
void from_json(const nlohmann::json& j, HostInventory& h);
void to_json(nlohmann::json& j, const Verdict& v);
void from_json(const nlohmann::json& j, Verdict& v);
void to_json(nlohmann::json& j, const RunSummary& s);
void from_json(const nlohmann::json& j, RunSummary& s);
void to_json(nlohmann::json& j, const BurnInFigure& f);
void from_json(const nlohmann::json& j, BurnInFigure& f);
void to_json(nlohmann::json& j, const BurnInEntity& e);
void from_json(const nlohmann::json& j, BurnInEntity& e);
void to_json(nlohmann::json& j, const BurnInStats& s);
void from_json(const nlohmann::json& j, BurnInStats& s);
void to_json(nlohmann::json& j, const WorkOrder& o);
void from_json(const nlohmann::json& j, WorkOrder& o);
void to_json(nlohmann::json& j, const Report& r);
void from_json(const nlohmann::json& j, Report& r);

// Parses a saved report; a newer schema_version than this build knows is a
// clear error rather than a silent misreading.
Report report_from_json(const nlohmann::json& j);

// The parsed text of a file; std::runtime_error naming the file when it
// cannot be read or is not JSON.
nlohmann::json read_json_file(const std::string& path);
// The same checks on text at hand (`origin` names it in errors); throws InputError.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

}  // namespace ibgpu
