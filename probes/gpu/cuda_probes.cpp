#include "probes/gpu/cuda_probes.h"

#include "core/inventory.h"
#include "probes/cuda/driver.h"
#include "probes/gpu/gpu_health.h"
#include "probes/topology.h"

#if IBGPU_HAVE_CUDA_KERNELS
#include "probes/cuda/kernels.h"
#endif

namespace ibgpu {

namespace {

const char* const kProbes[] = {kGpuCopyBwProbe, kGpuMemBwProbe, kGpuComputeProbe};

std::vector<ProbeResult> all_skipped(const std::string& host, const std::string& why) {
  std::vector<ProbeResult> out;
  for (const char* id : kProbes) out.push_back(skipped(id, Scope{{host}, {}, {}}, why));
  return out;
}

#if IBGPU_HAVE_CUDA_KERNELS
std::string device_name(const std::vector<GpuInfo>& gpus, int cuda_device) {
  const std::string pci = cuda_kernels::pci_bus_id(cuda_device);
  for (const auto& g : gpus)
    if (!pci.empty() && normalize_pci_address(g.pci_bus_id) == normalize_pci_address(pci)) return gpu_name(g.index);
  return gpu_name(cuda_device);
}

ProbeResult on_gpu(const char* id, const std::string& host, const std::string& device, const std::string& error) {
  ProbeResult r;
  r.id = id;
  r.scope = Scope{{host}, {}, {device}};
  if (!error.empty()) {
    r.status = ProbeStatus::error;
    r.error = error;
  }
  return r;
}
#endif

}  // namespace

bool cuda_kernels_built() {
#if IBGPU_HAVE_CUDA_KERNELS
  return true;
#else
  return false;
#endif
}

std::string why_no_cuda_probes() {
#if IBGPU_HAVE_CUDA_KERNELS
  const auto devices = cuda_kernels::device_count();
  if (!devices.error.empty()) {
    // Without a driver the runtime says "CUDA driver version is insufficient": name the cause.
    if (const std::string missing = missing_nvidia_driver(); !missing.empty()) return missing;
    return devices.error;
  }
  return devices.count == 0 ? "no CUDA device" : "";
#else
  // A host without a driver could not run them in any build: that is the first thing to fix.
  if (const std::string missing = missing_nvidia_driver(); !missing.empty()) return missing;
  return "built without the CUDA toolkit: no GPU kernels in this binary";
#endif
}

std::vector<ProbeResult> run_cuda_probes(const std::string& host, const std::vector<GpuInfo>& gpus,
                                         const CudaProbeSettings& settings) {
  if (const std::string why = why_no_cuda_probes(); !why.empty()) return all_skipped(host, why);
#if IBGPU_HAVE_CUDA_KERNELS
  const auto devices = cuda_kernels::device_count();
  std::vector<ProbeResult> out;
  for (int gpu = 0; gpu < devices.count; ++gpu) {
    const std::string device = device_name(gpus, gpu);
    const auto copy = cuda_kernels::copy_bandwidth(gpu, settings.copy_bytes, settings.copy_iters);
    ProbeResult c = on_gpu(kGpuCopyBwProbe, host, device, copy.error);
    c.params = {{"size_B", settings.copy_bytes}, {"iters", settings.copy_iters}, {"host_memory", "pinned"}};
    if (copy.error.empty()) {
      c.metrics[metrics::h2d_GBps] = Metric::of(copy.h2d_GBps);
      c.metrics[metrics::d2h_GBps] = Metric::of(copy.d2h_GBps);
    }
    out.push_back(std::move(c));

    const auto mem = cuda_kernels::memory_bandwidth(gpu, settings.mem_bytes, settings.mem_iters);
    ProbeResult m = on_gpu(kGpuMemBwProbe, host, device, mem.error);
    m.params = {{"size_B", settings.mem_bytes}, {"iters", settings.mem_iters}};
    if (mem.error.empty()) m.metrics[metrics::mem_bw_GBps] = Metric::of(mem.GBps);
    out.push_back(std::move(m));

    const auto compute = cuda_kernels::compute_check(gpu, settings.compute_elements, settings.compute_rounds);
    ProbeResult k = on_gpu(kGpuComputeProbe, host, device, compute.error);
    k.params = {{"elements", settings.compute_elements}, {"rounds", settings.compute_rounds}};
    if (compute.error.empty()) {
      k.metrics[metrics::checked] = Metric::of(static_cast<double>(compute.checked));
      k.metrics[metrics::wrong] = Metric::of(static_cast<double>(compute.wrong));
      k.metrics[metrics::time_s] = Metric::of(compute.seconds);
      // Any wrong element is a hard failure of the GPU, never "degraded".
      if (compute.wrong > 0) {
        k.status = ProbeStatus::failed;
        k.error = std::to_string(compute.wrong) + " of " + std::to_string(compute.checked) + " results wrong";
      }
    }
    out.push_back(std::move(k));
  }
  return out;
#else
  (void)gpus;
  (void)settings;
  return {};
#endif
}

}  // namespace ibgpu
