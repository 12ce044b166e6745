#include <memory>

#include "app/commands.h"
#include "health/profile_file.h"
#include "subcommand.h"

namespace ibgpu::cli {

Subcommand add_history(CLI::App& parent) {
  auto options = std::make_shared<HistoryOptions>();
  auto profile = std::make_shared<std::string>("generic");
  CLI::App* sub = parent.add_subcommand(
      "history",
      "What the checks kept by `check --history DIR` say of each node: flapping, lemons, time between "
      "failures (no MPI)");
  sub->add_option("NODE", options->nodes, "Nodes to show check by check; none: one row per node of the fleet")
      ->type_name("NODE...");
  sub->add_option("--history", options->dir, "The folder `check --history` keeps the checks in")
      ->type_name("DIR")
      ->required()
      ->check(CLI::ExistingDirectory);
  sub->add_option("--profile", *profile, "Whose [history] rules say flapping and lemon: a NAME or FILE, as for check")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  sub->add_option("--json", options->common.json_path,
                  "Write it as JSON to FILE (atomically), or to stdout with '-' (then no table); with NODE, "
                  "each node's checks too")
      ->type_name("FILE");
  sub->footer(
      "A check is bad when its node was degraded or failed by its own evidence; `says` is what the\n"
      "history makes of the node's last check: flapping (bad in flapping_bad of its last window\n"
      "checks) or lemon (bad again within lemon_days of coming back from a drain); a failure is a\n"
      "bad check after a clean one. `says` is worked out again under --profile's rules; the\n"
      "report of each check says what that check decided. Exit codes: 0 shown, 1 shown but some\n"
      "file could not be read (said on stderr), or stdout failed; 64 a usage error.\n"
      "Examples:\n"
      "  ibgpu history --history /var/lib/ibgpu/history\n"
      "  ibgpu history --history /var/lib/ibgpu/history node17 --json -");
  auto validate = [options, profile] { options->profile = load_profile(*profile); };
  Subcommand s{sub, nullptr, validate, &options->common};
  s.run_without_mpi = [options] { return run_history(*options); };
  return s;
}

}  // namespace ibgpu::cli
