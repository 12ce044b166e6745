#include "probes/inventory.h"

#include <algorithm>
#include <cstdlib>

#include "app/commands.h"
#include "health/judge.h"
#include "probes/sysfs.h"

namespace ibgpu {

RankResult describe_host(const MpiSession& session, const CommonOptions& options) {
  RankResult mine;
  if (session.world().self().local_rank != 0) return mine;
  const World& world = session.world();
  InventoryOutcome found =
      collect_inventory(Sysfs(options.sysfs_root), world.host(), static_cast<int>(world.ranks_on(world.host()).size()),
                        std::getenv("CUDA_VISIBLE_DEVICES"));
  mine.inventory = std::move(found.host);
  mine.probes = std::move(found.probes);
  return mine;
}

int run_inventory(MpiSession& session, const InventoryOptions& options) {
  Command command;
  command.run = [&](MpiSession& s, LiveChannel&) { return describe_host(s, options.common); };
  command.judge = [](Report& report) {
    report.summary = summarise_without_verdicts(report.probes, SkippedMeans::fine);
    // A host without GPUs and RDMA devices has nothing for the inventory to vouch for: found
    // nothing is not healthy.
    const bool nothing = std::all_of(report.hosts.begin(), report.hosts.end(), [](const HostInventory& h) {
      return h.gpus.empty() && h.pci_gpus.empty() && h.hcas.empty();
    });
    if (nothing && report.summary.state == HealthState::healthy) {
      report.summary.state = HealthState::unknown;
      report.summary.exit_code = exit_code_for(HealthState::unknown);
      report.run.notes.push_back(std::string("nothing to check: no GPU and no RDMA device found on ") +
                                 (report.hosts.size() == 1 ? "the host" : "any host") + " (exit 3, not healthy)");
    }
  };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
