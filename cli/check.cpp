#include "app/commands.h"
#include "subcommand.h"

namespace ibgpu::cli {

Subcommand add_check(CLI::App& parent) {
  auto options = std::make_shared<CheckOptions>();
  auto text = std::make_shared<NetCliText>();
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
  sub->footer(
      "With the generic profile, a host without a GPU driver or without an RDMA device cannot have\n"
      "those checks run: they are `unknown` and the exit code is 3, never 0.\n"
      "Example: mpirun -np 16 --hostfile hosts ibgpu check --json report.json");
  return {sub,
          [options](MpiSession& s) { return run_check(s, *options); },
          [options, text] {
            finish_net_options(options->net, *text);
            options->collectives = options->allreduce.backend != "off";
          },
          &options->common};
}

}  // namespace ibgpu::cli
