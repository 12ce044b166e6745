#pragma once
// Blocking MPI calls under a deadline. A blocking collective can cost less than its non-blocking
// twin polled with MPI_Test (OpenMPI's MPI_Allreduce picks a tuned algorithm per size,
// MPI_Iallreduce runs a generic schedule), but nothing ends it once a rank stops. So the blocking
// calls run on a thread of their own while the calling thread keeps the deadline: it sends the
// heartbeats, watches the clock and the stop request, and when the work has not returned in time
// goes on without it, as every other wait that gives up does (the lost rank is named by the steps
// that follow: roll calls, the gathering of results).
//
// A work thread given up on stays inside MPI, detached. It counts as an abandoned request
// (cluster/kept_memory.h), so the process ends with MPI_Abort after rank 0's report instead of
// in MPI_Finalize. Everything the work touches must therefore outlive the call: captured by value,
// shared, or kept until exit; and it should stop at its next step once `given_up` is set.
// The watching thread calls MPI while the work thread is inside it: MPI_THREAD_MULTIPLE only
// (mpi_threads_multiple()).
#include <atomic>
#include <functional>

#include "core/deadline.h"

namespace ibgpu {

using WatchedWork = std::function<void(const std::atomic<bool>& given_up)>;

// Runs `work` on a new thread and waits for it at most `limit` (a stop request ends the wait
// too). True when it returned (what it threw is rethrown here); false when it was given up on.
bool run_watched(WatchedWork work, Seconds limit);

// Whether MPI was initialised with MPI_THREAD_MULTIPLE (run_watched needs it).
bool mpi_threads_multiple();

}  // namespace ibgpu
