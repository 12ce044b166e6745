// ibgpu: checks GPU nodes and their RDMA fabric before they join a pool.
#include <chrono>
#include <iostream>
#include <string_view>
#include <thread>

#include "build_info.h"
#include "core/errors.h"
#include "core/verdict.h"
#include "reports/render_util.h"
#include "subcommand.h"

namespace {

constexpr const char* kExitCodes =
    "Exit codes follow the admission the run decided (docs/verdicts.md):\n"
    "  0   every node admitted healthy\n"
    "  1   some node admitted degraded (without the GPUs and rails it excludes), or a finding on the fabric\n"
    "  2   some node not admitted for a finding (below a floor, wrong data, an error, a missing device)\n"
    "  3   some node not decided: a check is missing because of the node (or a rank was lost, or the run\n"
    "      was interrupted); never reported as healthy\n"
    "  64  usage or configuration error, before anything runs\n"
    "Launch with MPI, one rank per GPU: mpirun -np 16 --hostfile hosts ibgpu check";

std::string version_text() {
  return std::string("ibgpu ") + ibgpu::build::kVersion + " (git " + ibgpu::build::kGit + ", " +
         ibgpu::build::kCompiler + ", CUDA toolkit at build: " + (ibgpu::build::kCudaToolkit ? "yes" : "no") + ")";
}

// --json may not have been parsed when parsing fails; find it by hand so the
// usage error still lands where the caller expects JSON.
std::string json_path_in(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--json" && i + 1 < argc) return argv[i + 1];
    if (arg.rfind("--json=", 0) == 0) return std::string(arg.substr(7));
  }
  return "";
}

// A usage error is said by the first rank alone. The others wait a moment before they exit:
// a launcher that sees a rank fail ends the whole job, and it could end the first rank before
// its message is out.
int usage_exit(bool speaker) {
  if (!speaker) std::this_thread::sleep_for(std::chrono::seconds(2));
  return ibgpu::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ibgpu: measure and judge GPU nodes and their RDMA fabric before they join a shared pool", "ibgpu"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.footer(kExitCodes);
  std::vector<ibgpu::cli::Subcommand> subcommands{ibgpu::cli::add_check(app), ibgpu::cli::add_burn_in(app),
                                                  ibgpu::cli::add_inventory(app)};
  for (auto& sub : ibgpu::cli::add_probe(app)) subcommands.push_back(std::move(sub));
  subcommands.push_back(ibgpu::cli::add_allreduce(app));
  subcommands.push_back(ibgpu::cli::add_report(app));
  subcommands.push_back(ibgpu::cli::add_simulate(app));
  subcommands.push_back(ibgpu::cli::add_explain(app));
  subcommands.push_back(ibgpu::cli::add_history(app));
  const bool speaker = ibgpu::launcher_rank() == 0;
  if (argc < 2) {  // a bare `ibgpu`: the commands, not "A subcommand is required"
    if (speaker) std::cerr << app.help();
    return usage_exit(speaker);
  }
  // Before CLI11, which would answer a misspelt command with "A subcommand is required".
  std::string unknown = ibgpu::cli::unknown_command(app, argc, argv);
  if (unknown.empty()) unknown = ibgpu::cli::bad_environment();
  if (!unknown.empty()) {
    if (speaker) ibgpu::report_usage_error(unknown, json_path_in(argc, argv));
    return usage_exit(speaker);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return speaker ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    // CLI11 says "The following argument was not expected: --loopbak" (or, at the top, "A
    // subcommand is required"): an option the command does not take is named, with close ones.
    std::string message = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) || dynamic_cast<const CLI::RequiredError*>(&e))
      if (std::string hint = ibgpu::cli::unknown_option(app, argc, argv); !hint.empty()) message = hint;
    if (speaker) ibgpu::report_usage_error(message, json_path_in(argc, argv));
    return usage_exit(speaker);
  }

  for (const auto& sub : subcommands) {
    if (!sub.app->parsed()) continue;
    ibgpu::CommonOptions& common = *sub.common;
    common.argv.assign(argv, argv + argc);
    try {
      ibgpu::cli::refuse_two_on_stdout(*sub.app);
      sub.validate();
    } catch (const ibgpu::UsageError& e) {
      if (speaker) ibgpu::report_usage_error(e.what(), common.json_path);
      return usage_exit(speaker);
    }
    if (sub.run_without_mpi) {
      try {
        return sub.run_without_mpi();
      } catch (const ibgpu::UsageError& e) {
        ibgpu::report_usage_error(e.what(), common.json_path);
        return usage_exit(speaker);
      } catch (const std::exception& e) {
        std::cerr << "ibgpu: " << ibgpu::printable(e.what()) << '\n';
        return 3;
      }
    }
    ibgpu::install_stop_handlers();
    try {
      ibgpu::MpiSession session(argc, argv, common.timeout);
      return sub.run(session);
    } catch (const ibgpu::UsageError& e) {
      if (speaker) ibgpu::report_usage_error(e.what(), common.json_path);
      return usage_exit(speaker);
    } catch (const std::exception& e) {
      std::cerr << "ibgpu: " << ibgpu::printable(e.what()) << '\n';
      return 3;
    }
  }
  return usage_exit(speaker);
}
