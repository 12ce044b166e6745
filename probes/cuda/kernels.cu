// Small CUDA kernels for the local GPU probes. Compiled only with the CUDA
// toolkit, linked against the static runtime so the binary still starts on
// hosts without a driver (the first call then reports the missing driver).
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "probes/cuda/kernels.h"

namespace ibgpu::cuda_kernels {

namespace {

struct CudaFailure {
  std::string text;
};

void check(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess)
    throw CudaFailure{std::string(call) + " failed: " + cudaGetErrorString(rc) + " (" + std::to_string(rc) + ")"};
}

// One owner per CUDA allocation or event, moving like the owners in
// probes/cuda/runtime.h (and verbs' Owned): move-constructible and
// move-assignable, never copyable, and release never throws. They call the
// static runtime: probes/cuda/README.md says why these kernels do not use the
// loaded table.
template <class Handle, auto Release>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle handle) : handle_(handle) {}
  ~Owned() { reset(); }
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  Handle get() const { return handle_; }
  void reset() noexcept {
    if (handle_) static_cast<void>(Release(std::exchange(handle_, nullptr)));
  }

 private:
  Handle handle_ = nullptr;
};

using DeviceMemory = Owned<void*, &cudaFree>;
using PinnedMemory = Owned<void*, &cudaFreeHost>;
using Event = Owned<cudaEvent_t, &cudaEventDestroy>;

DeviceMemory device_memory(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  return DeviceMemory(p);
}

PinnedMemory pinned_memory(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  return PinnedMemory(p);
}

// With timing (runtime.h's CudaEvent disables it: NCCL only asks for completion).
Event timing_event() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreate(&e), "cudaEventCreate");
  return Event(e);
}

float elapsed_ms(const Event& start, const Event& stop) {
  check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return ms;
}

__global__ void copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// A 32-bit LCG per element: integer arithmetic, so the host can check every bit.
__host__ __device__ std::uint32_t lcg_rounds(std::uint32_t x, int rounds) {
  for (int r = 0; r < rounds; ++r) x = x * 1664525u + 1013904223u;
  return x;
}

__global__ void compute_kernel(std::uint32_t* data, std::size_t n, int rounds) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    data[i] = lcg_rounds(data[i], rounds);
}

int grid_for(int device) {
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return sms * 8;
}

}  // namespace

DeviceCount device_count() {
  DeviceCount out;
  const cudaError_t rc = cudaGetDeviceCount(&out.count);
  if (rc != cudaSuccess) {
    out.count = 0;
    out.error = std::string("no CUDA driver or device: cudaGetDeviceCount returned ") + cudaGetErrorString(rc) + " (" +
                std::to_string(rc) + ")";
  }
  return out;
}

std::string pci_bus_id(int device) {
  char text[32] = {};
  if (cudaDeviceGetPCIBusId(text, sizeof text, device) != cudaSuccess) return "";
  std::string id(text);
  for (auto& c : id) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  return id;
}

CopyBandwidth copy_bandwidth(int device, std::size_t bytes, int iters) {
  CopyBandwidth out;
  try {
    check(cudaSetDevice(device), "cudaSetDevice");
    PinnedMemory host = pinned_memory(bytes);
    DeviceMemory dev = device_memory(bytes);
    Event start = timing_event(), stop = timing_event();
    auto measure = [&](void* dst, const void* src, cudaMemcpyKind kind) {
      check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");  // warm-up
      check(cudaEventRecord(start.get()), "cudaEventRecord");
      for (int i = 0; i < iters; ++i) check(cudaMemcpyAsync(dst, src, bytes, kind), "cudaMemcpyAsync");
      check(cudaEventRecord(stop.get()), "cudaEventRecord");
      return static_cast<double>(bytes) * iters / (elapsed_ms(start, stop) * 1e-3) / 1e9;
    };
    out.h2d_GBps = measure(dev.get(), host.get(), cudaMemcpyHostToDevice);
    out.d2h_GBps = measure(host.get(), dev.get(), cudaMemcpyDeviceToHost);
  } catch (const CudaFailure& f) {
    out.error = f.text;
  }
  return out;
}

MemoryBandwidth memory_bandwidth(int device, std::size_t bytes, int iters) {
  MemoryBandwidth out;
  try {
    check(cudaSetDevice(device), "cudaSetDevice");
    const std::size_t n = bytes / sizeof(uint4);
    DeviceMemory in = device_memory(n * sizeof(uint4)), copy = device_memory(n * sizeof(uint4));
    check(cudaMemset(in.get(), 1, n * sizeof(uint4)), "cudaMemset");
    const int grid = grid_for(device);
    Event start = timing_event(), stop = timing_event();
    copy_kernel<<<grid, 256>>>(static_cast<const uint4*>(in.get()), static_cast<uint4*>(copy.get()), n);
    check(cudaGetLastError(), "copy_kernel launch");
    check(cudaEventRecord(start.get()), "cudaEventRecord");
    for (int i = 0; i < iters; ++i)
      copy_kernel<<<grid, 256>>>(static_cast<const uint4*>(in.get()), static_cast<uint4*>(copy.get()), n);
    check(cudaGetLastError(), "copy_kernel launch");
    check(cudaEventRecord(stop.get()), "cudaEventRecord");
    // Each element is read once and written once.
    out.GBps = 2.0 * static_cast<double>(n * sizeof(uint4)) * iters / (elapsed_ms(start, stop) * 1e-3) / 1e9;
  } catch (const CudaFailure& f) {
    out.error = f.text;
  }
  return out;
}

ComputeCheck compute_check(int device, std::size_t elements, int rounds) {
  ComputeCheck out;
  try {
    check(cudaSetDevice(device), "cudaSetDevice");
    std::vector<std::uint32_t> data(elements);
    for (std::size_t i = 0; i < elements; ++i) data[i] = static_cast<std::uint32_t>(i * 2654435761u);
    DeviceMemory dev = device_memory(elements * sizeof(std::uint32_t));
    check(cudaMemcpy(dev.get(), data.data(), elements * sizeof(std::uint32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
    Event start = timing_event(), stop = timing_event();
    check(cudaEventRecord(start.get()), "cudaEventRecord");
    compute_kernel<<<grid_for(device), 256>>>(static_cast<std::uint32_t*>(dev.get()), elements, rounds);
    check(cudaGetLastError(), "compute_kernel launch");
    check(cudaEventRecord(stop.get()), "cudaEventRecord");
    out.seconds = elapsed_ms(start, stop) * 1e-3;
    std::vector<std::uint32_t> result(elements);
    check(cudaMemcpy(result.data(), dev.get(), elements * sizeof(std::uint32_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (std::size_t i = 0; i < elements; ++i) out.wrong += result[i] != lcg_rounds(data[i], rounds) ? 1 : 0;
    out.checked = elements;
  } catch (const CudaFailure& f) {
    out.error = f.text;
  }
  return out;
}

}  // namespace ibgpu::cuda_kernels
