#include "probes/collective/ring_allreduce.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "core/errors.h"
#include "probes/collective/mpi_allreduce.h"
#include "probes/collective/pattern.h"

namespace ibgpu {

namespace {

template <class T>
void add_into(std::byte* into, const std::byte* from, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    T a, b;
    std::memcpy(&a, into + i * sizeof(T), sizeof(T));
    std::memcpy(&b, from + i * sizeof(T), sizeof(T));
    a = static_cast<T>(a + b);
    std::memcpy(into + i * sizeof(T), &a, sizeof(T));
  }
}

void add_into(DType type, std::byte* into, const std::byte* from, std::size_t count) {
  switch (type) {
    case DType::f32:
      return add_into<float>(into, from, count);
    case DType::f64:
      return add_into<double>(into, from, count);
    case DType::i32:
      return add_into<std::int32_t>(into, from, count);
    case DType::f16:
    case DType::bf16:
      break;
  }
  throw std::invalid_argument(std::string("the ring cannot sum ") + to_string(type));
}

}  // namespace

RingAllReduce::RingAllReduce(MPI_Comm parent, std::vector<int> members, int tag, Seconds timeout)
    : parent_(parent), members_(std::move(members)), tag_(tag), timeout_(timeout) {}

RingAllReduce::~RingAllReduce() {
  if (!abandoned_) return;
  // MPI may still move data of the step given up on (cluster/kept_memory.h).
  buffers_.keep_until_exit();
  incoming_.keep_until_exit();
}

std::string RingAllReduce::unavailable_reason() { return mpi_unavailable(parent_); }

std::string RingAllReduce::unsupported(DType type, std::size_t count) const { return mpi_sum_unsupported(type, count); }

void RingAllReduce::prepare(std::size_t max_bytes, DType type) {
  if (std::string why = unsupported(type, max_bytes / dtype_size(type)); !why.empty()) throw UsageError(why);
  if (abandoned_) throw std::logic_error("ring all-reduce used again after a timeout");
  int rank = 0;
  mpi_check(MPI_Comm_rank(parent_, &rank), "MPI_Comm_rank");
  const auto it = std::find(members_.begin(), members_.end(), rank);
  if (it == members_.end()) throw std::logic_error("ring all-reduce: this rank is not a member");
  me_ = static_cast<std::size_t>(it - members_.begin());
  buffers_.reserve(max_bytes);
  // The largest chunk a step receives: a member's share, rounded up.
  incoming_.reserve(max_bytes / members_.size() + dtype_size(type));
}

void RingAllReduce::require(std::size_t count, DType type) const {
  if (abandoned_) throw std::logic_error("ring all-reduce used again after a timeout");
  if (std::string why = unsupported(type, count); !why.empty()) throw UsageError(why);
  if (count * dtype_size(type) > buffers_.size())
    throw std::logic_error("ring all-reduce of " + std::to_string(count * dtype_size(type)) +
                           " B exceeds the prepared " + std::to_string(buffers_.size()) + " B");
}

bool RingAllReduce::exchange(const std::byte* out, int send_count, std::byte* in, int recv_count, DType type) {
  const std::size_t n = members_.size();
  const int next = members_[(me_ + 1) % n];
  const int prev = members_[(me_ + n - 1) % n];
  const MPI_Datatype datatype = mpi_sum_type(type);
  std::vector<MPI_Request> receiving(1, MPI_REQUEST_NULL), sending(1, MPI_REQUEST_NULL);
  // Until both have completed, MPI may write the buffers: an error thrown meanwhile (a failed
  // post, a process failure) must leave them to the destructor's keeping, not free them.
  abandoned_ = true;
  mpi_check(MPI_Irecv(in, recv_count, datatype, prev, tag_, parent_, &receiving[0]), "MPI_Irecv");
  mpi_check(MPI_Isend(out, send_count, datatype, next, tag_, parent_, &sending[0]), "MPI_Isend");
  const bool received = wait_for_peer(receiving, prev, timeout_);
  if (received && wait_for_peer(sending, next, timeout_)) {
    abandoned_ = false;
    return true;
  }
  if (!received && sending[0] != MPI_REQUEST_NULL) note_abandoned_request();  // a send is left to MPI
  given_up_on_ = received ? next : prev;
  return false;
}

std::string RingAllReduce::reduce(bool in_place, std::size_t count, DType type) {
  const std::size_t n = members_.size();
  const std::size_t size = dtype_size(type);
  std::byte* data = buffers_.recv.data();
  if (!in_place) std::memcpy(data, buffers_.send.data(), count * size);
  // Chunk c: elements [c * count / n, (c + 1) * count / n).
  auto first = [&](std::size_t c) { return c * count / n; };
  auto length = [&](std::size_t c) { return static_cast<int>(first(c + 1) - first(c)); };
  for (std::size_t step = 0; step + 1 < n; ++step) {  // reduce-scatter
    const std::size_t out = (me_ + n - step) % n, in = (me_ + 2 * n - step - 1) % n;
    if (!exchange(data + first(out) * size, length(out), incoming_.data(), length(in), type))
      return "reduce-scatter step " + std::to_string(step + 1);
    add_into(type, data + first(in) * size, incoming_.data(), static_cast<std::size_t>(length(in)));
  }
  for (std::size_t step = 0; step + 1 < n; ++step) {  // all-gather: each member holds chunk me + 1 whole
    const std::size_t out = (me_ + 1 + n - step) % n, in = (me_ + n - step) % n;
    if (!exchange(data + first(out) * size, length(out), data + first(in) * size, length(in), type))
      return "all-gather step " + std::to_string(step + 1);
  }
  return {};
}

double RingAllReduce::run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) {
  require(count, type);
  if (iters < 1 || warmup < 0) throw std::invalid_argument("run_timed: iters >= 1 and warmup >= 0 required");
  buffers_.zero(count * dtype_size(type));
  Clock::time_point started{};
  for (int it = 0; it < warmup + iters; ++it) {
    if (it == warmup) started = Clock::now();
    const std::string failed = stop_requested() ? "before it, at a stop signal" : reduce(in_place, count, type);
    if (!failed.empty())
      throw CollectiveTimeout(describe_allreduce("ring all-reduce", in_place, count, type) + " (iteration " +
                                  std::to_string(it + 1) + " of " + std::to_string(warmup + iters) + ", " + failed +
                                  ")",
                              timeout_);
  }
  return Seconds(Clock::now() - started).count() / iters;
}

std::uint64_t RingAllReduce::check(bool in_place, std::size_t count, DType type) {
  require(count, type);
  buffers_.patterned();
  const int rank = static_cast<int>(me_), nranks = static_cast<int>(members_.size());
  std::byte* input = in_place ? buffers_.recv.data() : buffers_.send.data();
  fill_pattern(type, rank, nranks, count, input);
  if (rank == faults.corrupt_input_rank && count > 0) negate_element(type, input, count / 2);
  if (!in_place) std::memset(buffers_.recv.data(), 0xff, count * dtype_size(type));
  if (const std::string failed = reduce(in_place, count, type); !failed.empty())
    throw CollectiveTimeout(
        describe_allreduce("ring all-reduce", in_place, count, type) + " (correctness check, " + failed + ")",
        timeout_);
  if (rank == faults.corrupt_result_rank && count > 0) flip_lowest_bit(type, buffers_.recv.data(), count / 2);
  return count_wrong(type, buffers_.recv.data(), nranks, count);
}

}  // namespace ibgpu
