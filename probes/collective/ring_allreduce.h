#pragma once
// All-reduce on host memory among some ranks of the job's communicator, over point-to-point
// messages: the ranks that came when another was lost (app/collectives.cpp). MPI's own all-reduce
// needs a communicator of theirs, and making one is a blocking collective that hangs when one of
// them never enters it; this needs none.
//
// A ring (the schedule NCCL and large-message MPI all-reduces use): a reduce-scatter of n - 1
// steps, then an all-gather of n - 1 steps, each step a send to the next member and a receive
// from the previous one. Each wait is for one peer (cluster/gather.h wait_for_peer): it ends when
// that peer has been silent for the timeout or has left the step, and the run then ends with
// CollectiveTimeout. Sums float, double and int32, as the MPI backend does; the figures are this
// ring's, recorded as such (timed_call), not MPI_Allreduce's.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "probes/collective/backend.h"
#include "probes/collective/host_buffers.h"

namespace ibgpu {

class RingAllReduce final : public AllReduceBackend {
 public:
  // `members`: ascending ranks of `parent` (which returns errors), this rank among them.
  // `tag`: the ring's alone on `parent` (cluster/tags.h).
  RingAllReduce(MPI_Comm parent, std::vector<int> members, int tag, Seconds timeout);
  ~RingAllReduce() override;
  RingAllReduce(const RingAllReduce&) = delete;
  RingAllReduce& operator=(const RingAllReduce&) = delete;

  std::string name() const override { return "mpi"; }
  std::string unavailable_reason() override;
  std::string timed_call() const override { return "ring of MPI_Isend/MPI_Irecv"; }
  std::string unsupported(DType type, std::size_t count) const override;

  void prepare(std::size_t max_bytes, DType type) override;
  double run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) override;
  std::uint64_t check(bool in_place, std::size_t count, DType type) override;
  std::optional<int> peer_given_up_on() const override { return given_up_on_; }

 private:
  void require(std::size_t count, DType type) const;
  // One all-reduce of the send buffer (or the receive buffer in place) into the receive buffer:
  // empty, or the step it gave up at.
  std::string reduce(bool in_place, std::size_t count, DType type);
  // One step: `send_count` elements at `out` to the next member, `recv_count` from the previous
  // one into `in`; false when a wait gave up.
  bool exchange(const std::byte* out, int send_count, std::byte* in, int recv_count, DType type);

  MPI_Comm parent_;
  std::vector<int> members_;
  std::size_t me_ = 0;
  int tag_;
  Seconds timeout_;
  SumBuffers buffers_;
  HostBuffer incoming_;
  // A wait gave up with a transfer still in MPI's hands: the buffers must outlive it.
  bool abandoned_ = false;
  std::optional<int> given_up_on_;
};

}  // namespace ibgpu
