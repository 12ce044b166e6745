#include "cluster/liveness.h"

#include <algorithm>
#include <chrono>

#include "cluster/deadline.h"

namespace ibgpu {

namespace {
MPI_Comm g_comm = MPI_COMM_NULL;
int g_rank = 0;
std::vector<int> g_audience;
Clock::duration g_interval{};
Clock::time_point g_last{};
unsigned g_calls = 0;
const int kBeat = 1;  // the send buffer must outlive the freed requests
}  // namespace

void enable_heartbeats(MPI_Comm comm, int rank, double interval_s) {
  g_comm = comm;
  g_rank = rank;
  g_interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s));
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

void heartbeat() {
  if (g_comm == MPI_COMM_NULL || (++g_calls & 63u) != 0) return;
  const auto now = Clock::now();
  if (now - g_last < g_interval) return;
  g_last = now;
  for (int to : g_audience) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(&kBeat, 1, MPI_INT, to, kTagHeartbeat, g_comm, &request) == MPI_SUCCESS)
      MPI_Request_free(&request);
  }
}

bool heard_from(int peer) {
  if (g_comm == MPI_COMM_NULL) return false;
  bool heard = false;
  while (true) {
    int flag = 0;
    if (MPI_Iprobe(peer, kTagHeartbeat, g_comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) return heard;
    int beat = 0;
    MPI_Recv(&beat, 1, MPI_INT, peer, kTagHeartbeat, g_comm, MPI_STATUS_IGNORE);
    heard = true;
  }
}

}  // namespace ibgpu
