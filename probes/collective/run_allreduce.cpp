#include "probes/collective/run_allreduce.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "core/deadline.h"
#include "core/errors.h"
#include "core/units.h"
#include "core/waits.h"
#include "probes/collective/allreduce_results.h"
#include "probes/collective/pattern.h"

namespace ibgpu {

namespace {

std::vector<std::size_t> validate(const AllReduceBackend& backend, const World& world,
                                  const AllReduceSettings& settings) {
  if (settings.sizes.empty()) throw UsageError("all-reduce: no message sizes given");
  if (settings.iters < 1) throw UsageError("all-reduce: iterations must be at least 1");
  if (settings.warmup < 0) throw UsageError("all-reduce: warmup iterations cannot be negative");
  if (!settings.in_place && !settings.out_of_place) throw UsageError("all-reduce: neither in-place nor out-of-place");
  if (!(settings.timeout > Seconds(0))) throw UsageError("all-reduce: the timeout must be positive");
  std::vector<std::size_t> counts;
  try {
    counts = element_counts(settings.sizes, settings.dtype);
    if (settings.check) check_pattern_fits(settings.dtype, world.size);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("all-reduce: ") + e.what());
  }
  for (std::size_t count : counts)
    if (std::string why = backend.unsupported(settings.dtype, count); !why.empty())
      throw UsageError(backend.name() + " all-reduce: " + why);
  return counts;
}

// Every rank's `mine` combined; nullopt when not every rank answered in time.
std::optional<double> agreed(GroupChannel& channel, const World& world, double mine, Combine how, Seconds timeout) {
  if (!world.mpi) return mine;
  return channel.combine(mine, how, timeout);
}

// How many ranks raise a flag; nullopt when not every rank answered in time.
std::optional<int> count_flags(GroupChannel& channel, const World& world, bool mine, Seconds timeout) {
  const auto total = agreed(channel, world, mine ? 1 : 0, Combine::sum, timeout);  // exact: small integers
  if (!total) return std::nullopt;
  return static_cast<int>(*total);
}

// How a case kept to its time cap: whether the cap cut its iterations, the slowest rank's
// time of its first warmup iteration (every rank has the same: it is agreed), and this rank's
// wall time of the run after it (the capped part).
struct CapOutcome {
  bool capped = false;
  std::optional<double> first_iteration_s;
  double capped_run_s = 0;
};

// Runs the first warmup iteration alone: the slowest rank's pace at it decides what else fits the
// time cap. When the rest of the warmup and c.iters fit, they run; else the warmup ends there and
// the timed iterations that fit run (one at least), and c.warmup and c.iters become what ran.
// Seconds per timed iteration.
std::optional<double> timed_within_cap(AllReduceBackend& backend, GroupChannel& channel, const World& world,
                                       const AllReduceSettings& settings, AllReduceCase& c, CapOutcome& out) {
  out = {};
  if (c.warmup == 0) return backend.run_timed(c.in_place, c.count, c.dtype, 0, c.iters);  // no cap
  const double first = backend.run_timed(c.in_place, c.count, c.dtype, 0, 1);
  const auto pace = agreed(channel, world, first, Combine::max, settings.timeout);
  if (!pace) return std::nullopt;
  out.first_iteration_s = *pace;
  // From agreed numbers only: a rank's own clock would give it its own count, and ranks that run
  // different numbers of all-reduces wait for each other until the timeout.
  const double left = settings.time_cap_s - *pace;
  if (*pace > 0 && (c.warmup - 1 + c.iters) * *pace > left) {
    out.capped = true;
    c.warmup = 1;
    c.iters = static_cast<int>(std::clamp(std::floor(left / *pace), 1.0, static_cast<double>(c.iters)));
  }
  const auto started = Clock::now();
  const double seconds = backend.run_timed(c.in_place, c.count, c.dtype, c.warmup - 1, c.iters);
  out.capped_run_s = Seconds(Clock::now() - started).count();
  return seconds;
}

// With settings.end: how far past it the slowest rank would end the case of `bytes` (<= 0: it
// fits), on each rank's clock, at its untimed pace so far (seconds per byte, 0 before the first
// case); nullopt when not every rank answered in time.
std::optional<double> past_budget_end(GroupChannel& channel, const World& world, const AllReduceSettings& settings,
                                      double untimed_s_per_byte, double bytes) {
  const double need = untimed_s_per_byte * bytes + settings.time_cap_s;
  const double left = Seconds(*settings.end - Clock::now()).count();
  return agreed(channel, world, need - left, Combine::max, settings.timeout);
}

// Every rank's outcome at rank 0 (other ranks get an empty vector); nullopt on timeout.
std::optional<std::vector<RankOutcome>> gather_outcomes(GroupChannel& channel, const World& world,
                                                        const RankOutcome& mine, Seconds timeout) {
  if (!world.mpi) return std::vector<RankOutcome>{mine};
  // A wrong count travels as a double (exact below 2^53); -1 means not checked.
  const auto all = channel.gather({mine.seconds, mine.wrong ? static_cast<double>(*mine.wrong) : -1.0}, timeout);
  if (!all) return std::nullopt;
  std::vector<RankOutcome> outcomes;
  for (std::size_t r = 0; r + 1 < all->size(); r += 2) {
    RankOutcome o;
    o.seconds = (*all)[r];
    if ((*all)[r + 1] >= 0) o.wrong = static_cast<std::uint64_t>((*all)[r + 1]);
    outcomes.push_back(o);
  }
  return outcomes;
}

ProbeResult own_result(const std::string& id, ProbeStatus status, const World& world, const std::string& device,
                       nlohmann::json params, std::string text) {
  ProbeResult r;
  r.id = id;
  r.status = status;
  r.scope = rank_scope(world, device);
  r.params = std::move(params);
  if (status == ProbeStatus::skipped)
    r.reason = std::move(text);
  else
    r.error = std::move(text);
  return r;
}

// A rank's own error: params.error_call names the call that failed, where one did (a CUDA call's
// error is the GPU's side, which a group's control on host memory cannot speak for:
// health/controls.h).
ProbeResult error_result(const std::string& id, const World& world, const std::string& device, nlohmann::json params,
                         const std::exception& e) {
  ProbeResult r = own_result(id, ProbeStatus::error, world, device, std::move(params), e.what());
  if (const auto* call = dynamic_cast<const CallError*>(&e)) r.params["error_call"] = call->call();
  return r;
}

std::string not_agreed(const char* stage, Seconds timeout) {
  return std::string("not every rank reached the all-reduce ") + stage + " within " + duration_text(timeout) + " (" +
         error_origin() + "): a rank is stopped, dead or stuck";
}

}  // namespace

