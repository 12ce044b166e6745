#pragma once
// The all-reduce probe: every rank runs the same sweep of sizes, out-of-place
// and in-place, times it, checks the result, and rank 0 reports the aggregate.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "cluster/group_channel.h"
#include "cluster/world.h"
#include "core/deadline.h"
#include "core/result.h"
#include "core/waits.h"
#include "probes/collective/backend.h"

namespace ibgpu {

struct AllReduceSettings {
  std::vector<std::size_t> sizes{std::size_t{1} << 10, std::size_t{1} << 20, std::size_t{64} << 20};  // bytes
  DType dtype = DType::f32;
  int iters = 20;
  int warmup = 5;
  bool out_of_place = true;
  bool in_place = true;
  bool check = true;                  // re-fill with the pattern, run once untimed, compare bit-exactly
  Seconds timeout = kDefaultTimeout;  // every wait: one all-reduce, an agreement, the gathering of times
  // Longest run of one case: after the warmup the ranks agree on the iterations that fit it
  // (the slowest rank's warmup speaks), never fewer than one; no warmup, no cap.
  double time_cap_s = 3;
  // With a budget (check --budget): the end of its measuring part, on this rank's clock. A case
  // starts only if it would end by then on every rank: its time cap, and its untimed work (the
  // buffers' first use, the first iteration, the check) at the last case's pace per byte on each
  // rank. A case that would not is `skipped` (reason "budget: ...").
  std::optional<Clock::time_point> end;
  // Called on every rank after each case (size, in-place or not) is gathered:
  // cases done so far and in all, and on rank 0 the case's summary result (else
  // null). The caller may print progress; probes never do.
  std::function<void(std::size_t done, std::size_t total, const ProbeResult* summary)> progress;
};

// Every rank of the group calls it with the same settings; the ranks agree over `channel`
// (without MPI, world.mpi false: a single process, the channel unused). Results, id collective.<backend>.all_reduce:
// - rank 0: one per (size, in-place) with params {size_B, count, dtype,
//   in_place, iters, warmup, nranks} and the metrics of allreduce_summary;
// - any rank whose check found wrong elements: a `failed` result of its own;
// - a rank whose wait ran out or whose call failed: a `timeout` or `error`
//   result of its own, and the sweep ends there (the ranks no longer agree
//   on which collective comes next);
// - a rank that cannot run the backend: `skipped` with its reason; no rank
//   runs the sweep then, and rank 0, if it could have, reports it skipped.
// Throws UsageError, before any communication, for settings no rank can run:
// a size that is not a whole number of elements, a type the backend cannot sum,
// more ranks than the correctness pattern allows, iters < 1.
std::vector<ProbeResult> run_allreduce(AllReduceBackend& backend, GroupChannel& channel, const World& world,
                                       const AllReduceSettings& settings);
// The same over the group's own communicator (CommChannel).
std::vector<ProbeResult> run_allreduce(AllReduceBackend& backend, MPI_Comm comm, const World& world,
                                       const AllReduceSettings& settings);

}  // namespace ibgpu
