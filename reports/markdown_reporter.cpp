// A short Markdown summary for CI job summaries and chat: the run in one
// line, the admission table, and why anything is not healthy. Long lists are
// cut (the JSON report has everything).
#include <algorithm>

#include "core/text.h"
#include "reports/next_steps.h"
#include "reports/render_util.h"
#include "reports/reporter.h"
#include "reports/table_summary.h"

namespace ibgpu {

namespace {

constexpr std::size_t kMaxRows = 50;

// Text that Markdown would otherwise read as markup; control characters (a
// newline would end a table row) are escaped first.
std::string md(const std::string& text) {
  std::string out;
  for (char c : printable(text)) {
    if (std::string_view("\\`*_[]<>|#").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void admission_table(const Report& r, std::ostream& out) {
  std::vector<const Verdict*> nodes;
  for (const auto& v : r.verdicts)
    if (v.entity.kind() == EntityKind::node) nodes.push_back(&v);
  if (nodes.empty()) return;
  // The nodes that need a look first; the order of the report within a state.
  std::stable_sort(nodes.begin(), nodes.end(), [](const Verdict* a, const Verdict* b) { return a->state > b->state; });
  out << "\n| node | state | action | GPUs | rails | excluded |\n|---|---|---|---:|---:|---|\n";
  const PartCounts parts_count(r);
  for (std::size_t i = 0; i < nodes.size() && i < kMaxRows; ++i) {
    const Verdict& v = *nodes[i];
    out << "| " << md(v.entity.id()) << " | " << to_string(v.state) << " | " << (v.action ? to_string(*v.action) : "-")
        << " | " << parts_count(v, true) << " | " << parts_count(v, false) << " | "
        << (v.excluded.empty() ? "-" : md(join(v.excluded, ", "))) << " |\n";
  }
  if (nodes.size() > kMaxRows) out << "\n_and " << nodes.size() - kMaxRows << " more nodes (see the JSON report)_\n";
}

// What to do about each node not admitted, and whether anything was drained.
void next_steps(const Report& r, std::ostream& out) {
  const std::vector<NodeNextStep> nodes = nodes_not_admitted(r);
  if (nodes.empty()) return;
  out << "\n**Next steps** (the full advice per reason: `" << kFullAdvice << "`). " << md(actions_taken(r)) << "\n\n";
  for (std::size_t i = 0; i < nodes.size() && i < kMaxRows; ++i)
    out << "- **" << md(nodes[i].node->entity.id()) << "** (" << to_string(*nodes[i].node->action)
        << "): " << md(nodes[i].reason) << ": " << md(nodes[i].step) << '\n';
  if (nodes.size() > kMaxRows) out << "- _and " << nodes.size() - kMaxRows << " more_\n";
}

void reasons(const Report& r, HealthState state, const char* title, std::ostream& out) {
  std::vector<const Verdict*> hits;
  for (const auto& v : r.verdicts)
    if (v.state == state) hits.push_back(&v);
  if (hits.empty()) return;
  out << "\n**" << title << "** (" << hits.size() << ")\n\n";
  for (std::size_t i = 0; i < hits.size() && i < kMaxRows; ++i) {
    const Verdict& v = *hits[i];
    std::vector<std::string> lines;
    for (const auto& reason : v.reasons)
      lines.push_back(md(code_text(reason)) + (reason.message.empty() ? "" : ": " + md(reason.message)));
    out << "- " << md(to_string(v.entity.kind())) << " **" << md(v.entity.id()) << "**"
        << (lines.empty() ? std::string() : ": " + join(lines, "; ")) << '\n';
  }
  if (hits.size() > kMaxRows) out << "- _and " << hits.size() - kMaxRows << " more_\n";
}

// check --cabling: one order per cable to act on.
void work_orders(const Report& r, std::ostream& out) {
  if (r.work_orders.empty()) return;
  out << "\n**Work orders** (" << r.work_orders.size() << ", one per cable)\n\n";
  for (std::size_t i = 0; i < r.work_orders.size() && i < kMaxRows; ++i) {
    const std::vector<std::string> lines = work_order_lines(r.work_orders[i]);
    out << "- **" << md(lines[0]) << "**";
    for (std::size_t k = 1; k < lines.size(); ++k) out << (k == 1 ? ": " : "; ") << md(lines[k]);
    out << '\n';
  }
  if (r.work_orders.size() > kMaxRows) out << "- _and " << r.work_orders.size() - kMaxRows << " more_\n";
}

}  // namespace

void MarkdownReporter::render(const Report& r, std::ostream& out) const {
  const std::string command = r.run.command.size() > 1 ? r.run.command[1] : std::string("run");
  out << "### " << md(r.tool.name + " " + command) << ": " << to_string(r.summary.state) << " (exit "
      << r.summary.exit_code << ")\n\n";
  const std::string profile = r.run.profile.is_object() ? r.run.profile.value("name", std::string()) : std::string();
  out << "Run " << md(r.run.id) << ", " << md(r.tool.name + " " + r.tool.version + " (" + r.tool.git + ")") << ", "
      << count_text(r.run.ranks, "rank") << " on " << count_text(r.hosts.size(), "host") << ", " << md(r.run.started)
      << " to " << md(r.run.finished) << (profile.empty() ? "" : ", profile " + md(profile)) << ".\n";
  if (!r.verdicts.empty())
    out << "Admit " << r.summary.admit.size() << ", admit degraded " << r.summary.admit_degraded.size() << ", drain "
        << r.summary.drain.size() << ".\n";
  admission_table(r, out);
  next_steps(r, out);
  reasons(r, HealthState::failed, "Failed", out);
  reasons(r, HealthState::degraded, "Degraded", out);
  reasons(r, HealthState::unknown, "Unknown", out);
  work_orders(r, out);
  if (!r.run.notes.empty()) {
    out << "\n**Notes**\n\n";
    for (const auto& note : r.run.notes) out << "- " << md(note) << '\n';
  }
}

}  // namespace ibgpu
