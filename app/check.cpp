#include "app/commands.h"
#include "app/local_checks.h"
#include "health/judge.h"

namespace ibgpu {

int run_check(MpiSession& session, const CheckOptions& options) {
  Command command;
  command.run = [&](MpiSession& s) {
    RankResult mine = describe_host(s, options.common);
    const Sysfs sysfs(options.common.sysfs_root);
    std::optional<PortCounterWatch> counters;
    if (mine.inventory) {
      auto local = run_local_checks(*mine.inventory);
      mine.probes.insert(mine.probes.end(), local.begin(), local.end());
      counters.emplace(sysfs, *mine.inventory);
    }
    auto net = run_network(s, options.net, options.common.timeout_s);
    mine.probes.insert(mine.probes.end(), net.begin(), net.end());
    if (options.collectives) {
      CollectiveOptions allreduce = options.allreduce;
      allreduce.settings.timeout_s = options.common.timeout_s;
      auto sums = run_collectives(s, allreduce);
      mine.probes.insert(mine.probes.end(), sums.begin(), sums.end());
    }
    // Error counters over everything that moved data: the pair probes and the all-reduce.
    if (counters) {
      auto deltas = counters->finish();
      mine.probes.insert(mine.probes.end(), deltas.begin(), deltas.end());
    }
    return mine;
  };
  command.judge = [&](Report& report) {
    report.run.profile = to_json(options.profile);
    std::unordered_map<std::string, double> reference;
    if (options.baseline) {
      reference = options.baseline->medians();
      report.run.profile["baseline"] = {{"file", options.baseline_path},
                                        {"runs", options.baseline->runs.size()},
                                        {"kinds", options.baseline->kinds.size()}};
    }
    Judgement j = judge(report.hosts, report.probes, options.profile, options.baseline ? &reference : nullptr);
    report.verdicts = std::move(j.verdicts);
    report.summary = std::move(j.summary);
  };
  command.preflight = [&](MpiSession& s) {
    std::string problem = network_preflight(s.world(), options.net);
    if (problem.empty() && options.collectives) problem = collectives_preflight(s, options.allreduce);
    return problem;
  };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
