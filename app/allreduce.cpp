#include "app/commands.h"
#include "health/judge.h"

namespace ibgpu {

int run_allreduce_command(MpiSession& session, const AllReduceOptions& options) {
  CollectiveOptions collectives = options.collectives;
  collectives.settings.timeout = options.common.timeout;
  Command command;
  command.run = [&](MpiSession& s, LiveChannel& live) {
    RankResult mine;
    mine.probes = run_collectives(s, collectives, live);
    return mine;
  };
  // Wrong data fails the rank that saw it; a skipped backend leaves the run incomplete.
  command.judge = [](Report& report) {
    report.summary = summarise_without_verdicts(report.probes, SkippedMeans::incomplete);
  };
  command.preflight = [&](MpiSession& s) { return collectives_preflight(s, collectives); };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
