#include "subcommand.h"

namespace ibgpu::cli {

namespace {

std::function<void(const std::string&)> template_into(std::vector<std::string>& argv, const char* option) {
  return [&argv, option](const std::string& text) {
    try {
      argv = split_command_template(text);
    } catch (const TemplateError& e) {
      throw CLI::ValidationError(option, e.what());
    }
  };
}

}  // namespace

void add_action_options(CLI::App& sub, AdmissionActionOptions& actions) {
  // A group of its own: its callback checks the combination only when one of
  // these options was given, without taking the subcommand's callback.
  CLI::Option_group* group = sub.add_option_group(
      "Admission actions",
      "Run by the first rank after the report is written; they never change a verdict or the exit code");
  CLI::Option* drain = group
                           ->add_option_function<std::string>(
                               "--drain-cmd", template_into(actions.drain_cmd, "--drain-cmd"),
                               "Run PROG ARG... (no shell) for each node to drain; {host} and {reason} are "
                               "replaced inside arguments, e.g. --drain-cmd \"mark-bad {host} '{reason}'\"")
                           ->type_name("\"PROG ARG...\"");
  CLI::Option* resume =
      group
          ->add_option_function<std::string>("--resume-cmd", template_into(actions.resume_cmd, "--resume-cmd"),
                                             "Likewise for each node admitted (healthy or degraded)")
          ->type_name("\"PROG ARG...\"");
  CLI::Option* slurm = group->add_flag(
      "--slurm-drain", actions.slurm,
      "Drain failed nodes in Slurm (scontrol update NodeName=H State=DRAIN \"Reason=ibgpu: ...\") and resume "
      "admitted nodes that Slurm shows drained with a reason starting \"ibgpu:\"; a node a person drained is left "
      "alone");
  slurm->excludes(drain)->excludes(resume);
  CLI::Option* dry = group->add_flag("--dry-run", actions.dry_run,
                                     "Print each command (shell-quoted, on stderr) instead of running it");
  group->add_option("--action-timeout", actions.timeout_s, "Longest run of each action command, in seconds")
      ->check(finite_range(0.1, 3600.0))
      ->capture_default_str();
  group->parse_complete_callback([&actions, dry] {
    if (!actions.any())
      throw CLI::ValidationError(dry->count() ? "--dry-run" : "--action-timeout",
                                 "needs --drain-cmd, --resume-cmd or --slurm-drain");
  });
}

}  // namespace ibgpu::cli
