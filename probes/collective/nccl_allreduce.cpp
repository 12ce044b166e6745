#include "probes/collective/nccl_allreduce.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cluster/gather.h"
#include "cluster/group_channel.h"
#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "core/deadline.h"
#include "core/errors.h"
#include "probes/collective/nccl_library.h"
#include "probes/collective/pattern.h"
#include "probes/cuda/runtime.h"

namespace ibgpu {

namespace {

// All-reduces in flight at once. Enough to keep the GPU busy back to back, and
// far below CUDA's launch queue (about a thousand entries): past it a launch
// blocks inside CUDA, where no deadline reaches when a peer is gone.
constexpr std::size_t kWindow = 32;
// Host staging for the correctness check: patterns are built and compared in
// chunks, so a 16 GiB message does not need 16 GiB of host memory.
constexpr std::size_t kStagingBytes = std::size_t{64} << 20;

}  // namespace

// Members in dependency order: libraries first (unloaded last), the
// communicator last (destroyed first, before the memory it uses).
struct NcclAllReduce::State {
  CudaRuntime cuda;
  NcclLibrary nccl;
  std::optional<std::string> unavailable;  // cached answer of unavailable_reason()
  int device = -1;
  std::optional<CudaStream> stream;
  CudaBuffer send, recv;
  std::vector<CudaEvent> events;  // one per in-flight slot
  std::vector<std::byte> staging;
  std::optional<NcclComm> comm;
  std::size_t next_slot = 0, in_flight = 0;
  bool aborted = false;    // a wait timed out or NCCL failed asynchronously: the communicator is gone
  bool abandoned = false;  // ncclCommInitRank never returned: a helper thread is still inside libnccl
};

NcclAllReduce::NcclAllReduce(GroupChannel* channel, int rank, int nranks, int local_rank, Seconds timeout)
    : channel_(channel),
      rank_(rank),
      nranks_(nranks),
      local_rank_(local_rank),
      timeout_(timeout),
      state_(std::make_unique<State>()) {}

NcclAllReduce::~NcclAllReduce() {
  // Unloading libnccl under a thread still running its code would crash the
  // process; the job ends soon after such a timeout anyway.
  if (state_ && state_->abandoned) static_cast<void>(state_.release());
}

std::string NcclAllReduce::unavailable_reason() {
  State& s = *state_;
  if (s.unavailable) return *s.unavailable;
  s.unavailable = [&]() -> std::string {
    if (std::string why = s.cuda.load(); !why.empty()) return why;
    if (std::string why = s.nccl.load(); !why.empty()) return why;
    int count = 0;
    if (const auto rc = s.cuda.get_device_count(&count); rc != CudaRuntime::kSuccess)
      return "no CUDA device (cudaGetDeviceCount: " + s.cuda.describe(rc) + ")";
    if (count == 0) return "no CUDA device (cudaGetDeviceCount: 0 devices)";
    // One visible device: the launcher gave each rank its own (or ranks share
    // one, which NCCL refuses with a clear error of its own).
    if (count > 1 && local_rank_ >= count)
      return "local rank " + std::to_string(local_rank_) + " has no GPU of its own: " + std::to_string(count) +
             " CUDA devices visible";
    if (!channel_ && nranks_ > 1) return "no MPI communicator to share the NCCL unique id";
    s.device = count == 1 ? 0 : local_rank_;
    return {};
  }();
  return *s.unavailable;
}

std::string NcclAllReduce::unsupported(DType type, std::size_t) const {
  const int version = state_->nccl.version;
  if (type == DType::bf16 && version > 0 && version < 21000)
    return "NCCL " + nccl_version_text(version) + " has no bfloat16 (needs 2.10)";
  return {};
}

std::string NcclAllReduce::device() const {
  return state_->device >= 0 ? "cuda:" + std::to_string(state_->device) : std::string();
}

void NcclAllReduce::prepare(std::size_t max_bytes, DType type) {
  if (std::string why = unavailable_reason(); !why.empty()) throw std::logic_error("nccl prepare: " + why);
  if (std::string why = unsupported(type, 0); !why.empty()) throw UsageError(why);
  State& s = *state_;
  if (s.aborted || s.abandoned) throw std::logic_error("nccl all-reduce used again after a timeout");
  s.cuda.check(s.cuda.set_device(s.device), "cudaSetDevice");
  if (!s.stream) s.stream.emplace(s.cuda);
  while (s.events.size() < kWindow) s.events.emplace_back(s.cuda);
  if (s.recv.bytes() < max_bytes) {
    s.send = CudaBuffer();  // free first: GPU memory may not hold both sizes
    s.recv = CudaBuffer();
    s.send = CudaBuffer(s.cuda, max_bytes);
    s.recv = CudaBuffer(s.cuda, max_bytes);
    s.cuda.check(s.cuda.memset_async(s.send.get(), 0, max_bytes, s.stream->get()), "cudaMemsetAsync");
    s.cuda.check(s.cuda.memset_async(s.recv.get(), 0, max_bytes, s.stream->get()), "cudaMemsetAsync");
    wait_stream("zeroing the all-reduce buffers");
  }
  if (!s.comm) init_comm();
}

void NcclAllReduce::init_comm() {
  State& s = *state_;
  // Kept past a broadcast given up on (the throw below): MPI may still write it.
  TransferMemory<NcclLibrary::UniqueId> kept_id{};
  NcclLibrary::UniqueId& id = *kept_id;
  if (rank_ == 0) s.nccl.check(s.nccl.get_unique_id(&id), "ncclGetUniqueId");
  if (nranks_ > 1 && !channel_->broadcast(&id, sizeof id, timeout_)) {
    kept_id.abandon();
    throw CollectiveTimeout("the NCCL unique id from rank 0 (MPI)", timeout_);
  }
  // ncclCommInitRank waits for every rank and takes no timeout: it runs on a
  // helper thread, so a rank lost now is a timeout here rather than a hang.
  struct Pending {
    std::atomic<bool> done{false};
    CudaRuntime::Error cuda_rc = CudaRuntime::kSuccess;
    NcclLibrary::Result nccl_rc = NcclLibrary::kSuccess;
    NcclLibrary::Comm comm = nullptr;
  };
  auto pending = std::make_shared<Pending>();
  std::thread([pending, set_device = s.cuda.set_device, init = s.nccl.comm_init_rank, device = s.device,
               nranks = nranks_, rank = rank_, id] {
    pending->cuda_rc = set_device(device);  // the current device is per thread
    if (pending->cuda_rc == CudaRuntime::kSuccess) pending->nccl_rc = init(&pending->comm, nranks, id, rank);
    pending->done.store(true, std::memory_order_release);
  }).detach();
  const Deadline deadline{timeout_};
  while (!pending->done.load(std::memory_order_acquire)) {
    heartbeat();
    if (deadline.expired()) {
      s.abandoned = true;
      throw CollectiveTimeout("ncclCommInitRank of " + std::to_string(nranks_) + " ranks", timeout_);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  s.cuda.check(pending->cuda_rc, "cudaSetDevice");
  s.nccl.check(pending->nccl_rc, "ncclCommInitRank");
  s.comm.emplace(s.nccl, pending->comm);
}

void NcclAllReduce::require(std::size_t count, DType type) {
  State& s = *state_;
  if (s.aborted || s.abandoned) throw std::logic_error("nccl all-reduce used again after a timeout");
  if (!s.comm) throw std::logic_error("nccl all-reduce used before prepare()");
  if (count * dtype_size(type) > s.recv.bytes())
    throw std::logic_error("nccl all-reduce of " + std::to_string(count * dtype_size(type)) +
                           " B exceeds the prepared " + std::to_string(s.recv.bytes()) + " B");
  s.cuda.check(s.cuda.set_device(s.device), "cudaSetDevice");
}

[[noreturn]] void NcclAllReduce::give_up(const std::string& what) {
  State& s = *state_;
  if (s.comm) s.comm->abort();  // in-flight kernels exit, so the buffers can be freed later
  s.comm.reset();
  s.aborted = true;
  throw CollectiveTimeout(what, timeout_);
}

// Every 1024 polls: a heartbeat, NCCL's own verdict on the communicator (a
// network error is reported there, not by CUDA), and the deadline.
void NcclAllReduce::poll_health(const Deadline& deadline, const std::string& what) {
  State& s = *state_;
  heartbeat();
  NcclLibrary::Result async = NcclLibrary::kSuccess;
  if (s.comm && s.nccl.comm_get_async_error(s.comm->get(), &async) == NcclLibrary::kSuccess &&
      async != NcclLibrary::kSuccess && async != NcclLibrary::kInProgress) {
    s.comm->abort();
    s.comm.reset();
    s.aborted = true;
    throw CallError("ncclAllReduce", s.nccl.describe(async) + " while waiting for " + what);
  }
  if (deadline.expired()) give_up(what);
}

void NcclAllReduce::wait_event(std::size_t slot, const std::string& what) {
  State& s = *state_;
  const Deadline deadline{timeout_};
  for (unsigned polls = 1;; ++polls) {
    const auto rc = s.cuda.event_query(s.events[slot].get());
    if (rc == CudaRuntime::kSuccess) return;
    if (rc != CudaRuntime::kNotReady) s.cuda.check(rc, "cudaEventQuery");
    if ((polls & 1023u) == 0) poll_health(deadline, what);
  }
}

void NcclAllReduce::wait_stream(const std::string& what) {
  State& s = *state_;
  const Deadline deadline{timeout_};
  for (unsigned polls = 1;; ++polls) {
    const auto rc = s.cuda.stream_query(s.stream->get());
    if (rc == CudaRuntime::kSuccess) return;
    if (rc != CudaRuntime::kNotReady) s.cuda.check(rc, "cudaStreamQuery");
    if ((polls & 1023u) == 0) poll_health(deadline, what);
  }
}

// Each all-reduce is followed by an event, so a wait measures silence (no
// all-reduce completing for timeout), not the length of a long batch.
void NcclAllReduce::launch(bool in_place, std::size_t count, DType type, const std::string& what) {
  State& s = *state_;
  if (s.in_flight == kWindow) {
    wait_event((s.next_slot + kWindow - s.in_flight) % kWindow, what);
    --s.in_flight;
  }
  const void* input = in_place ? s.recv.get() : s.send.get();
  s.nccl.check(s.nccl.all_reduce(input, s.recv.get(), count, nccl_data_type(type), NcclLibrary::kSum, s.comm->get(),
                                 s.stream->get()),
               "ncclAllReduce");
  s.cuda.check(s.cuda.event_record(s.events[s.next_slot].get(), s.stream->get()), "cudaEventRecord");
  s.next_slot = (s.next_slot + 1) % kWindow;
  ++s.in_flight;
}

void NcclAllReduce::drain(const std::string& what) {
  State& s = *state_;
  while (s.in_flight > 0) {
    wait_event((s.next_slot + kWindow - s.in_flight) % kWindow, what);
    --s.in_flight;
  }
}

double NcclAllReduce::run_timed(bool in_place, std::size_t count, DType type, int warmup, int iters) {
  require(count, type);
  if (iters < 1 || warmup < 0) throw std::invalid_argument("run_timed: iters >= 1 and warmup >= 0 required");
  const std::string what = describe_allreduce("ncclAllReduce", in_place, count, type);
  for (int it = 0; it < warmup; ++it) launch(in_place, count, type, what + " (warmup)");
  drain(what + " (warmup)");
  const auto started = Clock::now();
  for (int it = 0; it < iters; ++it) launch(in_place, count, type, what);
  drain(what);
  return Seconds(Clock::now() - started).count() / iters;
}

std::uint64_t NcclAllReduce::check(bool in_place, std::size_t count, DType type) {
  require(count, type);
  State& s = *state_;
  const std::size_t size = dtype_size(type);
  const std::size_t chunk = std::max<std::size_t>(1, kStagingBytes / size);
  s.staging.resize(std::min(count, chunk) * size);
  auto* input = static_cast<std::byte*>(in_place ? s.recv.get() : s.send.get());
  auto* output = static_cast<std::byte*>(s.recv.get());
  const std::size_t target = count / 2;  // the element a fault hook corrupts
  for (std::size_t first = 0; first < count; first += chunk) {
    const std::size_t n = std::min(chunk, count - first);
    fill_pattern(type, rank_, nranks_, n, s.staging.data(), first);
    if (rank_ == faults.corrupt_input_rank && target >= first && target < first + n)
      negate_element(type, s.staging.data(), target - first);
    s.cuda.check(s.cuda.memcpy_async(input + first * size, s.staging.data(), n * size, CudaRuntime::kHostToDevice,
                                     s.stream->get()),
                 "cudaMemcpyAsync");
    wait_stream("the copy of the check pattern to the GPU");  // the staging buffer is reused
  }
  // Poisoned (NaN, or -1 for int32): an all-reduce that writes nothing cannot pass.
  if (!in_place) s.cuda.check(s.cuda.memset_async(output, 0xff, count * size, s.stream->get()), "cudaMemsetAsync");
  const std::string what = describe_allreduce("ncclAllReduce", in_place, count, type) + " (correctness check)";
  launch(in_place, count, type, what);
  drain(what);
  std::uint64_t wrong = 0;
  for (std::size_t first = 0; first < count; first += chunk) {
    const std::size_t n = std::min(chunk, count - first);
    s.cuda.check(s.cuda.memcpy_async(s.staging.data(), output + first * size, n * size, CudaRuntime::kDeviceToHost,
                                     s.stream->get()),
                 "cudaMemcpyAsync");
    wait_stream("the copy of the all-reduce result from the GPU");
    if (rank_ == faults.corrupt_result_rank && target >= first && target < first + n)
      flip_lowest_bit(type, s.staging.data(), target - first);
    wrong += count_wrong(type, s.staging.data(), nranks_, n, first);
  }
  return wrong;
}

}  // namespace ibgpu
