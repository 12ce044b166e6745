#include <cmath>
#include <filesystem>
#include <string>

#include "cluster/world.h"
#include "reports/reporter.h"
#include "subcommand.h"

namespace ibgpu::cli {

CLI::Validator finite_range(double min, double max) {
  // CLI::Range compares, and nan compares false with everything: it would pass.
  return CLI::Validator(
      [min, max](std::string& input) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(input, &used);
        } catch (const std::exception&) {
          return "'" + input + "' is not a number";
        }
        if (used != input.size() || !std::isfinite(value)) return "'" + input + "' is not a finite number";
        if (value < min || value > max) return out_of_range(input, min, max);
        return {};
      },
      range_help(min, max));
}

namespace {

// A report's path is refused before anything runs, not after an hour of measuring: a folder, or
// a file in a folder that does not exist ('-' is stdout). Only in a process launched alone: in a
// job of several ranks the first rank writes it, on a host whose folders the others may not have,
// and a refusal by one rank before MPI starts would leave the others waiting in the launcher.
CLI::Validator writable_file_path() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path == "-" || launcher_tasks_over(1)) return {};
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) return "'" + path + "' is a folder: give a file path";
        const auto folder = std::filesystem::path(path).parent_path();
        if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
          return "'" + path + "': no folder " + folder.string();
        return {};
      },
      "");
}

}  // namespace

void add_common_options(CLI::App& sub, CommonOptions& options) {
  sub.add_option("--json", options.json_path,
                 "Write the JSON report to FILE (atomically), or to stdout with '-' (then no table)")
      ->type_name("FILE")
      ->check(writable_file_path());
  sub.add_option("--prometheus", options.prometheus_path,
                 "Also write the report as Prometheus text to FILE (atomically, through a name not ending in "
                 ".prom): into the node exporter's textfile directory, e.g. "
                 "/var/lib/prometheus/node-exporter/ibgpu.prom")
      ->type_name("FILE")
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            return path == "-" ? "'-' is not a file: --format prometheus prints the text on stdout" : "";
          },
          ""))
      ->check(writable_file_path());
  sub.add_option("--format", options.format, "Terminal output format")
      ->check(CLI::IsMember(reporter_formats()))
      ->capture_default_str();
  sub.add_option("--sysfs-root", options.sysfs_root, "Read sysfs from DIR instead of /sys (for tests and replays)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  // Read as seconds, carried as a duration (core/waits.h).
  sub.add_option_function<double>(
         "--timeout", [&options](double seconds) { options.timeout = Seconds(seconds); },
         "Longest wait for any peer, in seconds; a silent rank becomes a `timeout` naming its host")
      ->check(finite_range(0.1, 86400.0))
      ->default_str(CLI::detail::to_string(options.timeout.count()));
  sub.add_flag("--quiet", options.quiet,
               "No live output on stderr (result rows, progress line); errors still print. Without it, "
               "rank 0 shows rows as they finish; IBGPU_PROGRESS=terminal|plain|off overrides whether "
               "stderr is taken for a terminal");
  // Hidden (empty group): lets the tests produce a hung rank on demand.
  sub.add_option("--test-stall-rank", options.test_stall_rank)->group("");
}

}  // namespace ibgpu::cli
