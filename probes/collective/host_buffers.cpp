#include "probes/collective/host_buffers.h"

#include <cstring>

#include "cluster/kept_memory.h"

namespace ibgpu {

void HostBuffer::reserve(std::size_t bytes) {
  if (bytes <= size_) return;
  memory_ = std::make_shared_for_overwrite<std::byte[]>(bytes);
  size_ = bytes;
}

void HostBuffer::keep_until_exit() {
  if (memory_) ibgpu::keep_until_exit(std::move(memory_));
  size_ = 0;
}

void SumBuffers::reserve(std::size_t bytes) {
  if (bytes <= size()) return;
  send.reserve(bytes);
  recv.reserve(bytes);
  zeroed_ = 0;
}

void SumBuffers::zero(std::size_t bytes) {
  if (bytes <= zeroed_) return;
  std::memset(send.data(), 0, bytes);
  std::memset(recv.data(), 0, bytes);
  zeroed_ = bytes;
}

void SumBuffers::keep_until_exit() {
  send.keep_until_exit();
  recv.keep_until_exit();
  zeroed_ = 0;
}

}  // namespace ibgpu
