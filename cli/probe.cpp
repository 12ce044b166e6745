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
  add_net_options(*sub, options->net, *text);
  sub->footer(std::string("Exit codes: 0 every pair measured, 2 a probe failed, 3 incomplete (a pair timed out,\n"
                          "a rank was lost, or a measurement was skipped, e.g. no RDMA device), 64 usage error.\n") +
              (bandwidth ? "Example: mpirun -np 4 --hostfile hosts ibgpu probe bw --sizes 64K,8M --json bw.json"
                         : "Example: mpirun -np 4 --hostfile hosts ibgpu probe lat --sizes 8 --iters 10000"));
  Subcommand s{sub, [options](MpiSession& session) { return run_probe(session, *options); },
               [options, text] { finish_net_options(options->net, *text); }, &options->common};
  return s;
}

Subcommand add_list(CLI::App& probe) {
  auto options = std::make_shared<ProbeListOptions>();
  CLI::App* sub = probe.add_subcommand(
      "list",
      "The probe catalogue: every kind of probe, what it is judged by, and whether it can run on this host "
      "(and if not why); no MPI, nothing measured");
  sub->add_option("--json", options->common.json_path,
                  "Also write the catalogue as JSON to FILE (atomically), or to stdout with '-' (then no table)")
      ->type_name("FILE");
  sub->add_option("--sysfs-root", options->common.sysfs_root, "Read RDMA devices from this sysfs tree")
      ->type_name("DIR")
      ->capture_default_str();
  sub->footer(
      "Exit codes: 0 listed, 64 usage error.\nExample: ibgpu probe list --json - | jq '.kinds[] | select(.runnable | "
      "not)'");
  Subcommand s{sub, nullptr, [] {}, &options->common};
  s.run_without_mpi = [options] { return run_probe_list(*options); };
  return s;
}

}  // namespace

std::vector<Subcommand> add_probe(CLI::App& parent) {
  CLI::App* probe = parent.add_subcommand(
      "probe", "Ad-hoc point-to-point measurements across all launched ranks (perftest-like, every pair)");
  probe->require_subcommand(1);
  return {add_kind(*probe, "bw", "Bandwidth between every pair of hosts, per rail", true),
          add_kind(*probe, "lat", "Latency between every pair of hosts, per rail", false), add_list(*probe)};
}

}  // namespace ibgpu::cli
