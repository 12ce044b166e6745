#pragma once
// Waits in ibgpu measure silence, not slowness. While a rank works (or waits
// for someone else), it sends a tiny fire-and-forget heartbeat at most once
// per interval to its audience: rank 0, and its current and next partner.
// Rank 0's final gather and a rank waiting for its partner then give up only
// on a peer that has shown no sign of life for --timeout, so one dead node
// does not make its partners' partners look dead too.
#include <mpi.h>

#include <vector>

namespace ibgpu {

inline constexpr int kTagHeartbeat = 103;

void enable_heartbeats(MPI_Comm comm, int rank, double interval_s);
void set_heartbeat_audience(std::vector<int> ranks);  // rank 0 is always included
// Cheap enough to call from every polling loop.
void heartbeat();
// Drains heartbeats from `peer`; true if there was at least one.
bool heard_from(int peer);

}  // namespace ibgpu
