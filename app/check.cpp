#include "app/commands.h"
#include "health/judge.h"

namespace ibgpu {

int run_check(MpiSession& session, const CheckOptions& options) {
  Command command;
  command.run = [&](MpiSession& s) { return describe_host(s, options.common); };
  command.judge = [&](Report& report) {
    report.run.profile = to_json(options.profile);
    Judgement j = judge(report.hosts, report.probes, options.profile);
    report.verdicts = std::move(j.verdicts);
    report.summary = std::move(j.summary);
  };
  return execute(session, options.common, command);
}

}  // namespace ibgpu
