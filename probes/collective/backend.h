#pragma once
// One all-reduce interface, two implementations: MPI on host memory (runs
// everywhere, tests the host network) and NCCL on GPU memory (loaded at run
// time). Every wait has a deadline: a stopped or dead rank ends a wait with
// CollectiveTimeout, never a hang.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/deadline.h"
#include "probes/collective/dtype.h"

namespace ibgpu {

// A collective did not complete within the timeout (or a stop was requested).
// After it the backend is unusable: the operation may still be in flight.
class CollectiveTimeout : public std::runtime_error {
 public:
  // `waited_for`: e.g. "MPI_Iallreduce of 262144 x float, in-place (iteration 3 of 25)".
  CollectiveTimeout(const std::string& waited_for, Seconds timeout);
  const std::string& waited_for() const { return waited_for_; }

 private:
  std::string waited_for_;
};

// Test hooks, never set by the CLI: they prove that the check catches a
// corruption and blames the right rank.
struct AllReduceFaults {
  // On this rank, the lowest bit of one result element flips after the
  // collective: only this rank's check may fail.
  int corrupt_result_rank = -1;
  // On this rank, one input element is negated before the collective: every
  // rank's sum of that element is wrong.
  int corrupt_input_rank = -1;
  // On this rank, an error once its first all-reduce has been checked, as NCCL's asynchronous error
  // check reports one after the collective. The rank stays in step with its group (the sweep goes
  // on), so that what follows the sweep, its group's control, runs on real ranks.
  int error_rank = -1;
};

class AllReduceBackend {
 public:
  virtual ~AllReduceBackend() = default;

  virtual std::string name() const = 0;  // "mpi", "nccl": the probe id is collective.<name>.all_reduce
  // Empty when this rank can run the backend; else why not, e.g. "libnccl.so.2 not found: ...".
  // Cheap and local: loads libraries and counts devices, talks to no other rank.
  virtual std::string unavailable_reason() = 0;
  // Empty when `count` elements of `type` can be reduced; else why not (a usage error).
  virtual std::string unsupported(DType type, std::size_t count) const = 0;
  // The device this rank measures (e.g. "cuda:1"); empty for host memory.
  virtual std::string device() const { return {}; }
  // The call the timed loop makes, for the results' params (e.g. "MPI_Allreduce"); empty: the
  // backend's only one.
  virtual std::string timed_call() const { return {}; }

  // Collective over the backend's communicator: every rank calls it. Buffers for
  // messages up to `max_bytes`; may be called again with a larger size.
  virtual void prepare(std::size_t max_bytes, DType type) = 0;
  // Seconds per iteration: host wall clock around `iters` sum all-reduces launched
  // after `warmup` ones, until all have completed on this rank.
  virtual double run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) = 0;
  // Fills the input with fill_pattern, runs one all-reduce untimed and returns
  // how many result elements on this rank differ bit-exactly from expected_sum.
  virtual std::uint64_t check(bool in_place, std::size_t count, DType type) = 0;
  // After a CollectiveTimeout: the job rank whose silence or departure ended the wait, where the
  // backend waits on its peers one by one (the ring); nullopt where it cannot tell (MPI, NCCL).
  virtual std::optional<int> peer_given_up_on() const { return std::nullopt; }

  AllReduceFaults faults;
};

// "MPI_Iallreduce of 262144 x float, in-place": what a wait was waiting for.
std::string describe_allreduce(const char* call, bool in_place, std::size_t count, DType type);

}  // namespace ibgpu
