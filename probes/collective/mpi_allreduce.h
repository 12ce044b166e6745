#pragma once
// All-reduce with MPI on host memory: measures the host network (and MPI's
// transport choice), available wherever ibgpu runs under a launcher.
//
// Blocking (the job's all-reduce, where every rank takes part): the timed calls
// are blocking MPI_Allreduce, the loop an MPI benchmark times, on a watched
// thread (cluster/watched_work.h) so a stopped rank still ends the wait by the
// deadline. A run given up on leaves this process without MPI (cluster/line.h):
// every rank of the job is then in the same hung call, and all of them end over
// the line. Polled (groups that run beside other groups: a node's ranks, a
// rail's): MPI_Iallreduce polled with MPI_Test, so a rank given up on keeps MPI
// and still answers the roll calls and the gather; it costs more at small sizes
// (OpenMPI's non-blocking schedule). The correctness check always polls.
#include <mpi.h>

#include <cstddef>
#include <string>

#include "probes/collective/backend.h"
#include "probes/collective/host_buffers.h"

namespace ibgpu {

// What MPI's sum covers, for the backends that sum with MPI (this one and the ring's):
// MPI_FLOAT, MPI_DOUBLE or MPI_INT32_T (throws std::invalid_argument for half and bfloat16);
// empty, or why `count` elements of `type` cannot be summed (a usage error's text); empty, or
// why MPI cannot run here with `comm`.
MPI_Datatype mpi_sum_type(DType type);
std::string mpi_sum_unsupported(DType type, std::size_t count);
std::string mpi_unavailable(MPI_Comm comm);

class MpiAllReduce final : public AllReduceBackend {
 public:
  // `comm` must return errors, not abort (MpiSession's communicator does).
  // Each all-reduce gets `timeout` to complete.
  // `blocking`: time blocking calls on a watched thread (needs the job's line to be open).
  MpiAllReduce(MPI_Comm comm, Seconds timeout, bool blocking = false);
  ~MpiAllReduce() override;
  MpiAllReduce(const MpiAllReduce&) = delete;
  MpiAllReduce& operator=(const MpiAllReduce&) = delete;

  std::string name() const override { return "mpi"; }
  std::string unavailable_reason() override;
  std::string timed_call() const override;
  // Sums float, double and int32; MPI has no half or bfloat16 type. Counts are ints.
  std::string unsupported(DType type, std::size_t count) const override;

  void prepare(std::size_t max_bytes, DType type) override;
  double run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) override;
  std::uint64_t check(bool in_place, std::size_t count, DType type) override;

 private:
  void require(std::size_t count, DType type) const;
  MPI_Request start(bool in_place, std::size_t count, DType type);
  double run_blocking(bool in_place, std::size_t count, DType type, int warmup, int iters);
  double run_polled(bool in_place, std::size_t count, DType type, int warmup, int iters);

  MPI_Comm comm_;
  Seconds timeout_;
  int rank_ = 0, size_ = 1;
  SumBuffers buffers_;
  // A wait timed out and its request is still in MPI's hands; the buffers must outlive it.
  bool abandoned_ = false;
  // A duplicate of comm_ for the all-reduce's own calls, apart from ibgpu's other messages.
  // Never freed: a run given up on may still be inside a collective on it.
  MPI_Comm own_ = MPI_COMM_NULL;
  bool blocking_ = false;
  // Seconds per byte of the last timed run: what the next may take before the timeout counts.
  double pace_s_per_byte_ = 0;
};

}  // namespace ibgpu
