#include <cmath>
#include <filesystem>
#include <system_error>

#include "app/check_plan.h"
#include "app/commands.h"
#include "core/errors.h"
#include "core/units.h"
#include "health/profile_file.h"
#include "subcommand.h"

namespace ibgpu::cli {

namespace {

// The installed layout keeps profiles at <prefix>/share/ibgpu/profiles beside <prefix>/bin.
std::filesystem::path exe_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

// --detect 20%@0.95 (or 20%@95%): the slowdown and the chance to find it.
DetectTarget parse_detect(const std::string& text) {
  const auto at = text.find('@');
  auto fraction = [&](std::string part, const char* what) {
    const bool percent = !part.empty() && part.back() == '%';
    if (percent) part.pop_back();
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !std::isfinite(v))
      throw UsageError("--detect " + text + ": " + what + " is not a number (e.g. 20%@0.95)");
    v = percent ? v / 100 : v;
    if (v <= 0 || v >= 1)
      throw UsageError("--detect " + text + ": " + what + " must lie between 0 and 1 (0% and 100%)");
    return v;
  };
  if (at == std::string::npos) throw UsageError("--detect " + text + ": expected SLOW@POWER, e.g. 20%@0.95");
  return DetectTarget{fraction(text.substr(0, at), "the slowdown"), fraction(text.substr(at + 1), "the power")};
}

}  // namespace

// Every rank parses the same file before MPI starts, so a bad profile is the
// same usage error (exit 64) everywhere.
Profile load_profile(const std::string& spec) {
  try {
    return resolve_profile(spec, profile_search_dirs(exe_dir()));
  } catch (const ProfileError& e) {
    throw UsageError(std::string("profile: ") + e.what());
  }
}

