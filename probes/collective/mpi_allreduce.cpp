#include "probes/collective/mpi_allreduce.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "cluster/watched_work.h"
#include "cluster/world.h"
#include "core/deadline.h"
#include "core/errors.h"
#include "core/units.h"
#include "core/waits.h"
#include "probes/collective/pattern.h"

namespace ibgpu {

namespace {

// Spins, looking at the clock and sending heartbeats every 256 polls. On expiry
// the request is left alone: the standard forbids cancelling or freeing a
// collective's request.
bool spin_until_complete(MPI_Request& request, const Deadline& deadline) {
  for (unsigned polls = 0;; ++polls) {
    int done = 0;
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    if ((polls & 255u) == 255u) {
      heartbeat();
      if (deadline.expired()) {
        note_abandoned_request();
        return false;
      }
    }
  }
}

}  // namespace

MPI_Datatype mpi_sum_type(DType type) {
  switch (type) {
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::i32:
      return MPI_INT32_T;
    case DType::f16:
    case DType::bf16:
      break;
  }
  throw std::invalid_argument(std::string("MPI cannot sum ") + to_string(type));
}

std::string mpi_sum_unsupported(DType type, std::size_t count) {
  if (type == DType::f16 || type == DType::bf16)
    return std::string("MPI has no ") + to_string(type) + " sum (MPI_SUM covers float, double and int32); use " +
           "--dtype float, or the nccl backend for " + to_string(type);
  if (count > static_cast<std::size_t>(INT_MAX))
    return "MPI counts are int: " + std::to_string(count) + " elements exceed " + std::to_string(INT_MAX) +
           "; use a smaller size";
  return {};
}

std::string mpi_unavailable(MPI_Comm comm) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised) return "MPI is not initialised (ibgpu was not started by mpirun or srun)";
  if (comm == MPI_COMM_NULL) return "no MPI communicator";
  return {};
}

MpiAllReduce::MpiAllReduce(MPI_Comm comm, Seconds timeout, bool blocking)
    : comm_(comm), timeout_(timeout), blocking_(blocking) {}

std::string MpiAllReduce::timed_call() const { return blocking_ ? "MPI_Allreduce" : "MPI_Iallreduce"; }

MpiAllReduce::~MpiAllReduce() {
  if (!abandoned_) return;
  // MPI may still complete the abandoned all-reduce into these buffers (cluster/kept_memory.h).
  buffers_.keep_until_exit();
}

std::string MpiAllReduce::unavailable_reason() { return mpi_unavailable(comm_); }

std::string MpiAllReduce::unsupported(DType type, std::size_t count) const { return mpi_sum_unsupported(type, count); }

void MpiAllReduce::prepare(std::size_t max_bytes, DType type) {
  if (std::string why = unsupported(type, max_bytes / dtype_size(type)); !why.empty()) throw UsageError(why);
  if (abandoned_) throw std::logic_error("mpi all-reduce used again after a timeout");
  mpi_check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  if (own_ == MPI_COMM_NULL) {
    MPI_Request request = MPI_REQUEST_NULL;
    mpi_check(MPI_Comm_idup(comm_, &own_, &request), "MPI_Comm_idup");
    if (!wait_with_deadline(request, Deadline(timeout_))) {
      abandoned_ = true;
      throw CollectiveTimeout("MPI_Comm_idup (the all-reduce's communicator)", timeout_);
    }
    MPI_Comm_set_errhandler(own_, MPI_ERRORS_RETURN);
  }
  buffers_.reserve(max_bytes);
}

void MpiAllReduce::require(std::size_t count, DType type) const {
  if (abandoned_) throw std::logic_error("mpi all-reduce used again after a timeout");
  if (std::string why = unsupported(type, count); !why.empty()) throw UsageError(why);
  if (count * dtype_size(type) > buffers_.size())
    throw std::logic_error("mpi all-reduce of " + std::to_string(count * dtype_size(type)) +
                           " B exceeds the prepared " + std::to_string(buffers_.size()) + " B");
}

MPI_Request MpiAllReduce::start(bool in_place, std::size_t count, DType type) {
  MPI_Request request = MPI_REQUEST_NULL;
  const void* input = in_place ? MPI_IN_PLACE : static_cast<const void*>(buffers_.send.data());
  mpi_check(
      MPI_Iallreduce(input, buffers_.recv.data(), static_cast<int>(count), mpi_sum_type(type), MPI_SUM, own_, &request),
      "MPI_Iallreduce");
  return request;
}

