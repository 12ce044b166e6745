#include "probes/inventory.h"

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
  command.run = [&](MpiSession& s) { return describe_host(s, options.common); };
  command.judge = [](Report& report) {
    report.summary = summarise_without_verdicts(report.probes, SkippedMeans::fine);
  };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
