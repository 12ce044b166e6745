#pragma once
// Waits in ibgpu measure silence, not slowness. While a rank works (or waits
// for someone else), it sends a tiny fire-and-forget heartbeat at most once
// per interval to its audience: rank 0, its current partner and the next few.
// Rank 0's final gather and a rank waiting for its partner then give up only
// on a peer that has shown no sign of life for --timeout, so one dead node
// does not make its partners' partners look dead too.
#include <mpi.h>

#include <vector>

#include "cluster/tags.h"

namespace ibgpu {

void enable_heartbeats(MPI_Comm comm, int rank, double interval_s);
void set_heartbeat_audience(std::vector<int> ranks);  // rank 0 is always included
// Cheap enough to call from every polling loop.
void heartbeat();
// One beat to the audience now, whatever the interval: a rank leaving a step tells those that may
// still wait on it there (they see it has moved on) instead of going quiet for them.
void heartbeat_now();
// Drains heartbeats from `peer`; true if there was at least one.
bool heard_from(int peer);

// Every rank goes through the same steps in the same order (network round k, the consultation
// after it, the all-reduce, the report), numbered alike on every rank, and a new round of a
// burn-in starts a new epoch. A heartbeat carries the sender's step, so a rank waiting for a
// peer in one step can tell that the peer has already left it (it gave up on this rank, or was
// told to skip it): then no answer will come, however alive the peer is, and the wait ends
// (wait_for_peer) instead of lasting for ever.
inline constexpr int kPhaseCollectives = 1 << 28;  // + the placement's index (of kMaxPlacements)
inline constexpr int kPhaseControls = kPhaseCollectives + kMaxPlacements;  // an all-reduce error's control
inline constexpr int kPhaseReport = kPhaseControls + 1;
void begin_phase_epoch();  // a new check round (burn-in): steps count from 0 again, higher
void set_phase(int phase);
long long current_phase();
// The last step `peer` said it was in (-1: not heard yet); heard_from(peer) updates it.
long long phase_of(int peer);
// True when `peer` has said it is past this rank's current step.
bool moved_on(int peer);
// For a reader that drains heartbeats itself (a mailbox): what one beat said.
void note_heartbeat(int peer, long long phase);

// A peer silent past --timeout is lost for the rest of the job: every later wait for it ends at
// once, so a host that dies or hangs costs the check one wait, not one per phase. A rank that
// gives up on a peer tells rank 0 (a notice, fire-and-forget as a beat is), rank 0 hears it
// while it waits for everyone (its gathers and roll calls then stop waiting for that peer), and
// its answers tell the ranks that came. Lost stays lost: a peer heard again later (SIGCONT) is
// still read where it sends, never waited for. Ranks of the heartbeat communicator.
void mark_lost(int peer);          // and tells rank 0, unless this is rank 0
void mark_lost_quietly(int peer);  // what rank 0 said: no notice back
bool known_lost(int peer);
std::vector<int> lost_peers();  // ascending
void note_lost_notices();       // rank 0: drains the notices (a mailbox's poll)
MPI_Comm heartbeat_comm();      // the communicator the ranks above belong to

}  // namespace ibgpu