double MpiAllReduce::run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) {
  require(count, type);
  if (iters < 1 || warmup < 0) throw std::invalid_argument("run_timed: iters >= 1 and warmup >= 0 required");
  // A stop ends the run now, between runs (nothing in flight), not after the sweep: the
  // launcher's SIGKILL follows its SIGTERM within a second.
  if (stop_requested())
    throw CollectiveTimeout(describe_allreduce(blocking_ ? "MPI_Allreduce" : "MPI_Iallreduce", in_place, count, type) +
                                " (before a run of " + std::to_string(warmup + iters) + " calls)",
                            timeout_);
  buffers_.zero(count * dtype_size(type));
  return blocking_ ? run_blocking(in_place, count, type, warmup, iters)
                   : run_polled(in_place, count, type, warmup, iters);
}

double MpiAllReduce::run_blocking(bool in_place, std::size_t count, DType type, int warmup, int iters) {
  // What the work thread touches: values, and buffers the destructor keeps if it is given up on.
  const void* input = in_place ? MPI_IN_PLACE : static_cast<const void*>(buffers_.send.data());
  void* output = buffers_.recv.data();
  const int n = static_cast<int>(count);
  const MPI_Datatype datatype = mpi_sum_type(type);
  const MPI_Comm comm = own_;
  const int calls = warmup + iters;
  auto seconds = std::make_shared<double>(0);
  auto work = [=](const std::atomic<bool>& given_up) {
    Clock::time_point started = Clock::now();
    for (int it = 0; it < calls && !given_up; ++it) {
      if (it == warmup) started = Clock::now();
      mpi_check(MPI_Allreduce(input, output, n, datatype, MPI_SUM, comm), "MPI_Allreduce");
    }
    *seconds = Seconds(Clock::now() - started).count();
  };
  // The run may take what the last one's pace says it needs, and the timeout on top: waits
  // measure silence, and inside a blocking call silence cannot be told from work.
  const double bytes = static_cast<double>(count * dtype_size(type));
  const Seconds limit(std::ceil((timeout_ + Seconds(pace_s_per_byte_ * bytes * calls)).count() * 10) / 10);
  if (!run_watched(work, limit)) {
    abandoned_ = true;
    const std::string what =
        describe_allreduce("MPI_Allreduce", in_place, count, type) + " (a run of " + std::to_string(calls) + " calls)";
    mark_mpi_lost("gave up on " + what + (stop_requested() ? " at a stop signal" : " after " + duration_text(limit)));
    throw CollectiveTimeout(what, limit);
  }
  if (bytes > 0) pace_s_per_byte_ = *seconds / iters / bytes;
  return *seconds / iters;
}

// wait_with_deadline sleeps 50 us between polls: fine for the check, but in the timed loop it
// would put a floor under every small-message iteration. spin_until_complete spins instead.
double MpiAllReduce::run_polled(bool in_place, std::size_t count, DType type, int warmup, int iters) {
  const Seconds timeout(timeout_);
  Clock::time_point started{};
  for (int it = 0; it < warmup + iters; ++it) {
    if (it == warmup) started = Clock::now();
    if (stop_requested())
      throw CollectiveTimeout(describe_allreduce("MPI_Iallreduce", in_place, count, type) + " (iteration " +
                                  std::to_string(it + 1) + " of " + std::to_string(warmup + iters) + ")",
                              timeout_);
    MPI_Request request = start(in_place, count, type);
    if (!spin_until_complete(request, Deadline(timeout))) {
      abandoned_ = true;
      throw CollectiveTimeout(describe_allreduce("MPI_Iallreduce", in_place, count, type) + " (iteration " +
                                  std::to_string(it + 1) + " of " + std::to_string(warmup + iters) + ")",
                              timeout_);
    }
  }
  return Seconds(Clock::now() - started).count() / iters;
}

std::uint64_t MpiAllReduce::check(bool in_place, std::size_t count, DType type) {
  require(count, type);
  buffers_.patterned();
  std::byte* input = in_place ? buffers_.recv.data() : buffers_.send.data();
  fill_pattern(type, rank_, size_, count, input);
  if (rank_ == faults.corrupt_input_rank && count > 0) negate_element(type, input, count / 2);
  // Poisoned (NaN, or -1 for int32): an all-reduce that writes nothing cannot pass.
  if (!in_place) std::memset(buffers_.recv.data(), 0xff, count * dtype_size(type));
  MPI_Request request = start(in_place, count, type);
  if (!wait_with_deadline(request, Deadline(timeout_))) {
    abandoned_ = true;
    throw CollectiveTimeout(describe_allreduce("MPI_Iallreduce", in_place, count, type) + " (correctness check)",
                            timeout_);
  }
  if (rank_ == faults.corrupt_result_rank && count > 0) flip_lowest_bit(type, buffers_.recv.data(), count / 2);
  return count_wrong(type, buffers_.recv.data(), size_, count);
}

}  // namespace ibgpu
