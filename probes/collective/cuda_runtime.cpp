#include "probes/collective/cuda_runtime.h"

#include "cluster/errors.h"

namespace ibgpu {

std::string CudaRuntime::load() {
  lib = DynLib({"libcudart.so.13", "libcudart.so.12", "libcudart.so"});
  if (!lib.ok()) return "libcudart.so not found: " + lib.error();
  get_device_count = lib.symbol<decltype(get_device_count)>("cudaGetDeviceCount");
  set_device = lib.symbol<decltype(set_device)>("cudaSetDevice");
  mem_alloc = lib.symbol<decltype(mem_alloc)>("cudaMalloc");
  mem_free = lib.symbol<decltype(mem_free)>("cudaFree");
  memset_async = lib.symbol<decltype(memset_async)>("cudaMemsetAsync");
  memcpy_async = lib.symbol<decltype(memcpy_async)>("cudaMemcpyAsync");
  stream_create = lib.symbol<decltype(stream_create)>("cudaStreamCreateWithFlags");
  stream_destroy = lib.symbol<decltype(stream_destroy)>("cudaStreamDestroy");
  stream_query = lib.symbol<decltype(stream_query)>("cudaStreamQuery");
  event_create = lib.symbol<decltype(event_create)>("cudaEventCreateWithFlags");
  event_record = lib.symbol<decltype(event_record)>("cudaEventRecord");
  event_query = lib.symbol<decltype(event_query)>("cudaEventQuery");
  event_destroy = lib.symbol<decltype(event_destroy)>("cudaEventDestroy");
  error_string = lib.symbol<decltype(error_string)>("cudaGetErrorString");
  if (!get_device_count || !set_device || !mem_alloc || !mem_free || !memset_async || !memcpy_async || !stream_create ||
      !stream_destroy || !stream_query || !event_create || !event_record || !event_query || !event_destroy ||
      !error_string)
    return lib.path() + " lacks a CUDA runtime entry point ibgpu needs";
  return {};
}

std::string CudaRuntime::describe(Error rc) const {
  const char* text = error_string ? error_string(rc) : nullptr;
  return std::string(text ? text : "CUDA error") + " (" + std::to_string(rc) + ")";
}

void CudaRuntime::check(Error rc, const char* call) const {
  if (rc != kSuccess) throw CallError(call, describe(rc));
}

CudaBuffer::CudaBuffer(const CudaRuntime& cuda, std::size_t bytes) : cuda_(&cuda), bytes_(bytes) {
  cuda.check(cuda.mem_alloc(&pointer_, bytes == 0 ? 1 : bytes), "cudaMalloc");
}

CudaBuffer::~CudaBuffer() {
  if (pointer_) cuda_->mem_free(pointer_);
}

CudaBuffer& CudaBuffer::operator=(CudaBuffer&& other) noexcept {
  if (this != &other) {
    if (pointer_) cuda_->mem_free(pointer_);
    cuda_ = other.cuda_;
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

CudaStream::CudaStream(const CudaRuntime& cuda) : cuda_(&cuda) {
  cuda.check(cuda.stream_create(&stream_, CudaRuntime::kStreamNonBlocking), "cudaStreamCreateWithFlags");
}

CudaStream::~CudaStream() {
  if (stream_) cuda_->stream_destroy(stream_);
}

CudaEvent::CudaEvent(const CudaRuntime& cuda) : cuda_(&cuda) {
  cuda.check(cuda.event_create(&event_, CudaRuntime::kEventDisableTiming), "cudaEventCreateWithFlags");
}

CudaEvent::~CudaEvent() {
  if (event_) cuda_->event_destroy(event_);
}

}  // namespace ibgpu
