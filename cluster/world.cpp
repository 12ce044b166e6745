#include "cluster/world.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/line.h"
#include "core/errors.h"
#include "core/units.h"
#include "core/waits.h"

namespace ibgpu {

namespace {

constexpr std::size_t kHostLen = 256;

std::string local_host_name() {
  // Containers often carry a random hostname; the operator may name the node instead.
  if (const char* forced = std::getenv("IBGPU_HOSTNAME"); forced && *forced) return forced;
  std::array<char, kHostLen> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

}  // namespace

std::vector<std::string> World::hosts() const {
  std::vector<std::string> names;
  std::unordered_set<std::string_view> seen;
  for (const auto& p : places)
    if (seen.insert(p.host).second) names.push_back(p.host);
  return names;
}

std::vector<std::vector<int>> World::ranks_by_host() const {
  std::vector<std::vector<int>> ranks;
  std::unordered_map<std::string_view, std::size_t> index;  // host -> its place in hosts()
  for (const auto& p : places) {
    const auto [it, fresh] = index.emplace(p.host, ranks.size());
    if (fresh) ranks.emplace_back();
    ranks[it->second].push_back(p.rank);
  }
  return ranks;
}

std::vector<int> World::ranks_on(const std::string& host) const {
  std::vector<int> ranks;
  for (const auto& p : places)
    if (p.host == host) ranks.push_back(p.rank);
  return ranks;
}

std::vector<RankPlace> places_from_hosts(const std::vector<std::string>& hosts) {
  std::vector<RankPlace> places(hosts.size());
  std::map<std::string, int> seen;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    places[r].rank = static_cast<int>(r);
    places[r].host = hosts[r];
    places[r].local_rank = seen[hosts[r]]++;
  }
  for (auto& p : places) p.local_size = seen[p.host];
  return places;
}

World subworld(const World& world, const std::vector<int>& members) {
  World group;
  group.mpi = world.mpi;
  group.rank = -1;
  int previous = -1;
  for (int member : members) {
    if (member <= previous || member >= world.size)
      throw std::invalid_argument("subworld: ranks must be ascending ranks of the world");
    if (member == world.rank) group.rank = static_cast<int>(group.places.size());
    group.places.push_back(world.places.at(static_cast<std::size_t>(member)));
    previous = member;
  }
  if (group.rank < 0) throw std::invalid_argument("subworld: this rank is not a member");
  group.size = static_cast<int>(group.places.size());
  return group;
}

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(var)) return true;
  return false;
}

std::optional<LauncherTasks> launcher_tasks_over(long count) {
  for (const char* var : {"SLURM_STEP_NUM_TASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* value = std::getenv(var);
    if (!value) continue;
    const long tasks = std::strtol(value, nullptr, 10);
    if (tasks > count) return LauncherTasks{tasks, var, value};
  }
  return std::nullopt;
}

std::string split_launch(const World& world) {
  const auto launched = launcher_tasks_over(world.size);
  if (!launched) return {};
  std::string text = std::string("the launcher started ") + std::to_string(launched->tasks) + " tasks (" +
                     launched->variable + "=" + launched->value + ") but MPI joined " + std::to_string(world.size) +
                     ": each task would check its node alone. ";
  if (std::string_view(launched->variable) == "SLURM_STEP_NUM_TASKS")
    text +=
        "Launch with srun --mpi=pmix (or MpiDefault=pmix in slurm.conf; `srun --mpi=list` shows the "
        "plugins, and Slurm's PMIx plugin needs the PMIx library, Debian's libpmix2)";
  else
    text += "Launch with the mpirun of the MPI ibgpu was built with (OpenMPI)";
  return text;
}

MpiSession::MpiSession(int& argc, char**& argv, Seconds startup_timeout) {
  const std::string host = local_host_name();
  if (!launched_by_mpi()) {
    // A single process: no MPI at all, so `ibgpu inventory` works anywhere.
    world_.places = places_from_hosts({host});
    set_error_origin(host, 0);
    return;
  }
  int provided = 0;
  mpi_check(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  world_.mpi = true;
  mpi_check(MPI_Comm_rank(comm_, &world_.rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm_, &world_.size), "MPI_Comm_size");
  set_error_origin(host, world_.rank);

  std::array<char, kHostLen> mine{};
  std::strncpy(mine.data(), host.c_str(), kHostLen - 1);
  std::vector<char> all(kHostLen * static_cast<std::size_t>(world_.size));
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallgather(mine.data(), kHostLen, MPI_CHAR, all.data(), kHostLen, MPI_CHAR, comm_, &request),
            "MPI_Iallgather");
  if (!wait_with_deadline(request, Deadline(startup_timeout))) {
    // No world, no report: say so and end the job rather than hang in MPI_Finalize.
    if (world_.rank == 0)
      std::fprintf(stderr, "ibgpu: not every rank joined within %s of starting (a rank is dead or stopped)\n",
                   duration_text(startup_timeout).c_str());
    MPI_Abort(comm_, 3);
  }
  std::vector<std::string> hosts;
  for (int r = 0; r < world_.size; ++r) hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * kHostLen);
  world_.places = places_from_hosts(hosts);
}

