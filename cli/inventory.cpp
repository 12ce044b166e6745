#include "app/commands.h"
#include "subcommand.h"

namespace ibgpu::cli {

Subcommand add_inventory(CLI::App& parent) {
  auto options = std::make_shared<InventoryOptions>();
  CLI::App* sub =
      parent.add_subcommand("inventory", "Describe every host: GPUs, RDMA devices and ports, CPUs, library versions");
  add_common_options(*sub, options->common);
  sub->footer(
      "Exit codes: 0 every rank reported, 2 a probe failed, 3 some rank sent nothing, or nothing to check\n"
      "(no GPU and no RDMA device on any host), 64 usage error.\n"
      "Example: mpirun -np 16 --hostfile hosts ibgpu inventory --json inventory.json");
  return {sub, [options](MpiSession& s) { return run_inventory(s, *options); }, [] {}, &options->common};
}

}  // namespace ibgpu::cli
