#include "reports/reporter.h"
#include "subcommand.h"

namespace ibgpu::cli {

void add_common_options(CLI::App& sub, CommonOptions& options) {
  sub.add_option("--json", options.json_path,
                 "Write the JSON report to FILE (atomically), or to stdout with '-' (then no table)")
      ->type_name("FILE");
  sub.add_option("--format", options.format, "Terminal output format")
      ->check(CLI::IsMember(reporter_formats()))
      ->capture_default_str();
  sub.add_option("--sysfs-root", options.sysfs_root, "Read sysfs from DIR instead of /sys (for tests and replays)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  sub.add_option("--timeout", options.timeout_s,
                 "Longest wait for any peer, in seconds; a silent rank becomes a `timeout` naming its host")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  // Hidden (empty group): lets the tests produce a hung rank on demand.
  sub.add_option("--test-stall-rank", options.test_stall_rank)->group("");
}

}  // namespace ibgpu::cli
