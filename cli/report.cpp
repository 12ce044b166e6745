#include "app/commands.h"
#include "core/errors.h"
#include "reports/reporter.h"
#include "subcommand.h"

namespace ibgpu::cli {

Subcommand add_report(CLI::App& parent) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* sub = parent.add_subcommand(
      "report", "Re-render, compare, or build a fleet baseline from saved JSON reports (no MPI, no probes)");
  sub->add_option("FILE", options->files,
                  "Saved JSON reports (--json of check, probe, inventory, allreduce); - reads one from stdin")
      ->type_name("FILE...");
  sub->add_option("--format", options->common.format,
                  "Output format; several FILEs render one after another with table and markdown only")
      ->check(CLI::IsMember(reporter_formats()))
      ->capture_default_str();
  sub->add_option("--output", options->output, "Write to FILE (atomically) instead of stdout")->type_name("FILE");
  sub->add_option("--compare", options->compare,
                  "What changed from OLD to NEW per entity: states, new and vanished entities, judged measurements "
                  "(bandwidth, latency, bus bandwidth) beyond --compare-threshold")
      ->expected(2)
      ->type_name("OLD NEW");
  sub->add_option("--compare-threshold", options->compare_threshold,
                  "Relative change of a measurement that counts (0.1 = 10%)")
      ->capture_default_str();
  sub->add_option("--json", options->common.json_path,
                  "With --compare: also write the comparison as JSON to FILE, or to stdout with '-' (then no table)")
      ->type_name("FILE");
  sub->add_option("--baseline-out", options->baseline_out,
                  "Build a fleet baseline from the saved runs FILE...: per measurement kind, the median of the values "
                  "whose entities were healthy (for check --baseline)")
      ->type_name("FILE");
  sub->footer(
      "Exit codes: 0 rendered / no change / baseline written, 1 --compare found changes,\n"
      "64 usage error or unreadable report (including one with a newer schema_version than this ibgpu reads).\n"
      "Examples:\n"
      "  ibgpu report out.json --format prometheus --output /var/lib/prometheus/node-exporter/ibgpu.prom\n"
      "  ssh node1 cat /var/tmp/ibgpu.json | ibgpu report - --format markdown\n"
      "  ibgpu report --compare monday.json tuesday.json --compare-threshold 0.05\n"
      "  ibgpu report --baseline-out fleet.json runs/*.json && ibgpu check --baseline fleet.json");
  auto validate = [options, sub] {
    // --format renders reports; a comparison and a baseline have one form each.
    if (sub->get_option("--format")->count() > 0 && (!options->compare.empty() || !options->baseline_out.empty()))
      throw UsageError(std::string("--format is for rendering reports; ") +
                       (options->compare.empty() ? "--baseline-out writes JSON"
                                                 : "--compare prints a table (and JSON with --json)"));
    check_report_options(*options);
  };
  Subcommand s{sub, nullptr, validate, &options->common};
  s.run_without_mpi = [options] { return run_report(*options); };
  return s;
}

}  // namespace ibgpu::cli
