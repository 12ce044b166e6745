#include "app/commands.h"
#include "health/judge.h"

namespace ibgpu {

int run_probe(MpiSession& session, const ProbeOptions& options) {
  Command command;
  command.run = [&](MpiSession& s) {
    RankResult mine;
    NetOptions net = options.net;
    net.sysfs_root = options.common.sysfs_root;
    mine.probes = run_network(s, net, options.common.timeout);
    return mine;
  };
  command.judge = [](Report& report) {
    report.summary = summarise_without_verdicts(report.probes, SkippedMeans::incomplete);
  };
  command.preflight = [&](MpiSession& s) { return network_preflight(s.world(), options.net); };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
