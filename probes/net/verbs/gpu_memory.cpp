#include "probes/net/verbs/gpu_memory.h"

#include <unistd.h>

#include <utility>

#include "cluster/errors.h"
#include "probes/dynlib.h"
#include "probes/net/verbs/verbs_handles.h"

namespace ibgpu::verbs {

// The handful of driver entry points used, declared here so no CUDA header is
// needed at build time. Names are the versioned symbols cuda.h maps to.
struct GpuMemory::Driver {
  using CUresult = int;
  using CUdevice = int;
  using CUcontext = void*;
  using CUdeviceptr = unsigned long long;
  static constexpr int kDmaBufFd = 1;  // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

  DynLib lib{{"libcuda.so.1"}};
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*ctx_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*ctx_release)(CUdevice) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
  // Absent before CUDA 11.7: then only the nvidia-peermem path remains.
  CUresult (*range_handle)(void*, CUdeviceptr, std::size_t, int, unsigned long long) = nullptr;
  CUcontext context = nullptr;

  void check(CUresult rc, const char* call) const {
    if (rc == 0) return;
    const char* text = nullptr;
    if (error_string) error_string(rc, &text);
    throw CallError(call, (text ? std::string(text) : "CUDA error") + " (" + std::to_string(rc) + ")");
  }
};

GpuMemory::GpuMemory(std::size_t bytes) : driver_(std::make_unique<Driver>()) {
  Driver& d = *driver_;
  if (!d.lib.ok()) throw GpuUnavailable("libcuda.so.1 not found: no GPU memory on this host");
  d.init = d.lib.symbol<decltype(d.init)>("cuInit");
  d.device_get = d.lib.symbol<decltype(d.device_get)>("cuDeviceGet");
  d.ctx_retain = d.lib.symbol<decltype(d.ctx_retain)>("cuDevicePrimaryCtxRetain");
  d.ctx_release = d.lib.symbol<decltype(d.ctx_release)>("cuDevicePrimaryCtxRelease_v2");
  d.ctx_set_current = d.lib.symbol<decltype(d.ctx_set_current)>("cuCtxSetCurrent");
  d.mem_alloc = d.lib.symbol<decltype(d.mem_alloc)>("cuMemAlloc_v2");
  d.mem_free = d.lib.symbol<decltype(d.mem_free)>("cuMemFree_v2");
  d.error_string = d.lib.symbol<decltype(d.error_string)>("cuGetErrorString");
  d.range_handle = d.lib.symbol<decltype(d.range_handle)>("cuMemGetHandleForAddressRange");
  if (!d.init || !d.device_get || !d.ctx_retain || !d.ctx_release || !d.ctx_set_current || !d.mem_alloc || !d.mem_free)
    throw CallError("dlsym", "libcuda.so.1 lacks a CUDA 11 driver entry point (driver too old?)");
  d.check(d.init(0), "cuInit");
  d.check(d.device_get(&device_, 0), "cuDeviceGet");
  d.check(d.ctx_retain(&d.context, device_), "cuDevicePrimaryCtxRetain");
  try {
    d.check(d.ctx_set_current(d.context), "cuCtxSetCurrent");
    // dma-buf export and the HCA both work on whole pages: 2 MiB covers GPU and host page sizes.
    bytes_ = round_up(bytes == 0 ? 1 : bytes, std::size_t{2} << 20);
    Driver::CUdeviceptr pointer = 0;
    d.check(d.mem_alloc(&pointer, bytes_), "cuMemAlloc");
    address_ = pointer;
  } catch (...) {
    d.ctx_release(device_);
    throw;
  }
}

GpuMemory::GpuMemory(GpuMemory&& other) noexcept
    : driver_(std::move(other.driver_)),
      device_(other.device_),
      address_(std::exchange(other.address_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      fd_(std::exchange(other.fd_, -1)) {}

GpuMemory::~GpuMemory() {
  if (fd_ >= 0) close(fd_);
  if (!driver_) return;
  if (address_ != 0) {
    driver_->ctx_set_current(driver_->context);
    driver_->mem_free(address_);
  }
  if (driver_->context) driver_->ctx_release(device_);
}

int GpuMemory::dmabuf_fd(std::string& why) {
  if (fd_ >= 0) return fd_;
  if (!driver_->range_handle) {
    why = "cuMemGetHandleForAddressRange missing (CUDA driver older than 11.7)";
    return -1;
  }
  int fd = -1;
  const int rc = driver_->range_handle(&fd, address_, bytes_, Driver::kDmaBufFd, 0);
  if (rc != 0 || fd < 0) {
    const char* text = nullptr;
    if (driver_->error_string) driver_->error_string(rc, &text);
    why = std::string("cuMemGetHandleForAddressRange: ") + (text ? text : "CUDA error") + " (" + std::to_string(rc) +
          "; dma-buf needs the open NVIDIA kernel modules)";
    return -1;
  }
  fd_ = fd;
  return fd_;
}

}  // namespace ibgpu::verbs
