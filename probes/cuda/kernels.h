#pragma once
// The device side of the gpu.cuda.* probes, compiled by nvcc into its own
// library when the CUDA toolkit is found at build time (IBGPU_HAVE_CUDA_KERNELS).
// Plain C++ types only: no CUDA header is needed to call it. Every function
// catches its own CUDA errors and returns them as text; none throws.
#include <cstddef>
#include <string>

namespace ibgpu::cuda_kernels {

struct DeviceCount {
  int count = 0;
  std::string error;  // "no CUDA driver: cudaGetDeviceCount returned ..." when none
};
DeviceCount device_count();
// "0000:17:00.0" (lower case), or "" when CUDA cannot tell.
std::string pci_bus_id(int device);

struct CopyBandwidth {
  double h2d_GBps = 0, d2h_GBps = 0;  // from pinned host memory, GB = 1e9 bytes
  std::string error;
};
CopyBandwidth copy_bandwidth(int device, std::size_t bytes, int iters);

struct MemoryBandwidth {
  double GBps = 0;  // bytes read + written by a copy kernel per second
  std::string error;
};
MemoryBandwidth memory_bandwidth(int device, std::size_t bytes, int iters);

struct ComputeCheck {
  std::size_t checked = 0, wrong = 0;  // elements compared with the host's answer
  double seconds = 0;
  std::string error;
};
ComputeCheck compute_check(int device, std::size_t elements, int rounds);

}  // namespace ibgpu::cuda_kernels
