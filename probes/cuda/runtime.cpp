#include "probes/cuda/runtime.h"

#include "core/errors.h"
#include "probes/cuda/driver.h"

namespace ibgpu {

std::string CudaRuntime::load() {
  lib = DynLib({"libcudart.so.13", "libcudart.so.12", "libcudart.so"});
  if (!lib.ok()) return "libcudart.so not found: " + lib.error();
  const std::string missing = lib.resolve({{"cudaGetDeviceCount", get_device_count},
                                           {"cudaSetDevice", set_device},
                                           {"cudaMalloc", mem_alloc},
                                           {"cudaFree", mem_free},
                                           {"cudaMemsetAsync", memset_async},
                                           {"cudaMemcpyAsync", memcpy_async},
                                           {"cudaStreamCreateWithFlags", stream_create},
                                           {"cudaStreamDestroy", stream_destroy},
                                           {"cudaStreamQuery", stream_query},
                                           {"cudaEventCreateWithFlags", event_create},
                                           {"cudaEventRecord", event_record},
                                           {"cudaEventQuery", event_query},
                                           {"cudaEventDestroy", event_destroy},
                                           {"cudaGetErrorString", error_string}});
  if (!missing.empty()) return lib.path() + " lacks a CUDA runtime entry point ibgpu needs";
  return {};
}

std::string CudaRuntime::describe(Error rc) const {
  const char* text = error_string ? error_string(rc) : nullptr;
  const std::string said = std::string(text ? text : "CUDA error") + " (" + std::to_string(rc) + ")";
  // The runtime's answer when it finds no driver at all is a version complaint: say what it is.
  if (rc == kInsufficientDriver)
    if (const std::string missing = missing_nvidia_driver(); !missing.empty())
      return missing + "; CUDA error " + std::to_string(rc);
  return said;
}

void CudaRuntime::check(Error rc, const char* call) const {
  if (rc != kSuccess) throw CallError(call, describe(rc));
}

CudaBuffer::CudaBuffer(const CudaRuntime& cuda, std::size_t bytes) : cuda_(&cuda), bytes_(bytes) {
  cuda.check(cuda.mem_alloc(&pointer_, bytes == 0 ? 1 : bytes), "cudaMalloc");
}

void CudaBuffer::reset() noexcept {
  if (pointer_) cuda_->mem_free(std::exchange(pointer_, nullptr));
  bytes_ = 0;
}

CudaBuffer& CudaBuffer::operator=(CudaBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    cuda_ = other.cuda_;
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

CudaStream::CudaStream(const CudaRuntime& cuda) : cuda_(&cuda) {
  cuda.check(cuda.stream_create(&stream_, CudaRuntime::kStreamNonBlocking), "cudaStreamCreateWithFlags");
}

void CudaStream::reset() noexcept {
  if (stream_) cuda_->stream_destroy(std::exchange(stream_, nullptr));
}

CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
  if (this != &other) {
    reset();
    cuda_ = other.cuda_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

CudaEvent::CudaEvent(const CudaRuntime& cuda) : cuda_(&cuda) {
  cuda.check(cuda.event_create(&event_, CudaRuntime::kEventDisableTiming), "cudaEventCreateWithFlags");
}

void CudaEvent::reset() noexcept {
  if (event_) cuda_->event_destroy(std::exchange(event_, nullptr));
}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
  if (this != &other) {
    reset();
    cuda_ = other.cuda_;
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

}  // namespace ibgpu
