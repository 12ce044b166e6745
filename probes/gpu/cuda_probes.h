#pragma once
// The gpu.cuda.* probes on every GPU of the host: host<->device copy
// bandwidth from pinned memory (gpu.cuda.copy_bw), device memory bandwidth
// with a copy kernel (gpu.cuda.mem_bw) and a short integer compute whose
// every result is checked on the host (gpu.cuda.compute).
#include <cstddef>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/result.h"

namespace ibgpu {

struct CudaProbeSettings {
  std::size_t copy_bytes = std::size_t{256} << 20;
  int copy_iters = 10;
  std::size_t mem_bytes = std::size_t{1} << 30;
  int mem_iters = 20;
  std::size_t compute_elements = std::size_t{16} << 20;
  int compute_rounds = 256;
};

// Whether this build has the kernels (the CUDA toolkit was found at build time).
bool cuda_kernels_built();
// Why the probes above cannot run here (no kernels in this build, no driver,
// no device), or empty when they can.
std::string why_no_cuda_probes();

// One result per probe and GPU, named "gpuN" after the NVML index of the GPU
// with the same PCI address in `gpus` (CUDA may number devices differently);
// without kernels, driver or device, one `skipped` result per probe with the reason.
std::vector<ProbeResult> run_cuda_probes(const std::string& host, const std::vector<GpuInfo>& gpus,
                                         const CudaProbeSettings& settings = {});

}  // namespace ibgpu
