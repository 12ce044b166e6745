#include "reports/json.h"
#include "reports/reporter.h"

namespace ibgpu {

void JsonReporter::render(const Report& report, std::ostream& out) const {
  out << nlohmann::json(report).dump(2) << '\n';
}

std::unique_ptr<Reporter> make_reporter(const std::string& format) {
  if (format == "table") return std::make_unique<TableReporter>();
  if (format == "json") return std::make_unique<JsonReporter>();
  return nullptr;
}

std::vector<std::string> reporter_formats() { return {"table", "json"}; }

}  // namespace ibgpu
