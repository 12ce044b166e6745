#pragma once
// Blocking MPI calls under a deadline. A blocking collective costs less than its non-blocking
// twin polled with MPI_Test (OpenMPI's MPI_Allreduce picks a tuned algorithm per size,
// MPI_Iallreduce runs a generic schedule), but nothing ends it once a rank stops. So the blocking
// calls run on a thread of their own while the calling thread keeps the deadline: it watches the
// clock and the stop request, makes no MPI call (MPI runs at MPI_THREAD_SINGLE: one thread inside
// MPI at a time), and when the work has not returned in time goes on without it.
//
// A work thread given up on stays inside MPI, detached, for the rest of the process: the caller
// then marks MPI as lost (cluster/line.h) and makes no MPI call again. Everything the work touches
// must therefore outlive the call: captured by value, shared, or kept until exit; and it should
// stop at its next step once `given_up` is set.
#include <atomic>
#include <functional>

#include "core/deadline.h"

namespace ibgpu {

using WatchedWork = std::function<void(const std::atomic<bool>& given_up)>;

// Runs `work` on a new thread and waits for it at most `limit` (a stop request ends the wait
// too). True when it returned (what it threw is rethrown here); false when it was given up on.
bool run_watched(WatchedWork work, Seconds limit);

}  // namespace ibgpu
