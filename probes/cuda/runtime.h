#pragma once
// The CUDA runtime loaded at run time (libcudart via dlopen) through a small
// typed table, and one move-only owner per handle the NCCL backend uses.
// Declared here so no CUDA header or library is needed to build ibgpu.
// Every owner here and in driver.h moves the same way: move-constructible and
// move-assignable (the target's own handle is released first), never copyable,
// and its destructor never throws (a failed release leaves nothing to do).
#include <cstddef>
#include <string>
#include <utility>

#include "probes/dynlib.h"

namespace ibgpu {

struct CudaRuntime {
  using Error = int;  // cudaError_t
  using Stream = struct CUstream_st*;
  using Event = struct CUevent_st*;
  static constexpr Error kSuccess = 0;
  static constexpr Error kNotReady = 600;                     // cudaErrorNotReady
  static constexpr Error kInsufficientDriver = 35;            // cudaErrorInsufficientDriver
  static constexpr int kHostToDevice = 1, kDeviceToHost = 2;  // cudaMemcpyKind
  static constexpr unsigned kStreamNonBlocking = 0x01;
  static constexpr unsigned kEventDisableTiming = 0x02;

  DynLib lib;
  Error (*get_device_count)(int*) = nullptr;
  Error (*set_device)(int) = nullptr;
  Error (*mem_alloc)(void**, std::size_t) = nullptr;
  Error (*mem_free)(void*) = nullptr;
  Error (*memset_async)(void*, int, std::size_t, Stream) = nullptr;
  Error (*memcpy_async)(void*, const void*, std::size_t, int, Stream) = nullptr;
  Error (*stream_create)(Stream*, unsigned) = nullptr;  // cudaStreamCreateWithFlags
  Error (*stream_destroy)(Stream) = nullptr;
  Error (*stream_query)(Stream) = nullptr;
  Error (*event_create)(Event*, unsigned) = nullptr;  // cudaEventCreateWithFlags
  Error (*event_record)(Event, Stream) = nullptr;
  Error (*event_query)(Event) = nullptr;
  Error (*event_destroy)(Event) = nullptr;
  const char* (*error_string)(Error) = nullptr;

  // Loads libcudart.so.13, .12, then the unversioned name. Empty on success,
  // else why not, e.g. "libcudart.so not found: ...".
  std::string load();
  // "out of memory (2)"; cudaErrorInsufficientDriver on a host without a driver says that.
  std::string describe(Error rc) const;
  // CUDA's convention: a return code, named by cudaGetErrorString. Throws CallError.
  void check(Error rc, const char* call) const;
};

// cudaMalloc'd device memory on the current device.
class CudaBuffer {
 public:
  CudaBuffer() = default;
  CudaBuffer(const CudaRuntime& cuda, std::size_t bytes);
  ~CudaBuffer() { reset(); }
  CudaBuffer(CudaBuffer&& other) noexcept
      : cuda_(other.cuda_), pointer_(std::exchange(other.pointer_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  CudaBuffer& operator=(CudaBuffer&& other) noexcept;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  void* get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }
  void reset() noexcept;

 private:
  const CudaRuntime* cuda_ = nullptr;
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaStream {
 public:
  CudaStream() = default;
  explicit CudaStream(const CudaRuntime& cuda);  // non-blocking: no implicit sync with stream 0
  ~CudaStream() { reset(); }
  CudaStream(CudaStream&& other) noexcept : cuda_(other.cuda_), stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& other) noexcept;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  CudaRuntime::Stream get() const { return stream_; }
  void reset() noexcept;

 private:
  const CudaRuntime* cuda_ = nullptr;
  CudaRuntime::Stream stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() = default;
  explicit CudaEvent(const CudaRuntime& cuda);  // timing disabled: only completion is asked
  ~CudaEvent() { reset(); }
  CudaEvent(CudaEvent&& other) noexcept : cuda_(other.cuda_), event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& other) noexcept;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  CudaRuntime::Event get() const { return event_; }
  void reset() noexcept;

 private:
  const CudaRuntime* cuda_ = nullptr;
  CudaRuntime::Event event_ = nullptr;
};

}  // namespace ibgpu
