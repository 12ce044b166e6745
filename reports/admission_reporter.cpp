#include <algorithm>
#include <string>
#include <vector>

#include "reports/reporter.h"

namespace ibgpu {

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The summary's decision, not the verdict's action: an interrupted run keeps its verdicts but
// decides nothing.
const char* decided(const RunSummary& s, const std::string& node) {
  if (listed(s.admit, node)) return "admit";
  if (listed(s.admit_degraded, node)) return "admit_degraded";
  if (listed(s.drain, node)) return "drain";
  return "undecided";
}

}  // namespace

void AdmissionReporter::render(const Report& report, std::ostream& out) const {
  for (const Verdict& v : report.verdicts) {
    if (v.entity.kind() != EntityKind::node) continue;
    const std::vector<ReasonCode> found = reason_codes(v, Evidence::finding);
    const std::vector<ReasonCode> missing = reason_codes(v, Evidence::unchecked);
    std::string codes;
    for (const auto c : found) codes += (codes.empty() ? "" : ",") + std::string(to_string(c));
    if (!missing.empty()) codes += std::string(codes.empty() ? "" : ",") + "not-checked:";
    for (std::size_t i = 0; i < missing.size(); ++i) codes += (i ? "," : "") + std::string(to_string(missing[i]));
    if (!v.excluded.empty()) codes += std::string(codes.empty() ? "" : ",") + "excluded:";
    for (std::size_t i = 0; i < v.excluded.size(); ++i) codes += (i ? "," : "") + v.excluded[i];
    out << v.entity.id() << '\t' << decided(report.summary, v.entity.id()) << '\t' << to_string(v.state) << '\t'
        << (codes.empty() ? "-" : codes) << '\n';
  }
}

}  // namespace ibgpu
