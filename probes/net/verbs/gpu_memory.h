#pragma once
// GPU memory for GPUDirect RDMA, with the CUDA driver loaded at run time
// (libcuda.so.1 via dlopen), so the binary still starts on nodes without one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace ibgpu::verbs {

// No driver library on this host: the probe is `skipped`, not failed.
class GpuUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// cuMemAlloc'd memory on CUDA device 0 of this process (CUDA_VISIBLE_DEVICES
// applies), in the device's primary context. Move-only; freeing never throws.
class GpuMemory {
 public:
  // Throws GpuUnavailable when libcuda.so.1 cannot be loaded, CallError
  // ("cuInit", "cuMemAlloc", ...) with cuGetErrorString's text otherwise.
  explicit GpuMemory(std::size_t bytes);
  ~GpuMemory();
  GpuMemory(GpuMemory&& other) noexcept;
  GpuMemory& operator=(GpuMemory&&) = delete;
  GpuMemory(const GpuMemory&) = delete;
  GpuMemory& operator=(const GpuMemory&) = delete;

  std::uint64_t address() const { return address_; }
  std::size_t bytes() const { return bytes_; }

  // A dma-buf file descriptor for the whole allocation (owned here, closed
  // with it), or -1 with `why` set: needs CUDA >= 11.7 and the open kernel
  // modules (cuMemGetHandleForAddressRange with CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD).
  int dmabuf_fd(std::string& why);

 private:
  struct Driver;
  std::unique_ptr<Driver> driver_;
  int device_ = 0;
  std::uint64_t address_ = 0;
  std::size_t bytes_ = 0;
  int fd_ = -1;
};

}  // namespace ibgpu::verbs
