#include "app/commands.h"
#include "health/judge.h"
#include "probes/inventory.h"

namespace ibgpu {

int run_probe(MpiSession& session, const ProbeOptions& options) {
  Command command;
  command.run = [&](MpiSession& s, LiveChannel& live) {
    RankResult mine;
    NetOptions net = options.net;
    net.sysfs_root = options.common.sysfs_root;
    mine.probes = run_network(s, net, options.common.timeout, live);
    return mine;
  };
  command.judge = [](Report& report) {
    report.summary = summarise_without_verdicts(report.probes, SkippedMeans::incomplete);
  };
  command.preflight = [&](MpiSession& s) {
    // An --hca this host lacks is refused before anything runs, naming what it has (--hca is for verbs).
    if (options.net.transport != NetTransport::mpi)
      if (std::string problem = hca_preflight(options.net.hca, Sysfs(options.common.sysfs_root), s.world().host());
          !problem.empty())
        return problem;
    return network_preflight(s.world(), options.net);
  };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
