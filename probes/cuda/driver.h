#pragma once
// The CUDA driver loaded at run time (libcuda.so.1 via dlopen) through a small
// typed table, and the owner of GPU memory for GPUDirect RDMA, so the binary
// still starts on nodes without a driver. Owners move as in runtime.h.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "probes/dynlib.h"

namespace ibgpu {

// The handful of driver entry points used, declared here so no CUDA header is
// needed at build time. Names are the versioned symbols cuda.h maps to.
struct CudaDriver {
  using Result = int;  // CUresult
  using Device = int;  // CUdevice
  using Context = void*;
  using DevicePointer = unsigned long long;
  static constexpr Result kSuccess = 0;
  static constexpr int kDmaBufFd = 1;  // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

  DynLib lib;
  Result (*init)(unsigned) = nullptr;
  Result (*device_get)(Device*, int) = nullptr;
  Result (*ctx_retain)(Context*, Device) = nullptr;
  Result (*ctx_release)(Device) = nullptr;
  Result (*ctx_set_current)(Context) = nullptr;
  Result (*mem_alloc)(DevicePointer*, std::size_t) = nullptr;
  Result (*mem_free)(DevicePointer) = nullptr;
  Result (*error_string)(Result, const char**) = nullptr;
  // Absent before CUDA 11.7: then only the nvidia-peermem path remains.
  Result (*range_handle)(void*, DevicePointer, std::size_t, int, unsigned long long) = nullptr;

  // Loads libcuda.so.1. Empty on success, else why not: "libcuda.so.1 not
  // found: ..." (then `lib.ok()` is false) or a missing CUDA 11 entry point.
  std::string load();
  const char* error_text(Result rc) const;  // cuGetErrorString's text, or "CUDA error"
  std::string describe(Result rc) const;    // "out of memory (2)"
  // The driver's convention: a return code, named by cuGetErrorString. Throws CallError.
  void check(Result rc, const char* call) const;
};

// Empty when this host has an NVIDIA driver as far as can be told without using it, else says so
// in those words (the CUDA runtime's own "CUDA driver version is insufficient for CUDA runtime
// version" reads as a version problem on a host that has no driver at all):
// "no NVIDIA driver on this host (libcuda.so.1 not found)", or "no NVIDIA driver loaded on this
// host (libcuda.so.1 is installed, but no /dev/nvidiactl: the nvidia kernel module is not loaded)".
std::string missing_nvidia_driver();

// No driver library on this host: the probe is `skipped`, not failed.
class GpuUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// cuMemAlloc'd memory on CUDA device 0 of this process (CUDA_VISIBLE_DEVICES
// applies), in the device's primary context, which it retains while it lives.
class GpuMemory {
 public:
  GpuMemory() = default;
  // Throws GpuUnavailable when libcuda.so.1 cannot be loaded, CallError
  // ("cuInit", "cuMemAlloc", ...) with cuGetErrorString's text otherwise.
  explicit GpuMemory(std::size_t bytes);
  ~GpuMemory() { reset(); }
  GpuMemory(GpuMemory&& other) noexcept;
  GpuMemory& operator=(GpuMemory&& other) noexcept;
  GpuMemory(const GpuMemory&) = delete;
  GpuMemory& operator=(const GpuMemory&) = delete;

  std::uint64_t address() const { return address_; }
  std::size_t bytes() const { return bytes_; }
  void reset() noexcept;

  // A dma-buf file descriptor for the whole allocation (owned here, closed
  // with it), or -1 with `why` set: needs CUDA >= 11.7 and the open kernel
  // modules (cuMemGetHandleForAddressRange with CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD).
  int dmabuf_fd(std::string& why);

 private:
  // Its own table: the driver stays loaded while memory from it exists.
  std::unique_ptr<CudaDriver> driver_;
  CudaDriver::Context context_ = nullptr;  // retained primary context of device_
  CudaDriver::Device device_ = 0;
  std::uint64_t address_ = 0;
  std::size_t bytes_ = 0;
  int fd_ = -1;
};

}  // namespace ibgpu
