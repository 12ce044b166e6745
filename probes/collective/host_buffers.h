#pragma once
// The host memory of the all-reduces that sum on the CPU (the MPI backend, the ring): reserved at
// prepare() for the sweep's largest size, touched only as far as the sizes that run. Zeroing the
// largest size up front cost 7.6 s of one CPU for four ranks sharing it (two 256 MiB buffers
// each), most of a 20 s --budget gone before the first case, for a 256 MiB case the time cap then
// did not run.
#include <cstddef>
#include <memory>

namespace ibgpu {

class HostBuffer {
 public:
  // At least `bytes`, its pages untouched (the kernel gives them at first use); what the buffer
  // held is not kept when it grows.
  void reserve(std::size_t bytes);
  std::size_t size() const { return size_; }
  std::byte* data() { return memory_.get(); }
  const std::byte* data() const { return memory_.get(); }
  // A transfer MPI may still make into it outlives this object (cluster/kept_memory.h).
  void keep_until_exit();

 private:
  std::shared_ptr<std::byte[]> memory_;
  std::size_t size_ = 0;
};

// The send and receive buffers of a sum. Timed runs sum zeros, which stay zero, never denormal or
// inf (both slow on some CPUs); the correctness check writes its pattern over them.
class SumBuffers {
 public:
  void reserve(std::size_t bytes);
  std::size_t size() const { return recv.size(); }
  // Before a timed run of `bytes`: their first `bytes` zero (written only where the check's
  // pattern, or nothing yet, is).
  void zero(std::size_t bytes);
  // The check wrote into them: the next timed run zeroes again.
  void patterned() { zeroed_ = 0; }
  void keep_until_exit();

  HostBuffer send, recv;

 private:
  std::size_t zeroed_ = 0;
};

}  // namespace ibgpu
