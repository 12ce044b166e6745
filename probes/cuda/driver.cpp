#include "probes/cuda/driver.h"

#include <unistd.h>

#include <utility>

#include "core/errors.h"

namespace ibgpu {

std::string CudaDriver::load() {
  lib = DynLib({"libcuda.so.1"});
  if (!lib.ok()) return "libcuda.so.1 not found: " + lib.error();
  const std::string missing = lib.resolve({{"cuInit", init},
                                           {"cuDeviceGet", device_get},
                                           {"cuDevicePrimaryCtxRetain", ctx_retain},
                                           {"cuDevicePrimaryCtxRelease_v2", ctx_release},
                                           {"cuCtxSetCurrent", ctx_set_current},
                                           {"cuMemAlloc_v2", mem_alloc},
                                           {"cuMemFree_v2", mem_free},
                                           {"cuGetErrorString", error_string, Symbol::optional},
                                           {"cuMemGetHandleForAddressRange", range_handle, Symbol::optional}});
  if (!missing.empty()) return "libcuda.so.1 lacks a CUDA 11 driver entry point (driver too old?)";
  return {};
}

std::string missing_nvidia_driver() {
  if (!DynLib({"libcuda.so.1"}).ok()) return "no NVIDIA driver on this host (libcuda.so.1 not found)";
  // The library can be installed without the kernel module (a package left behind, a module that
  // failed to load); the module makes the control device and /proc/driver/nvidia.
  if (::access("/dev/nvidiactl", F_OK) != 0 && ::access("/proc/driver/nvidia/version", F_OK) != 0)
    return "no NVIDIA driver loaded on this host (libcuda.so.1 is installed, but no /dev/nvidiactl: the nvidia "
           "kernel module is not loaded)";
  return "";
}

const char* CudaDriver::error_text(Result rc) const {
  const char* text = nullptr;
  if (error_string) error_string(rc, &text);
  return text ? text : "CUDA error";
}

std::string CudaDriver::describe(Result rc) const {
  return std::string(error_text(rc)) + " (" + std::to_string(rc) + ")";
}

void CudaDriver::check(Result rc, const char* call) const {
  if (rc != kSuccess) throw CallError(call, describe(rc));
}

GpuMemory::GpuMemory(std::size_t bytes) : driver_(std::make_unique<CudaDriver>()) {
  CudaDriver& d = *driver_;
  if (const std::string why = d.load(); !why.empty()) {
    if (!d.lib.ok()) throw GpuUnavailable("libcuda.so.1 not found: no GPU memory on this host");
    throw CallError("dlsym", why);
  }
  d.check(d.init(0), "cuInit");
  d.check(d.device_get(&device_, 0), "cuDeviceGet");
  d.check(d.ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
  try {
    d.check(d.ctx_set_current(context_), "cuCtxSetCurrent");
    // dma-buf export and the HCA both work on whole pages: 2 MiB covers GPU and host page sizes.
    constexpr std::size_t kPage = std::size_t{2} << 20;
    bytes_ = ((bytes == 0 ? 1 : bytes) + kPage - 1) / kPage * kPage;
    CudaDriver::DevicePointer pointer = 0;
    d.check(d.mem_alloc(&pointer, bytes_), "cuMemAlloc");
    address_ = pointer;
  } catch (...) {
    reset();
    throw;
  }
}

GpuMemory::GpuMemory(GpuMemory&& other) noexcept
    : driver_(std::move(other.driver_)),
      context_(std::exchange(other.context_, nullptr)),
      device_(other.device_),
      address_(std::exchange(other.address_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      fd_(std::exchange(other.fd_, -1)) {}

GpuMemory& GpuMemory::operator=(GpuMemory&& other) noexcept {
  if (this != &other) {
    reset();
    driver_ = std::move(other.driver_);
    context_ = std::exchange(other.context_, nullptr);
    device_ = other.device_;
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void GpuMemory::reset() noexcept {
  // The dma-buf first: it refers to the allocation, which needs its context current to be freed.
  if (fd_ >= 0) close(std::exchange(fd_, -1));
  if (driver_) {
    if (address_ != 0) {
      driver_->ctx_set_current(context_);
      driver_->mem_free(address_);
    }
    if (context_) driver_->ctx_release(device_);
  }
  context_ = nullptr;
  address_ = 0;
  bytes_ = 0;
  driver_.reset();
}

int GpuMemory::dmabuf_fd(std::string& why) {
  if (fd_ >= 0) return fd_;
  if (!driver_->range_handle) {
    why = "cuMemGetHandleForAddressRange missing (CUDA driver older than 11.7)";
    return -1;
  }
  int fd = -1;
  const CudaDriver::Result rc = driver_->range_handle(&fd, address_, bytes_, CudaDriver::kDmaBufFd, 0);
  if (rc != CudaDriver::kSuccess || fd < 0) {
    why = std::string("cuMemGetHandleForAddressRange: ") + driver_->error_text(rc) + " (" + std::to_string(rc) +
          "; dma-buf needs the open NVIDIA kernel modules)";
    return -1;
  }
  fd_ = fd;
  return fd_;
}

}  // namespace ibgpu
