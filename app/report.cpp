// `ibgpu report`: saved JSON reports re-rendered, compared, or folded into a
// fleet baseline. No MPI: it runs on a laptop as well as on a login node.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "app/commands.h"
#include "app/text.h"
#include "core/bounded_input.h"
#include "core/errors.h"
#include "health/compare.h"
#include "reports/atomic_file.h"
#include "reports/compare.h"
#include "reports/json.h"
#include "reports/json_errors.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

constexpr const char* kStdinName = "stdin";

// A saved file, or stdin for "-", under the same bound.
nlohmann::json read_json_input(const std::string& path) {
  if (path != "-") return read_json_file(path);
  return parse_json_text(read_bounded_stream(STDIN_FILENO, kReportMaxBytes, kStdinName), kStdinName);
}

// Every file is read before anything is written: one bad file loses nothing.
std::vector<Report> load_reports(const std::vector<std::string>& paths) {
  std::vector<Report> out;
  for (const auto& path : paths) {
    const std::string name = path == "-" ? kStdinName : path;
    try {
      out.push_back(report_from_json(read_json_input(path)));
    } catch (const UsageError&) {
      throw;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      throw UsageError(what.rfind(name + ":", 0) == 0 ? what : name + ": " + what);
    }
  }
  return out;
}

void require_writable(const std::string& path, const char* option) {
  if (path.empty() || path == "-") return;
  if (const std::string why = why_not_writable(path); !why.empty()) throw UsageError(std::string(option) + ": " + why);
}

void emit(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return;
  }
  write_atomically(path, [&](std::ostream& out) { out << text; });
}

int render_all(const ReportOptions& o) {
  const std::vector<Report> reports = load_reports(o.files);
  // Laid out for the terminal it is shown on; a file keeps every column.
  const bool to_stdout = o.output.empty() || o.output == "-";
  const auto columns = to_stdout ? terminal_width() : std::nullopt;
  const auto reporter = make_reporter(o.common.format, columns ? LineWidth{*columns, true} : LineWidth{});
  std::ostringstream text;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i) text << '\n';
    reporter->render(reports[i], text);
  }
  emit(o.output, text.str());
  return 0;
}

int compare(const ReportOptions& o) {
  const std::vector<Report> runs = load_reports(o.compare);
  const Comparison c = compare_reports(runs[0], runs[1], o.compare_threshold);
  // With --json - the table goes to --output when it names a file, else nowhere: stdout is the JSON's.
  if (o.common.json_path != "-" || !o.output.empty()) {
    std::ostringstream table;
    print_comparison(c, table);
    emit(o.output, table.str());
  }
  if (!o.common.json_path.empty()) emit(o.common.json_path, to_json(c).dump(2) + "\n");
  return c.changes.empty() ? 0 : 1;
}

int make_baseline(const ReportOptions& o) {
  const std::vector<Report> runs = load_reports(o.files);
  const Baseline b = build_baseline(runs);
  if (b.kinds.empty())
    throw UsageError("--baseline-out: no measurement of a healthy entity in " + std::to_string(runs.size()) +
                     (runs.size() == 1 ? " run" : " runs") + ": nothing to build a baseline from");
  emit(o.baseline_out, to_json(b).dump(2) + "\n");
  std::cout << "baseline " << o.baseline_out << ": " << b.kinds.size() << " measurement kinds from " << runs.size()
            << (runs.size() == 1 ? " run\n" : " runs\n");
  return 0;
}

}  // namespace

void check_report_options(const ReportOptions& o) {
  const bool comparing = !o.compare.empty(), baseline = !o.baseline_out.empty();
  const auto inputs = comparing ? o.compare : o.files;
  if (std::count(inputs.begin(), inputs.end(), "-") > 1) throw UsageError("stdin ('-') can be read once: give files");
  if (comparing && baseline) throw UsageError("--compare and --baseline-out are separate uses of `report`: give one");
  if (comparing) {
    if (o.compare.size() != 2) throw UsageError("--compare takes two files: OLD NEW");
    if (!o.files.empty()) throw UsageError("--compare OLD NEW takes no other FILE (got " + o.files.front() + ")");
    if (o.compare_threshold < 0) throw UsageError("--compare-threshold must be 0 or more");
  } else {
    if (o.files.empty())
      throw UsageError(baseline ? "--baseline-out FILE needs the saved runs: RUN..." : "no FILE to render");
    if (!o.common.json_path.empty())
      throw UsageError("--json is for --compare; to render a report as JSON use --format json");
  }
  if (baseline) {
    if (o.baseline_out == "-") throw UsageError("--baseline-out needs a file name");
    if (!o.output.empty()) throw UsageError("--baseline-out FILE is the output; --output does not apply");
    require_writable(o.baseline_out, "--baseline-out");
  }
  if (!comparing && !baseline && o.files.size() > 1 && !reporter_concatenates(o.common.format))
    throw UsageError("--format " + o.common.format + " is one document per report: render the " +
                     std::to_string(o.files.size()) + " files one at a time");
  require_writable(o.output, "--output");
  require_writable(o.common.json_path, "--json");
}

int run_report(const ReportOptions& o) {
  check_report_options(o);
  if (!o.compare.empty()) return compare(o);
  if (!o.baseline_out.empty()) return make_baseline(o);
  return render_all(o);
}

Baseline load_baseline(const std::string& path) {
  try {
    return baseline_from_json(read_json_file(path));
  } catch (const nlohmann::json::exception& e) {  // a member of the wrong type or missing
    throw UsageError("--baseline " + path + ": " + describe_json_error(e.what()));
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw UsageError("--baseline " + (what.rfind(path, 0) == 0 ? what : path + ": " + what));
  }
}

FabricTopology load_topology(const std::string& path) {
  try {
    return read_topology_conf(path);
  } catch (const InputError& e) {
    throw UsageError(std::string("--topology ") + e.what());
  }
}

}  // namespace ibgpu
