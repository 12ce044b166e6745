#include "probes/net/peer_poll.h"

#include "cluster/kept_memory.h"
#include "cluster/liveness.h"

namespace ibgpu {

bool PeerPoll::still_waiting(bool first_check) {
  heartbeat();
  const auto now = Clock::now();
  if (first_check || heard_from(peer_)) heard_ = now;
  if (stop_requested() || moved_on(peer_)) return false;
  return now - heard_ < silence_;
}

void PeerPoll::give_up(MPI_Request* requests, int n) {
  // A pending receive is cancelled, so no later message of the peer lands in it; nothing is
  // freed: the transfer may still be live (cluster/kept_memory.h).
  for (int i = 0; i < n; ++i)
    if (requests[i] != MPI_REQUEST_NULL) {
      MPI_Cancel(&requests[i]);
      note_abandoned_request();
      requests[i] = MPI_REQUEST_NULL;
    }
}

}  // namespace ibgpu
