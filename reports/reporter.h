#pragma once
// Every output format implements one interface: a pure function of the
// report onto a stream. Only rank 0 renders.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/report.h"
#include "reports/text_table.h"

namespace ibgpu {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void render(const Report& report, std::ostream& out) const = 0;
};

// The answer first (verdict counts, the nodes not admitted and what to do),
// then the details. Past a size (reports/table_summary.h) the details show
// what needs a look and say where the rest is, unless asked for in full.
class TableReporter final : public Reporter {
 public:
  enum class Detail { fit, full };
  // `line`: the terminal's columns to fit, where known (app/text.h terminal_width).
  explicit TableReporter(Detail detail = Detail::fit, LineWidth line = {}) : detail_(detail), line_(line) {}
  void render(const Report& report, std::ostream& out) const override;

 private:
  Detail detail_;
  LineWidth line_;
};

// Indented for people (a terminal, --format json); compact, one line, for files: a fleet's report
// is a third the size, and dashboards load it sooner.
class JsonReporter final : public Reporter {
 public:
  enum class Layout { indented, compact };
  explicit JsonReporter(Layout layout = Layout::indented) : layout_(layout) {}
  void render(const Report& report, std::ostream& out) const override;

 private:
  Layout layout_;
};

// Self-contained page: run facts, a bandwidth heatmap per rail, nodes, reasons.
class HtmlReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

// Prometheus text exposition for node_exporter's textfile collector: one
// gauge per entity and metric, states as labelled 0/1 gauges.
class PrometheusReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

// JUnit XML for CI: a testsuite per probe id and per verdict kind.
class JunitReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

// A short Markdown summary for CI job summaries and chat.
class MarkdownReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

// One line per node for admission scripts (Slurm health checks, Prologs):
// "NODE<TAB>ACTION<TAB>STATE<TAB>CODES", the action as the run's summary
// decided it (admit, admit_degraded, drain; undecided where the run decided
// nothing, as an interrupted one), the codes of its findings, then
// "not-checked:" and the codes of what is missing, then "excluded:" and the
// GPUs and rails it may not use; "-" for none.
class AdmissionReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

// nullptr for a name reporter_formats() does not list.
std::unique_ptr<Reporter> make_reporter(const std::string& format, LineWidth line = {});
std::vector<std::string> reporter_formats();
// Formats whose renderings of several reports may follow one another in one
// output (text meant for people); the others are one document per report.
bool reporter_concatenates(const std::string& format);

}  // namespace ibgpu
