#pragma once
// Each subcommand lives in its own file: it declares its options on a CLI11
// subcommand and returns the call into the library that runs it.
#include <CLI/CLI.hpp>
#include <climits>
#include <functional>
#include <memory>

#include "app/commands.h"
#include "app/network.h"
#include "app/pipeline.h"
#include "cluster/world.h"
#include "scheduler/admission_actions.h"

namespace ibgpu::cli {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int(MpiSession&)> run;
  std::function<void()> validate;   // before MPI starts; throws UsageError
  CommonOptions* common = nullptr;  // for timeouts and error output
  // Set for commands that never start MPI (report): called instead of `run`.
  std::function<int()> run_without_mpi = nullptr;
};

void add_common_options(CLI::App& sub, CommonOptions& options);
// Like CLI::Range for a double, refusing nan and inf (which CLI::Range lets through); the help says
// "FLOAT in [0.1, 86400]", or "FLOAT >= 0" for a max of 1e300 or more.
CLI::Validator finite_range(double min, double max);
std::string range_help(double min, double max);  // that help text
// A number outside [min, max], in words: "'0' is out of range: a number from 0.1 to 86400" (whole
// numbers: "'-1' is out of range: a whole number of 0 or more").
std::string out_of_range(const std::string& input, double min, double max);
// A whole number in [min, max]; the help says "INT in [1, 10]", or "INT >= 0" for a max of INT_MAX.
// CLI::NonNegativeNumber would print its bound as 1.79769e+308 and let "nan" through.
CLI::Validator whole_number(long long min, long long max = INT_MAX);

// Network options arrive as text and are checked after parsing, so a bad
// size is a usage error that names the token.
struct NetCliText {
  std::string sizes, min, max;
  std::string pairs = "all";
  std::string transport, mem;  // add_net_options starts them at the NetOptions' defaults
  int iters = 0;
};
// --sizes LIST, or a sweep from --min to --max (both, or neither), else `fallback`; throws UsageError.
std::vector<std::size_t> sizes_or_sweep(const std::string& list, const std::string& min, const std::string& max,
                                        const std::vector<std::size_t>& fallback, std::size_t factor);
CLI::Validator non_empty_list();  // refuses --sizes '' (which would otherwise mean "not given")
// The options of the kinds net.bandwidth and net.latency measure, with net.settings as the
// defaults the help shows.
void add_net_options(CLI::App& sub, NetOptions& net, NetCliText& text);
void finish_net_options(NetOptions& net, const NetCliText& text);  // throws UsageError
int parse_peer_count(const std::string& plan);                     // "peers:K" -> K; throws UsageError

// The options of `check`, shared by `burn-in`; returns their validation.
std::function<void()> add_check_options(CLI::App* sub, const std::shared_ptr<CheckOptions>& options);
// --drain-cmd, --resume-cmd, --slurm-drain, --dry-run, --action-timeout:
// templates are split into argv here, so a bad one is a usage error.
void add_action_options(CLI::App& sub, AdmissionActionOptions& actions);

// Two outputs aimed at stdout (--json - with --format, or with --output -): UsageError.
void refuse_two_on_stdout(const CLI::App& sub);

// Empty, or the usage error for a word of argv where a command belongs that names none, with the
// commands close to it: "unknown command 'chek'; did you mean 'check'?".
std::string unknown_command(const CLI::App& app, int argc, char** argv);
// The names close to `word`: within two edits and less than half the name changed, or a name
// that starts with it ("rep" for report). Several equally close names are all returned.
std::vector<std::string> close_names(const std::string& word, const std::vector<std::string>& names);
// "'a', 'b' or 'c'", each name after `prefix`.
std::string quoted_list(const std::string& prefix, const std::vector<std::string>& names);
// Empty, or the usage error for an option of argv that the command it follows does not take,
// with the options close to it: "unknown option '--loopbak' of 'check'; did you mean '--loopback'?".
std::string unknown_option(const CLI::App& app, int argc, char** argv);
// Empty, or the usage error for an environment variable ibgpu reads whose value it does not take
// (IBGPU_PROGRESS=terminal|plain|off).
std::string bad_environment();

Subcommand add_inventory(CLI::App& parent);
Subcommand add_burn_in(CLI::App& parent);
Subcommand add_check(CLI::App& parent);
Subcommand add_allreduce(CLI::App& parent);
std::vector<Subcommand> add_probe(CLI::App& parent);
Subcommand add_report(CLI::App& parent);
Subcommand add_simulate(CLI::App& parent);
Subcommand add_explain(CLI::App& parent);
Subcommand add_history(CLI::App& parent);

// --profile NAME|FILE as check reads it (cli/check.cpp); throws UsageError.
Profile load_profile(const std::string& spec);

}  // namespace ibgpu::cli
