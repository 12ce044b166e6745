// Run under mpirun by tests/mpi/group_channel_test.sh: the point-to-point channel and ring of the
// ranks that came when one was lost (cluster/group_channel.h, probes/collective/ring_allreduce.h),
// among real MPI ranks. Each rank prints "rank R: PASS" or "rank R: FAIL: why"; the script reads
// the lines (mpirun's own exit status says little once a rank has left requests to MPI and aborted).
//
//   together: ranks 0, 1 and 3 (rank 2 sits it out) agree, gather, hand out 128 bytes (the NCCL
//             id's size) and sum by the ring, each checked exactly;
//   leaver:   rank 2 of four leaves the step without answering: the others' agreement ends
//             within the timeout, naming rank 2;
//   silent:   rank 3 of four stops beating and answering in the ring: its neighbours give up on
//             it within the timeout, naming it.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cluster/group_channel.h"
#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "core/deadline.h"
#include "probes/collective/ring_allreduce.h"

using namespace ibgpu;

namespace {

constexpr int kTag = 200, kRingTag = 202;
const Seconds kTimeout(2);

std::string together(int rank) {
  const std::vector<int> members{0, 1, 3};
  if (rank == 2) return {};
  MemberChannel channel(MPI_COMM_WORLD, members, kTag);
  const auto sum = channel.combine(rank + 1, Combine::sum, kTimeout);
  if (!sum || *sum != 1 + 2 + 4) return "sum " + (sum ? std::to_string(*sum) : std::string("none"));
  const auto max = channel.combine(rank, Combine::max, kTimeout);
  if (!max || *max != 3) return "max " + (max ? std::to_string(*max) : std::string("none"));
  const auto all = channel.gather({double(rank), 10.0 * rank}, kTimeout);
  const std::vector<double> want = rank == 0 ? std::vector<double>{0, 0, 1, 10, 3, 30} : std::vector<double>{};
  if (!all || *all != want) return "gather";
  TransferMemory<std::vector<unsigned char>> id(std::size_t{128});
  for (std::size_t i = 0; i < id->size(); ++i) (*id)[i] = rank == 0 ? static_cast<unsigned char>(i * 7 + 1) : 0;
  if (!channel.broadcast(id->data(), id->size(), kTimeout)) return "broadcast gave up";
  for (std::size_t i = 0; i < id->size(); ++i)
    if ((*id)[i] != static_cast<unsigned char>(i * 7 + 1)) return "broadcast byte " + std::to_string(i);
  RingAllReduce ring(MPI_COMM_WORLD, members, kRingTag, kTimeout);
  ring.prepare(4096 * sizeof(double), DType::f64);
  // Fewer elements than members (empty chunks), uneven chunks, each type, in place or not.
  for (std::size_t count : {std::size_t{2}, std::size_t{1000}, std::size_t{4096}})
    for (DType type : {DType::f32, DType::f64, DType::i32})
      for (bool in_place : {false, true})
        if (const auto wrong = ring.check(in_place, count, type); wrong != 0)
          return std::to_string(wrong) + " wrong of " + std::to_string(count) + " " + to_string(type) +
                 (in_place ? " in place" : "");
  if (ring.run_timed(false, 1000, DType::f32, 1, 3) <= 0) return "no time";
  return {};
}

std::string leaver(int rank) {
  if (rank == 2) {
    set_phase(1);  // on to the next step, beating: the others see it has left this one
    const Deadline a_while(Seconds(3));
    while (!a_while.expired()) {
      heartbeat();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
  }
  MemberChannel channel(MPI_COMM_WORLD, {0, 1, 2, 3}, kTag);
  const auto started = Clock::now();
  if (channel.combine(1, Combine::sum, kTimeout)) return "agreed without rank 2";
  const double took = Seconds(Clock::now() - started).count();
  if (took > 2 * kTimeout.count()) return "took " + std::to_string(took) + " s";
  if (channel.missing() != 2) return "missing " + (channel.missing() ? std::to_string(*channel.missing()) : "none");
  if (channel.combine(1, Combine::sum, kTimeout)) return "a broken channel agreed";
  return {};
}

std::string silent(int rank) {
  const std::vector<int> members{0, 1, 2, 3};
  if (rank == 3) {  // stopped: no beat, no message, for longer than the timeout
    std::this_thread::sleep_for(std::chrono::seconds(3 * static_cast<int>(kTimeout.count())));
    return {};
  }
  RingAllReduce ring(MPI_COMM_WORLD, members, kRingTag, kTimeout);
  ring.prepare(1 << 20, DType::f32);
  const auto started = Clock::now();
  try {
    ring.run_timed(false, 1 << 18, DType::f32, 0, 1);
    return "the ring ran without rank 3";
  } catch (const CollectiveTimeout&) {
  }
  const double took = Seconds(Clock::now() - started).count();
  if (took > 3 * kTimeout.count()) return "took " + std::to_string(took) + " s";
  // Rank 3's neighbours wait on it; rank 1 waits on rank 0, which gave up on rank 3 and so on.
  if ((rank == 0 || rank == 2) && ring.peer_given_up_on() != 3)
    return "gave up on " + (ring.peer_given_up_on() ? std::to_string(*ring.peer_given_up_on()) : "none");
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  enable_heartbeats(MPI_COMM_WORLD, rank, 0.05);
  set_heartbeat_audience({0, 1, 2, 3});
  const std::string test = argc > 1 ? argv[1] : "";
  std::string failure;
  try {
    failure = test == "together" ? together(rank)
              : test == "leaver" ? leaver(rank)
              : test == "silent" ? silent(rank)
                                 : "no test " + test;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::printf("rank %d: %s%s\n", rank, failure.empty() ? "PASS" : "FAIL: ", failure.c_str());
  std::fflush(stdout);
  // Past the test, beating, a while: a rank still waiting on this one sees it has left and ends
  // (a process that exits without MPI_Finalize makes mpirun end the others at once).
  set_phase(1000);
  const Deadline linger(Seconds(4));
  while (!linger.expired()) {
    heartbeat();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // A request given up on is left to MPI: MPI_Finalize could wait for it for ever, so such a rank
  // ends the job with MPI_Abort. It must not abort while others are in MPI_Finalize: OpenMPI 4.1's
  // mpirun was seen to deadlock in PMIx_server_finalize, every rank gone, when one rank aborted
  // (or exited without finalising) while the others waited in MPI_Finalize's fence (about 1 run
  // in 25 of this test). So the ranks agree first (nothing else runs collectives on WORLD here):
  // all abort or all finalise. Each says on stderr which way it ends; the script shows those lines on a hang.
  unsigned long mine = abandoned_requests(), most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (most > 0) {
    std::fprintf(stderr, "rank %d: MPI_Abort, %lu request(s) left to MPI here, %lu at most\n", rank, mine, most);
    MPI_Abort(MPI_COMM_WORLD, 0);
  }
  std::fprintf(stderr, "rank %d: MPI_Finalize\n", rank);
  MPI_Finalize();
  std::fprintf(stderr, "rank %d: finalized\n", rank);
  return 0;
}
