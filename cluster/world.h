#pragma once
// The MPI world as ibgpu sees it: who we are, where, and who else runs.
// Works under mpirun and srun, and as a single process without a launcher.
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "core/deadline.h"

namespace ibgpu {

struct RankPlace {
  int rank = 0;
  std::string host;
  int local_rank = 0;  // index among the ranks on the same host
  int local_size = 1;
};

struct World {
  int rank = 0;
  int size = 1;
  std::vector<RankPlace> places;  // one per rank, indexed by rank
  bool mpi = false;               // false: a single process without a launcher

  const RankPlace& self() const { return places.at(static_cast<std::size_t>(rank)); }
  const std::string& host() const { return self().host; }
  std::vector<std::string> hosts() const;  // distinct, in rank order of first appearance
  std::vector<int> ranks_on(const std::string& host) const;
  // The ranks of each of hosts(), in that order, each list in rank order: one pass over the
  // places, where ranks_on for every host would be one per host (at 4,096 hosts of 8 ranks, a
  // billion name comparisons on every rank to plan eight rounds).
  std::vector<std::vector<int>> ranks_by_host() const;
};

// Local ranks from host names alone, so hosts are what the launcher placed,
// not what shares memory: "a","b","a" -> local ranks 0,0,1 and sizes 2,1,2.
std::vector<RankPlace> places_from_hosts(const std::vector<std::string>& hosts);

// The ranks `members` (ranks of `world`, ascending, `world.rank` among them)
// as a world of their own, e.g. for a communicator split by host: rank and
// size count within the group; places keep their ranks in `world`, so results
// name the ranks the operator launched. Throws std::invalid_argument otherwise.
World subworld(const World& world, const std::vector<int>& members);

bool launched_by_mpi();  // OpenMPI, PMIx or PMI (srun) variables present

// The first launcher variable that says the job has more than `count` tasks (srun: the step's,
// not the allocation's: a batch script may run one ibgpu inside a larger job), with its count;
// none otherwise. Readable before MPI_Init.
struct LauncherTasks {
  long tasks = 1;
  const char* variable = nullptr;
  const char* value = nullptr;
};
std::optional<LauncherTasks> launcher_tasks_over(long count);

// Where the launcher's variables say the job has more tasks than the MPI world
// holds, the usage error to stop with: srun without a PMI plugin (Slurm's
// default MpiDefault=none) starts every task as a world of one, and each would
// check its node alone and call it healthy. Empty when the world is the job.
std::string split_launch(const World& world);

// Owns MPI_Init/MPI_Finalize, the communicator ibgpu uses (errors returned,
// never fatal), and the end-of-job protocol that avoids hanging in
// MPI_Finalize when a peer is lost.
// Every command runs MPI at MPI_THREAD_SINGLE: OpenMPI 4.1 turns its locks on at every level
// above it, which costs its point-to-point path about 7% (8-byte ping-pong on shared memory) and
// its small all-reduce 10-20%. One thread calls MPI at a time; the all-reduce's blocking loop runs
// on a thread of its own while the main thread only watches the clock (cluster/watched_work.h),
// and a process that gives up on that thread has lost MPI (cluster/line.h).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv, Seconds startup_timeout);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  const World& world() const { return world_; }
  MPI_Comm comm() const { return comm_; }

  // Ends the job; returns the process exit code. Rank 0 passes its code and
  // whether every rank answered; the other ranks wait (bounded) for rank 0's
  // release and take its code. With a peer lost MPI_Finalize can hang
  // forever, so the job is aborted with the code instead and this does not
  // return (rank 0 has written its report by then). A process that lost MPI
  // (cluster/line.h) ends over the line: rank 0 releases the ranks it heard
  // there, and every such process ends with MPI_Abort. The others end alike: each votes to rank
  // 0 whether it gave up on an MPI request, and if any did, the release tells all to abort
  // (finalising beside an abort deadlocked OpenMPI's mpirun).
  int end(int exit_code, bool all_present, Seconds wait);

 private:
  World world_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool finalized_ = false;
};

}  // namespace ibgpu

namespace ibgpu {
// The rank a launcher assigned, readable before MPI_Init (so only rank 0
// prints usage errors); 0 without a launcher.
int launcher_rank();

// This process has given up on a thread still inside MPI: no MPI call from now on but MPI_Abort
// (its results go to rank 0 over the line: cluster/line.h). Process state, set once; the first
// reason stays.
void mark_mpi_lost(std::string why);
bool mpi_lost();
std::string why_mpi_lost();
}  // namespace ibgpu
