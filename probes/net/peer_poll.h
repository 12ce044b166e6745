#pragma once
// The wait of the MPI timing loops. A blocking MPI_Recv spins in MPI's progress
// engine until the message lands; this spins MPI_Test over requests posted
// beforehand, which costs about the same, and keeps the deadline of every
// wait in ibgpu: a peer silent (no completion, no heartbeat) for `silence`, or
// past this rank's step, ends the wait. What a benchmark loop does not do
// stays out of the fast path: no allocation, no clock read, no heartbeat check
// until a wait has run for kPollsPerCheck polls (tens of microseconds at least),
// so a wait that completes sooner costs only its MPI_Test calls.
#include <mpi.h>

#include "core/deadline.h"
#include "core/errors.h"

namespace ibgpu {

class PeerPoll {
 public:
  PeerPoll(int peer, Seconds silence) : peer_(peer), silence_(silence) {}

  // Spins until requests[0..n) have all completed (true), or the peer is given
  // up on (false): the pending requests are cancelled and left to MPI, their
  // memory must be a TransferMemory (cluster/kept_memory.h).
  bool wait(MPI_Request* requests, int n) {
    for (unsigned polls = 1;; ++polls) {
      int done = 0;
      const int rc =
          n == 1 ? MPI_Test(requests, &done, MPI_STATUS_IGNORE) : MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) mpi_check(rc, n == 1 ? "MPI_Test" : "MPI_Testall");
      if (done) return true;
      if (polls % kPollsPerCheck == 0 && !still_waiting(polls == kPollsPerCheck)) {
        give_up(requests, n);
        return false;
      }
    }
  }
  bool wait(MPI_Request& request) { return wait(&request, 1); }

  static constexpr unsigned kPollsPerCheck = 1024;

 private:
  // The slow path, once per kPollsPerCheck polls: heartbeats, news from the peer, the clock.
  // The silence is counted from the first check (a wait shorter than that is never late).
  bool still_waiting(bool first_check);
  void give_up(MPI_Request* requests, int n);

  int peer_;
  Seconds silence_;
  Clock::time_point heard_{};
};

}  // namespace ibgpu
