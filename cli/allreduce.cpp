#include "app/commands.h"
#include "core/errors.h"
#include "core/units.h"
#include "probes/collective/dtype.h"
#include "subcommand.h"

namespace ibgpu::cli {

namespace {

struct AllReduceCliText {
  std::string sizes, min, max, dtype = "float", mode = "both", backend;
  std::vector<std::string> placements;
  std::size_t factor = 2;
  bool no_check = false;
};

void finish(AllReduceOptions& options, const AllReduceCliText& text) {
  AllReduceSettings& s = options.collectives.settings;
  s.sizes = sizes_or_sweep(text.sizes, text.min, text.max, s.sizes, text.factor);
  validate_sizes(s.sizes, "all-reduce", kMaxAllReduceSize);
  const auto dtype = dtype_from_string(text.dtype);
  if (!dtype) throw UsageError("unknown --dtype '" + text.dtype + "' (float, double, int32, half, bfloat16)");
  s.dtype = *dtype;
  s.out_of_place = text.mode != "in-place";
  s.in_place = text.mode != "out-of-place";
  s.check = !text.no_check;
  options.collectives.backend = *collective_backend_from_string(text.backend);  // CLI::IsMember's words
  options.collectives.placements.clear();
  for (const auto& name : text.placements) options.collectives.placements.push_back(*placement_from_string(name));
}

}  // namespace

Subcommand add_allreduce(CLI::App& parent) {
  auto options = std::make_shared<AllReduceOptions>();
  auto text = std::make_shared<AllReduceCliText>();
  AllReduceSettings& s = options->collectives.settings;
  CLI::App* sub = parent.add_subcommand(
      "allreduce", "Sum all-reduce sweep, nccl-tests-compatible (algbw, busbw), with a bit-exact check per rank");
  add_common_options(*sub, options->common);
  text->backend = to_string(options->collectives.backend);
  sub->add_option("--backend", text->backend,
                  "nccl (GPU memory, one rank per GPU), mpi (host memory: MPI_Allreduce), or auto "
                  "(nccl where every rank can run it, else mpi; the report says which ran)")
      ->check(CLI::IsMember({"nccl", "mpi", "auto"}))
      ->capture_default_str();
  sub->add_option("--sizes", text->sizes, "Message sizes in bytes, e.g. 1K,1M,64M (default 1K,1M,64M)")
      ->type_name("LIST")
      ->check(non_empty_list());
  sub->add_option("--min", text->min, "Smallest size of a sweep (with --max, --factor)")->type_name("SIZE");
  sub->add_option("--max", text->max, "Largest size of the sweep")->type_name("SIZE");
  sub->add_option("--factor", text->factor, "Multiplier between sweep sizes")
      ->check(whole_number(2, 1 << 20))
      ->capture_default_str();
  sub->add_option("--dtype", text->dtype, "Element type: float, double, int32; half and bfloat16 on nccl")
      ->capture_default_str();
  sub->add_option("--iters", s.iters, "Timed iterations per size")
      ->check(whole_number(1, 1000000))
      ->capture_default_str();
  sub->add_option("--warmup", s.warmup, "Untimed iterations before timing")
      ->check(whole_number(0, 1000000))
      ->capture_default_str();
  sub->add_option("--time-cap", s.time_cap_s,
                  "Longest run of one size, in seconds: after the first warmup iteration the ranks agree on "
                  "what else fits (the rest of the warmup and the iterations, or fewer iterations and no more "
                  "warmup: at least one; params.time_capped_s says when the cap cut them)")
      ->type_name("SECONDS")
      ->check(finite_range(0.01, 86400.0))
      ->capture_default_str();
  sub->add_option("--mode", text->mode, "out-of-place, in-place, or both (nccl-tests' two halves)")
      ->check(CLI::IsMember({"out-of-place", "in-place", "both"}))
      ->capture_default_str();
  sub->add_flag("--no-check", text->no_check, "Skip the bit-exact correctness check after timing");
  sub->add_option("--placement", text->placements,
                  "Which groups to run, any of job (all ranks), node (each host's ranks), rail (the ranks with "
                  "the same local rank on every host); default: every one that differs from job here")
      ->delimiter(',')
      ->check(CLI::IsMember({"job", "node", "rail"}));
  sub->add_option("--device", options->collectives.device, "CUDA device for nccl (default: the rank's local rank)")
      ->check(whole_number(0));
  // Hidden (empty group): the tests corrupt one rank's result to see it blamed.
  sub->add_option("--test-corrupt-rank", options->collectives.test_corrupt_rank)->group("");
  sub->add_option("--test-deaf-rank", options->collectives.test_deaf_rank)->group("");
  sub->add_option("--test-error-rank", options->collectives.test_error_rank)->group("");
  sub->footer(
      "busbw = algbw x 2(n-1)/n, as nccl-tests computes it, from the time averaged over ranks; the\n"
      "slowest rank is named for every size. After timing, every rank re-fills its input with a\n"
      "pattern whose sum is exact, runs one all-reduce and counts wrong elements (#wrong): any wrong\n"
      "element fails that rank.\n"
      "Exit codes: 0 all measured and correct, 2 wrong data or an error, 3 incomplete (a timeout, a\n"
      "lost rank, or the backend skipped, e.g. no GPU for --backend nccl), 64 usage error.\n"
      "Example: mpirun -np 8 ibgpu allreduce --backend nccl --min 8 --max 1G --factor 2 --json ar.json");
  return {sub, [options](MpiSession& session) { return run_allreduce_command(session, *options); },
          [options, text] { finish(*options, *text); }, &options->common};
}

}  // namespace ibgpu::cli
