#include "app/commands.h"
#include "subcommand.h"

namespace ibgpu::cli {

namespace {

Subcommand add_kind(CLI::App& probe, const char* name, const char* description, bool bandwidth) {
  auto options = std::make_shared<ProbeOptions>();
  auto text = std::make_shared<NetCliText>();
  options->net.bandwidth = bandwidth;
  options->net.latency = !bandwidth;
  CLI::App* sub = probe.add_subcommand(name, description);
  add_common_options(*sub, options->common);
  add_net_options(*sub, options->net, *text, bandwidth ? "bandwidth" : "latency");
  sub->footer(std::string("Exit codes: 0 every pair measured, 2 a probe failed, 3 incomplete (a pair timed out,\n"
                          "a rank was lost, or a measurement was skipped, e.g. no RDMA device), 64 usage error.\n") +
              (bandwidth ? "Example: mpirun -np 4 --hostfile hosts ibgpu probe bw --sizes 64K,8M --json bw.json"
                         : "Example: mpirun -np 4 --hostfile hosts ibgpu probe lat --sizes 8 --iters 10000"));
  return {sub, [options](MpiSession& s) { return run_probe(s, *options); },
          [options, text] { finish_net_options(options->net, *text); }, &options->common};
}

}  // namespace

std::vector<Subcommand> add_probe(CLI::App& parent) {
  CLI::App* probe = parent.add_subcommand(
      "probe", "Ad-hoc point-to-point measurements across all launched ranks (perftest-like, every pair)");
  probe->require_subcommand(1);
  return {add_kind(*probe, "bw", "Bandwidth between every pair of hosts, per rail", true),
          add_kind(*probe, "lat", "Latency between every pair of hosts, per rail", false)};
}

}  // namespace ibgpu::cli
