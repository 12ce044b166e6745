#include <filesystem>
#include <system_error>

#include "app/commands.h"
#include "cluster/errors.h"
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

// Every rank parses the same file before MPI starts, so a bad profile is the
// same usage error (exit 64) everywhere.
Profile load_profile(const std::string& spec) {
  try {
    return resolve_profile(spec, profile_search_dirs(exe_dir()));
  } catch (const ProfileError& e) {
    throw UsageError(std::string("profile: ") + e.what());
  }
}

}  // namespace

Subcommand add_check(CLI::App& parent) {
  auto options = std::make_shared<CheckOptions>();
  auto text = std::make_shared<NetCliText>();
  auto profile = std::make_shared<std::string>("generic");
  options->net.settings.bw_sizes = {1 << 20, 8 << 20};
  CLI::App* sub = parent.add_subcommand(
      "check", "Check every host and link and decide which nodes the pool may admit");
  add_common_options(*sub, options->common);
  add_net_options(*sub, options->net, *text, "the network probes");
  sub->add_option("--allreduce", options->allreduce.backend,
                  "The all-reduce step after the network probes: nccl, mpi, auto (nccl where every rank "
                  "can run it, else mpi), or off")
      ->check(CLI::IsMember({"nccl", "mpi", "auto", "off"}))
      ->capture_default_str();
  sub->add_option("--profile", *profile,
                  "Thresholds to judge by: a NAME (NAME.toml in $IBGPU_PROFILE_DIR, <prefix>/share/ibgpu/profiles "
                  "or the source tree's profiles/) or a FILE; generic, hgx-h100-ndr, hgx-h200-ndr, a100-hdr ship")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  sub->add_option("--baseline", options->baseline_path,
                  "Judge the fleet rule against the medians of a baseline built from saved runs "
                  "(ibgpu report --baseline-out) for the kinds it has, instead of this run's own")
      ->type_name("FILE");
  sub->footer(
      "With the generic profile, a host without a GPU driver or without an RDMA device cannot have\n"
      "those checks run: they are `unknown` and the exit code is 3, never 0.\n"
      "Example: mpirun -np 16 --hostfile hosts ibgpu check --json report.json");
  return {sub,
          [options](MpiSession& s) { return run_check(s, *options); },
          [options, text, profile] {
            finish_net_options(options->net, *text);
            options->collectives = options->allreduce.backend != "off";
            options->profile = load_profile(*profile);
            if (!options->baseline_path.empty()) options->baseline = load_baseline(options->baseline_path);
          },
          &options->common};
}

}  // namespace ibgpu::cli