std::vector<ProbeResult> run_allreduce(AllReduceBackend& backend, MPI_Comm comm, const World& world,
                                       const AllReduceSettings& settings) {
  CommChannel channel(comm);
  return run_allreduce(backend, channel, world, settings);
}

std::vector<ProbeResult> run_allreduce(AllReduceBackend& backend, GroupChannel& channel, const World& world,
                                       const AllReduceSettings& settings) {
  const std::string reason = backend.unavailable_reason();
  const std::vector<std::size_t> counts = validate(backend, world, settings);
  const std::string id = allreduce_probe_id(backend.name());
  const Seconds timeout = settings.timeout;
  nlohmann::json sweep = {{"sizes_B", settings.sizes},
                          {"dtype", to_string(settings.dtype)},
                          {"iters", settings.iters},
                          {"warmup", settings.warmup},
                          {"nranks", world.size}};
  std::vector<ProbeResult> results;

  // 1. Can every rank run the backend? NCCL needs all ranks or none.
  const auto unavailable = count_flags(channel, world, !reason.empty(), timeout);
  if (!reason.empty()) {
    results.push_back(own_result(id, ProbeStatus::skipped, world, "", sweep, reason));
    return results;
  }
  if (!unavailable) {
    results.push_back(own_result(id, ProbeStatus::timeout, world, "", sweep, not_agreed("start", timeout)));
    return results;
  }
  if (*unavailable > 0) {
    if (world.rank == 0) {
      ProbeResult r = skipped(id, world_scope(world),
                              std::to_string(*unavailable) + " of " + std::to_string(world.size) +
                                  " ranks cannot run " + backend.name() + " (see their results)");
      r.params = sweep;
      results.push_back(std::move(r));
    }
    return results;
  }
  const std::string device = backend.device();

  // 2. Buffers (and for NCCL the communicator); the ranks agree before measuring.
  std::optional<ProbeResult> prepare_failure;
  try {
    backend.prepare(*std::max_element(settings.sizes.begin(), settings.sizes.end()), settings.dtype);
  } catch (const CollectiveTimeout& e) {
    prepare_failure = own_result(id, ProbeStatus::timeout, world, device, sweep, e.what());
  } catch (const std::exception& e) {
    prepare_failure = error_result(id, world, device, sweep, e);
  }
  const auto unprepared = count_flags(channel, world, prepare_failure.has_value(), timeout);
  if (prepare_failure) {
    results.push_back(std::move(*prepare_failure));
    return results;
  }
  if (!unprepared) {
    results.push_back(own_result(id, ProbeStatus::timeout, world, device, sweep, not_agreed("setup", timeout)));
    return results;
  }
  if (*unprepared > 0) {
    if (world.rank == 0) {
      ProbeResult r =
          own_result(id, ProbeStatus::error, world, device, sweep,
                     std::to_string(*unprepared) + " of " + std::to_string(world.size) +
                         " ranks could not set up the " + backend.name() + " all-reduce (see their results)");
      r.scope = world_scope(world);
      results.push_back(std::move(r));
    }
    return results;
  }

  // 3. The sweep: timed, then checked, then gathered, size by size.
  std::vector<bool> modes;
  if (settings.out_of_place) modes.push_back(false);
  if (settings.in_place) modes.push_back(true);
  // Seconds per byte of the slowest rank's first iteration, at the last size measured (agreed, so
  // every rank skips the same sizes): a size whose one iteration would take longer than the whole
  // time cap at that pace is not run (64 MiB of all-reduce through a 50 mbit host takes a minute).
  std::optional<double> pace_per_byte;
  // This rank's seconds per byte of the work outside the time cap (the buffers' first use, the
  // first iteration, the check), the most of the last size's cases: what the budget's end is held
  // against. The first use of 256 MiB buffers by four ranks on one CPU took 7 s and the first
  // iteration 7 s more, four times what the 16 MiB iteration's pace foretold; the untimed work of
  // the first 16 MiB case foretold the whole 20 s (the second finds its buffers in use).
  double untimed_s_per_byte = 0;
  double untimed_size = 0;              // the size it was measured at
  std::optional<ProbeResult> injected;  // the test hook's error (faults.error_rank), told at the end
  for (std::size_t i = 0; i < settings.sizes.size(); ++i) {
    for (bool in_place : modes) {
      AllReduceCase c{settings.sizes[i], counts[i],       settings.dtype, in_place,
                      settings.iters,    settings.warmup, world.size};
      const double bytes = static_cast<double>(settings.sizes[i]);
      // A case ibgpu does not run (every rank decided alike): rank 0 records why.
      auto not_run = [&](const std::string& why) {
        if (world.rank != 0) return;
        ProbeResult r = skipped(id, world_scope(world), why, SkippedBy::ibgpu);
        r.params = allreduce_params(c);
        results.push_back(std::move(r));
      };
      if (pace_per_byte && *pace_per_byte * bytes > settings.time_cap_s) {
        not_run("not run: one iteration would take about " +
                duration_text(Seconds(std::round(*pace_per_byte * bytes * 10) / 10)) +
                " at the pace measured so far, past the " + duration_text(Seconds(settings.time_cap_s)) + " time cap");
        continue;
      }
      if (settings.end) {
        const auto past = past_budget_end(channel, world, settings, untimed_s_per_byte, bytes);
        if (!past) {
          results.push_back(own_result(id, ProbeStatus::timeout, world, device, allreduce_params(c),
                                       not_agreed("budget check", timeout)));
          return results;
        }
        if (*past > 0) {
          not_run("budget: not run, the budget would run out (the case would end about " +
                  duration_text(Seconds(std::round(*past * 10) / 10)) +
                  " past its measuring part, at the pace measured so far)");
          continue;
        }
      }
      RankOutcome mine;
      CapOutcome cap;
      const auto case_started = Clock::now();
      try {
        const auto seconds = timed_within_cap(backend, channel, world, settings, c, cap);
        if (cap.first_iteration_s) pace_per_byte = *cap.first_iteration_s / bytes;
        if (!seconds) {
          results.push_back(own_result(id, ProbeStatus::timeout, world, device, allreduce_params(c),
                                       not_agreed("iteration count", timeout)));
          return results;
        }
        mine.seconds = *seconds;
        if (settings.check) mine.wrong = backend.check(in_place, c.count, c.dtype);
        if (bytes > 0) {
          const double untimed = (Seconds(Clock::now() - case_started).count() - cap.capped_run_s) / bytes;
          untimed_s_per_byte = bytes == untimed_size ? std::max(untimed_s_per_byte, untimed) : untimed;
          untimed_size = bytes;
        }
        if (world.rank == backend.faults.error_rank && !injected)
          injected = own_result(id, ProbeStatus::error, world, device, allreduce_params(c),
                                "an error after the all-reduce completed (a test's injected fault)");
      } catch (const CollectiveTimeout& e) {
        results.push_back(own_result(id, ProbeStatus::timeout, world, device, allreduce_params(c), e.what()));
        return results;
      } catch (const std::exception& e) {
        results.push_back(error_result(id, world, device, allreduce_params(c), e));
        return results;
      }
      const auto outcomes = gather_outcomes(channel, world, mine, timeout);
      if (!outcomes) {
        results.push_back(own_result(id, ProbeStatus::timeout, world, device, allreduce_params(c),
                                     not_agreed("timing gather", timeout)));
        return results;
      }
      if (world.rank == 0) {
        results.push_back(allreduce_summary(backend.name(), c, *outcomes, world));
        if (const std::string call = backend.timed_call(); !call.empty()) results.back().params["call"] = call;
        if (cap.capped) results.back().params["time_capped_s"] = settings.time_cap_s;
      }
      if (settings.progress)
        settings.progress(i * modes.size() + (in_place && modes.size() > 1 ? 2 : 1),
                          settings.sizes.size() * modes.size(), world.rank == 0 ? &results.back() : nullptr);
      if (mine.wrong && *mine.wrong > 0)
        results.push_back(wrong_data_result(backend.name(), c, *mine.wrong, world, device));
    }
  }
  if (injected) results.push_back(std::move(*injected));
  return results;
}

}  // namespace ibgpu
