#pragma once
// All-reduce with NCCL on GPU memory, NCCL and the CUDA runtime loaded at run
// time. Without them, or without a device for this rank, unavailable_reason()
// says why and nothing else is attempted.
#include <mpi.h>

#include <memory>

#include "probes/collective/backend.h"

namespace ibgpu {

class Deadline;
class GroupChannel;

class NcclAllReduce final : public AllReduceBackend {
 public:
  // The NCCL unique id travels from rank 0 over `channel` (null is allowed for a
  // single process, nranks 1; else it must outlive the backend). The device is
  // the rank's local rank among the visible CUDA devices (device 0 when the
  // launcher shows each rank one device). Every wait gets `timeout`.
  NcclAllReduce(GroupChannel* channel, int rank, int nranks, int local_rank, Seconds timeout);
  ~NcclAllReduce() override;
  NcclAllReduce(const NcclAllReduce&) = delete;
  NcclAllReduce& operator=(const NcclAllReduce&) = delete;

  std::string name() const override { return "nccl"; }
  std::string unavailable_reason() override;
  std::string unsupported(DType type, std::size_t count) const override;
  std::string device() const override;

  void prepare(std::size_t max_bytes, DType type) override;
  double run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) override;
  std::uint64_t check(bool in_place, std::size_t count, DType type) override;

 private:
  struct State;
  void init_comm();
  void require(std::size_t count, DType type);
  void launch(bool in_place, std::size_t count, DType type, const std::string& what);
  void drain(const std::string& what);
  void wait_event(std::size_t slot, const std::string& what);
  void wait_stream(const std::string& what);
  void poll_health(const Deadline& deadline, const std::string& what);
  [[noreturn]] void give_up(const std::string& what);

  GroupChannel* channel_;
  int rank_, nranks_, local_rank_;
  Seconds timeout_;
  std::unique_ptr<State> state_;
};

}  // namespace ibgpu