std::function<void()> add_check_options(CLI::App* sub, const std::shared_ptr<CheckOptions>& options) {
  auto text = std::make_shared<NetCliText>();
  auto profile = std::make_shared<std::string>("generic");
  auto budget = std::make_shared<std::string>();
  auto detect = std::make_shared<std::string>();
  auto quick = std::make_shared<bool>(false);
  auto full = std::make_shared<bool>(false);
  auto allreduce_sizes = std::make_shared<std::string>();
  auto allreduce = std::make_shared<std::string>(to_string(options->allreduce.backend));
  auto skip = std::make_shared<std::vector<std::string>>();
  add_common_options(*sub, options->common);
  // The help shows the standard preset's defaults; the footer names the presets.
  const PresetDefaults standard = preset_defaults(CheckPreset::standard);
  options->net.settings.bw_sizes = standard.bw_sizes;
  options->net.settings.lat_iters = standard.lat_iters;
  add_net_options(*sub, options->net, *text);
  add_action_options(*sub, options->actions);
  sub->add_option("--allreduce", *allreduce,
                  "The all-reduce step after the network probes: nccl, mpi, auto (nccl where every rank "
                  "can run it, else mpi), or off")
      ->check(CLI::IsMember({"nccl", "mpi", "auto", "off"}))
      ->capture_default_str();
  sub->add_option("--allreduce-sizes", *allreduce_sizes,
                  "The all-reduce's message sizes, e.g. 1M,16M,1G (default: the preset's, 1M,16M), or `judged`: "
                  "the preset's and the size the profile's all-reduce floor is written for (1G in the HGX "
                  "profiles), run over that floor's backend only; a figure below that size is recorded, not "
                  "judged by the floor. The plan says what it adds")
      ->type_name("LIST|judged")
      ->check(non_empty_list());
  // Hidden (empty group): the tests have one rank report an all-reduce error, for its control to run.
  sub->add_option("--test-allreduce-error-rank", options->allreduce.test_error_rank)->group("");
  sub->add_option("--profile", *profile,
                  "Thresholds to judge by: a NAME (NAME.toml in $IBGPU_PROFILE_DIR, <prefix>/share/ibgpu/profiles "
                  "or the source tree's profiles/) or a FILE. Shipped: generic (no expectations), cpu (nodes without "
                  "GPUs or RDMA), hgx-h100-ndr, hgx-h200-ndr, a100-hdr, hgx-b200-ndr, hgx-b300-xdr, "
                  "gb200-nvl72-tray, gb300-nvl72-tray")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  sub->add_option("--skip", *skip,
                  "Local checks to leave out, not run and not judged (the report's notes say so): catalogue "
                  "ids or families, e.g. gpu.cuda (no GPU kernels: a health check beside running jobs), "
                  "node.kernel_log; `ibgpu probe list` names them")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--imex-root", options->imex_root,
                  "Read IMEX's files (/proc/devices, /dev/nvidia-caps-imex-channels, /etc/nvidia-imex, the "
                  "nvidia-imex process in /proc) under DIR instead of / (for tests and replays)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  sub->add_option("--retests", options->retests,
                  "Re-test passes: suspect pairs are measured again, and their hosts against known-good "
                  "hosts, within this launch (a degraded verdict needs a confirming re-test); 0: none")
      ->check(whole_number(0, 10))
      ->capture_default_str();
  auto* budget_option =
      sub->add_option("--budget", *budget,
                      "Fit the check into DURATION (90s, 15m, 2h): smaller sizes, one quick pair round, fewer "
                      "iterations, no all-reduce, as needed; what was dropped is printed and in the report's notes")
          ->type_name("DURATION");
  sub->add_option("--detect", *detect,
                  "Instead of a budget, a target: the cheapest pair plan (quick, peers:2..64, all) that finds a "
                  "node slowed by SLOW with chance POWER or more, at the profile's [confidence].default_noise "
                  "(the plan line's power: says what each plan finds); not with --budget or --pairs. E.g. 20%@0.95")
      ->type_name("SLOW@POWER")
      ->excludes(budget_option)
      ->excludes(sub->get_option("--pairs"));
  auto* quick_flag = sub->add_flag("--quick", *quick,
                                   "Preset: one pair round, bandwidth at 1M, 200 latency iterations, all-reduce "
                                   "at 1M (options given explicitly win)");
  sub->add_flag("--full", *full,
                "Preset: every pair, bandwidth 64K-64M, 10000 latency iterations, all-reduce 64K-256M and "
                "the profile's judged size (--allreduce-sizes judged), 2 re-test passes (options given "
                "explicitly win)")
      ->excludes(quick_flag);
  sub->add_option("--baseline", options->baseline_path,
                  "Judge the fleet rule against the medians of a baseline built from saved runs "
                  "(ibgpu report --baseline-out) for the kinds it has, instead of this run's own")
      ->type_name("FILE");
  auto topology = std::make_shared<std::string>();
  sub->add_option(
         "--topology", *topology,
         "Slurm's topology.conf, tree form (SwitchName=... Nodes=... Switches=...) or block form (BlockName=... "
         "Nodes=..., an NVL72 rack a block): localisation can then blame a leaf switch (or a block) or its "
         "uplinks, and drains no node for them; hosts it does not list are unplaced. "
         "--pairs peers:K adds a round in which each host meets a leaf-mate")
      ->type_name("FILE");
  sub->add_option("--cabling", options->cabling_path,
                  "The fabric's cabling as ibnetdiscover or iblinkinfo prints it (or an as-built file in "
                  "ibnetdiscover's form): every HCA port, link, uplink and host blamed for its pairs not admitted "
                  "healthy then gets a work order naming its cable and switch port, the error counters that "
                  "moved and the next act (read by rank 0 alone)")
      ->type_name("FILE");
  return [sub, options, text, profile, budget, detect, quick, full, skip, topology, allreduce_sizes, allreduce] {
    const PresetDefaults preset = preset_defaults(*quick  ? CheckPreset::quick
                                                  : *full ? CheckPreset::full
                                                          : CheckPreset::standard);
    auto given = [&](const char* name) { return sub->get_option(name)->count() > 0; };
    if (!given("--sizes") && !given("--min") && !given("--max")) options->net.settings.bw_sizes = preset.bw_sizes;
    if (!given("--iters")) options->net.settings.lat_iters = preset.lat_iters;
    if (!given("--retests")) options->retests = preset.retests;
    options->allreduce.settings.sizes = preset.allreduce_sizes;
    options->allreduce.settings.iters = preset.allreduce_iters;
    const bool to_floor = given("--allreduce-sizes") ? *allreduce_sizes == "judged" : *full;
    if (given("--allreduce-sizes") && !to_floor) {
      try {
        options->allreduce.settings.sizes = parse_sizes(*allreduce_sizes);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--allreduce-sizes: ") + e.what() + " (a list such as 1M,16M,1G, or judged)");
      }
      validate_sizes(options->allreduce.settings.sizes, "all-reduce", kMaxAllReduceSize);
    }
    if (!budget->empty()) {
      try {
        options->budget = Seconds(parse_duration(*budget));
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--budget: ") + e.what());
      }
    }
    if (given("--detect")) options->detect = parse_detect(*detect);
    finish_net_options(options->net, *text);
    if (!given("--pairs")) options->net.pairs.mode = preset.pairs;
    options->allreduce.settings.time_cap_s = options->net.settings.time_cap_s;
    // CLI::IsMember let through the backends' words and "off", the step left out.
    options->collectives = *allreduce != "off";
    if (options->collectives) options->allreduce.backend = *collective_backend_from_string(*allreduce);
    options->profile = load_profile(*profile);
    if (to_floor) sweep_to_floor(options->allreduce, options->profile.allreduce);
    options->skip = parse_local_skips(*skip);
    if (!options->baseline_path.empty()) options->baseline = load_baseline(options->baseline_path);
    if (!topology->empty()) options->topology = load_topology(*topology);
  };
}

Subcommand add_check(CLI::App& parent) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* sub = parent.add_subcommand("check", "Check every host and link and decide which nodes the pool may admit");
  auto validate = add_check_options(sub, options);
  sub->add_option("--history", options->history_dir,
                  "Keep each node's outcome in DIR (one file per node, created if absent) and let its earlier "
                  "checks decide under the profile's [history] rules: a first transient of a measurement between "
                  "hosts is admitted with a watch, a node bad in 3 of its last 6 checks (flapping) or bad again "
                  "within 7 days of coming back from a drain (a lemon) is not admitted. `ibgpu history --history "
                  "DIR` shows them")
      ->type_name("DIR");
  sub->footer(
      "Steps: inventory and local health, network pairs per rail (with progress per round on\n"
      "stderr), re-tests of suspect pairs, the all-reduce, verdicts and admission.\n"
      "Exit codes follow the admission (docs/verdicts.md): 0 every node admitted healthy, 1 some\n"
      "admitted degraded (or a finding on the fabric), 2 some node not admitted for a finding, 3 some\n"
      "node not decided because a check is missing (never 0), 64 a usage error.\n"
      "With the generic profile, a host without a GPU driver or without an RDMA device cannot have\n"
      "those checks run: it is `unknown` and not admitted; on CPU-only nodes use --profile cpu. A step\n"
      "that ibgpu's own time cap or --budget dropped is recorded as not judged, never held against a\n"
      "node.\n"
      "Example: mpirun -np 16 --hostfile hosts ibgpu check --json report.json");
  return {sub, [options](MpiSession& s) { return run_check(s, *options); }, validate, &options->common};
}

}  // namespace ibgpu::cli