MpiSession::~MpiSession() {
  if (!world_.mpi || finalized_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // Leaving without end(): something failed. A peer may be dead or stopped,
  // and MPI_Finalize would then hang forever; end the whole job instead.
  if (world_.size > 1) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Finalize();
}

int MpiSession::end(int exit_code, bool all_present, Seconds wait) {
  if (!world_.mpi) return exit_code;
  // Ranks that lost MPI (cluster/line.h) can never finalise: rank 0 releases those it heard on the
  // line with the code and ends the job; they wait for that release (bounded) and end it too.
  if (ends_over_line()) {
    line_listener()->release(exit_code);
    MPI_Abort(comm_, exit_code);
  }
  if (world_.rank != 0 && mpi_lost())
    MPI_Abort(comm_, wait_for_release_over_line(Deadline(wait).with_stop_grace(wait)).value_or(3));
  // A request given up on may still be progressed by MPI_Finalize into memory long gone, or
  // waited for forever: a rank with one must end the job (MPI_Abort) rather than finalise. And
  // all ranks must go the same way: OpenMPI 4.1's mpirun deadlocked in PMIx_server_finalize,
  // every rank gone, when one rank aborted while the others waited in MPI_Finalize's fence
  // (tests/tools/group_channel_ranks.cpp). So each rank votes to rank 0 with its count, point to
  // point (a collective on a communicator some rank gave up a collective on could pair with a
  // stale one), and rank 0's release says for all: the exit code, and " abort" where any voted so.
  bool abort_all = abandoned_requests() > 0;
  if (world_.rank == 0) {
    if (!all_present) MPI_Abort(comm_, exit_code);
    MpiMailbox votes(comm_, kTagEndVote);
    const Deadline deadline(wait);
    for (int r = 1; r < world_.size; ++r) {
      std::optional<std::string> vote;
      while (!(vote = votes.try_receive(r)) && !deadline.timed_out()) usleep(200);
      if (!vote) MPI_Abort(comm_, exit_code);  // a rank that never came to the end: end the job
      abort_all = abort_all || std::atoi(vote->c_str()) > 0;
    }
    // The release carries the job's exit code so every rank exits alike.
    const std::string release = std::to_string(exit_code) + (abort_all ? " abort" : "");
    for (int r = 1; r < world_.size; ++r)
      if (!send_with_deadline(comm_, r, kTagRelease, release, Deadline(wait))) MPI_Abort(comm_, exit_code);
  } else {
    if (!send_with_deadline(comm_, 0, kTagEndVote, std::to_string(abandoned_requests()), Deadline(wait)))
      MPI_Abort(comm_, 3);  // rank 0 is gone: no report will come from this job
    MpiMailbox mailbox(comm_, kTagRelease);
    Deadline deadline(wait);
    std::optional<std::string> release;
    // Not cut short by a stop: rank 0 is writing the report, and this rank's abort would end it.
    while (!(release = mailbox.try_receive(0)) && !deadline.timed_out()) usleep(200);
    if (!release) MPI_Abort(comm_, 3);  // rank 0 is gone: no report will come from this job
    exit_code = std::atoi(release->c_str());
    abort_all = release->ends_with(" abort");
  }
  if (abort_all) MPI_Abort(comm_, exit_code);
  MPI_Comm_free(&comm_);
  MPI_Finalize();
  finalized_ = true;
  return exit_code;
}

}  // namespace ibgpu

namespace ibgpu {
int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
}
namespace {
struct MpiLost {
  bool lost = false;
  std::string why;
};
MpiLost& mpi_lost_state() {
  static MpiLost state;
  return state;
}
}  // namespace

void mark_mpi_lost(std::string why) {
  MpiLost& s = mpi_lost_state();
  if (s.lost) return;
  s.lost = true;
  s.why = std::move(why);
}
bool mpi_lost() { return mpi_lost_state().lost; }
std::string why_mpi_lost() { return mpi_lost_state().why; }

}  // namespace ibgpu
