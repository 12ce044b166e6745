#include "app/check_plan.h"
#include "app/pipeline.h"
#include "core/errors.h"
#include "subcommand.h"

namespace ibgpu::cli {

Subcommand add_burn_in(CLI::App& parent) {
  auto options = std::make_shared<BurnInOptions>();
  auto check = std::make_shared<CheckOptions>();
  auto duration = std::make_shared<std::string>();
  auto interval = std::make_shared<std::string>("0");
  CLI::App* sub = parent.add_subcommand(
      "burn-in",
      "Repeat check rounds for a duration or a number of rounds, stream each round as JSON Lines, and judge the "
      "whole run");
  auto validate_check = add_check_options(sub, check);
  CLI::Option* duration_option =
      sub->add_option("--duration", *duration,
                      "How long to keep running rounds: 90s, 30m, 2h, 1h30m; a round that would not end within it "
                      "is not started")
          ->type_name("DURATION");
  sub->add_option("--rounds", options->rounds,
                  "Stop after N finished rounds (with --duration, whichever comes first); one of the two is needed")
      ->type_name("N")
      ->check(whole_number(1, 1000000));
  sub->add_option("--interval", *interval,
                  "From the start of one round to the start of the next (0: back to back); a round that "
                  "runs longer is followed at once")
      ->type_name("DURATION")
      ->capture_default_str();
  sub->add_option("--jsonl", options->jsonl_path,
                  "Append one JSON record per finished round to FILE (synced as written: a killed run "
                  "keeps every finished round), then a summary record (default: ibgpu-burn-in-<UTC start>.jsonl "
                  "in the working directory, named on stderr as the run starts)")
      ->type_name("FILE");
  sub->footer(
      "Each round is a full check (the same options). The final verdict per entity folds the rounds:\n"
      "as bad as it was when never healthy; healthy in some rounds and failed, unknown or degraded\n"
      "(two rounds or more) in others is flaky (BURN_IN_FLAKY, failed by default, with the rounds\n"
      "and the worst figure); a bandwidth under a fifth of its other rounds' in one round only is seen\n"
      "once (BURN_IN_SEEN_ONCE, degraded), in two or more flaky; a figure that falls steadily\n"
      "beyond the run's noise drifts (BURN_IN_DRIFT, degraded). The profile's [burn_in] table sets\n"
      "them. The table and --json\n"
      "give that verdict, pass ratios, and worst and median figures per entity. Exit codes as check.\n"
      "Example: srun ibgpu burn-in --duration 2h --interval 10m --jsonl burn-in.jsonl --json burn-in.json\n"
      "         srun ibgpu burn-in --rounds 5 --jsonl burn-in.jsonl (as many rounds on any machine)");
  return {sub,
          [options, check](MpiSession& s) {
            options->check = *check;
            return run_burn_in(s, *options);
          },
          [options, check, duration, duration_option, interval, validate_check] {
            validate_check();
            // '-' is stdout everywhere else; the stream is synced as written, so it is a file of its own.
            if (options->jsonl_path == "-")
              throw UsageError("--jsonl needs a file name: the stream of rounds is not written to stdout");
            // A stream of its own for each burn-in started without --jsonl.
            if (options->jsonl_path.empty()) options->jsonl_path = utc_now("ibgpu-burn-in-%Y%m%dT%H%M%SZ.jsonl");
            if (duration_option->count() == 0 && options->rounds == 0)
              throw UsageError("burn-in needs --duration, --rounds or both: how long to keep running rounds");
            try {
              options->duration_s = duration_option->count() > 0 ? parse_duration(*duration) : 0;
              options->interval_s = *interval == "0" ? 0 : parse_duration(*interval);
            } catch (const std::invalid_argument& e) {
              throw UsageError(e.what());
            }
          },
          &check->common};
}

}  // namespace ibgpu::cli
