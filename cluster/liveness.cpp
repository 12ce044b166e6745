#include "cluster/liveness.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <set>
#include <unordered_map>

#include "cluster/world.h"
#include "core/deadline.h"

namespace ibgpu {

namespace {
MPI_Comm g_comm = MPI_COMM_NULL;
int g_rank = 0;
std::vector<int> g_audience;
Clock::duration g_interval{};
Clock::time_point g_last{};
unsigned g_calls = 0;
// A beat's buffer must outlive its freed request and not change while it may be read: each
// step's number gets its own slot, reused only thousands of steps later, long after any beat
// of that step has gone (a beat is 8 bytes: sent at once).
std::array<long long, 4096> g_phases{};
std::size_t g_slot = 0;
long long g_epoch = 0;
std::unordered_map<int, long long> g_peer_phase;
std::set<int> g_lost;
// A notice's buffer must outlive its freed request: one slot per peer ever lost, never moved.
std::deque<int> g_notices;
}  // namespace

void mark_lost_quietly(int peer) { g_lost.insert(peer); }

void mark_lost(int peer) {
  if (peer < 0 || peer == g_rank || !g_lost.insert(peer).second) return;
  if (g_comm == MPI_COMM_NULL || g_rank == 0 || mpi_lost()) return;
  g_notices.push_back(peer);
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Isend(&g_notices.back(), 1, MPI_INT, 0, kTagLost, g_comm, &request) == MPI_SUCCESS)
    MPI_Request_free(&request);
}

bool known_lost(int peer) { return g_lost.count(peer) > 0; }

std::vector<int> lost_peers() { return {g_lost.begin(), g_lost.end()}; }

MPI_Comm heartbeat_comm() { return g_comm; }

void note_lost_notices() {
  if (g_comm == MPI_COMM_NULL || g_rank != 0 || mpi_lost()) return;
  while (true) {
    int flag = 0;
    MPI_Status status{};
    if (MPI_Iprobe(MPI_ANY_SOURCE, kTagLost, g_comm, &flag, &status) != MPI_SUCCESS || !flag) return;
    int peer = -1;
    MPI_Recv(&peer, 1, MPI_INT, status.MPI_SOURCE, kTagLost, g_comm, MPI_STATUS_IGNORE);
    if (peer > 0) g_lost.insert(peer);
  }
}

void begin_phase_epoch() {
  ++g_epoch;
  set_phase(0);
}
void set_phase(int phase) {
  const long long value = (g_epoch << 32) + phase;
  if (value == g_phases[g_slot]) return;
  g_slot = (g_slot + 1) % g_phases.size();
  g_phases[g_slot] = value;
}
long long current_phase() { return g_phases[g_slot]; }
long long phase_of(int peer) {
  const auto it = g_peer_phase.find(peer);
  return it == g_peer_phase.end() ? -1 : it->second;
}
bool moved_on(int peer) { return phase_of(peer) > current_phase(); }
void note_heartbeat(int peer, long long phase) { g_peer_phase[peer] = std::max(phase, phase_of(peer)); }

void enable_heartbeats(MPI_Comm comm, int rank, double interval_s) {
  g_comm = comm;
  g_rank = rank;
  g_interval = std::chrono::duration_cast<Clock::duration>(Seconds(interval_s));
  g_last = Clock::now();
  set_heartbeat_audience({});
}

void set_heartbeat_audience(std::vector<int> ranks) {
  ranks.push_back(0);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  ranks.erase(std::remove_if(ranks.begin(), ranks.end(), [](int r) { return r < 0 || r == g_rank; }), ranks.end());
  g_audience = std::move(ranks);
}

namespace {
void beat_to_audience() {
  for (int to : g_audience) {
    // A lost peer hears nothing more: a send to a dead process's host makes MPI's TCP transport
    // try to connect to it again and again, and the waits of everyone else stall meanwhile.
    if (g_lost.count(to)) continue;
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(&g_phases[g_slot], 1, MPI_LONG_LONG, to, kTagHeartbeat, g_comm, &request) == MPI_SUCCESS)
      MPI_Request_free(&request);
  }
}
}  // namespace

void heartbeat() {
  if (g_comm == MPI_COMM_NULL || (++g_calls & 63u) != 0 || mpi_lost()) return;
  const auto now = Clock::now();
  if (now - g_last < g_interval) return;
  g_last = now;
  beat_to_audience();
}

void heartbeat_now() {
  if (g_comm == MPI_COMM_NULL || mpi_lost()) return;
  g_last = Clock::now();
  beat_to_audience();
}

bool heard_from(int peer) {
  if (g_comm == MPI_COMM_NULL || mpi_lost()) return false;
  bool heard = false;
  while (true) {
    int flag = 0;
    if (MPI_Iprobe(peer, kTagHeartbeat, g_comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) return heard;
    long long phase = 0;
    MPI_Recv(&phase, 1, MPI_LONG_LONG, peer, kTagHeartbeat, g_comm, MPI_STATUS_IGNORE);
    note_heartbeat(peer, phase);
    heard = true;
  }
}

}  // namespace ibgpu
