#include "probes/gpu/nvml.h"

#include <stdexcept>

namespace ibgpu {

namespace {
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;

struct NvmlPciInfo {  // nvmlPciInfo_t, as filled by nvmlDeviceGetPciInfo_v3
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
struct NvmlMemory {  // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};
}  // namespace

struct Nvml::Table {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*device_count)(unsigned int*) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*pci_info)(nvmlDevice_t, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*memory_info)(nvmlDevice_t, NvmlMemory*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*cuda_driver_version)(int*) = nullptr;
};

namespace {

// NVML's convention: a return code, named by nvmlErrorString.
void nvml_check(const char* (*error_string)(nvmlReturn_t), nvmlReturn_t rc, const char* call) {
  if (rc != kNvmlSuccess) throw std::runtime_error(std::string(call) + " failed: " + error_string(rc));
}

}  // namespace

Nvml::Nvml() : lib_({"libnvidia-ml.so.1"}) {
  if (!lib_.ok()) {
    why_not_ = "libnvidia-ml.so.1 not found (no NVIDIA driver on this host): " + lib_.error();
    return;
  }
  table_ = new Table;
  Table& t = *table_;
  t.init = lib_.symbol<decltype(t.init)>("nvmlInit_v2");
  t.shutdown = lib_.symbol<decltype(t.shutdown)>("nvmlShutdown");
  t.error_string = lib_.symbol<decltype(t.error_string)>("nvmlErrorString");
  t.device_count = lib_.symbol<decltype(t.device_count)>("nvmlDeviceGetCount_v2");
  t.handle_by_index = lib_.symbol<decltype(t.handle_by_index)>("nvmlDeviceGetHandleByIndex_v2");
  t.name = lib_.symbol<decltype(t.name)>("nvmlDeviceGetName");
  t.uuid = lib_.symbol<decltype(t.uuid)>("nvmlDeviceGetUUID");
  t.pci_info = lib_.symbol<decltype(t.pci_info)>("nvmlDeviceGetPciInfo_v3");
  t.memory_info = lib_.symbol<decltype(t.memory_info)>("nvmlDeviceGetMemoryInfo");
  t.driver_version = lib_.symbol<decltype(t.driver_version)>("nvmlSystemGetDriverVersion");
  t.cuda_driver_version = lib_.symbol<decltype(t.cuda_driver_version)>("nvmlSystemGetCudaDriverVersion_v2");
  if (!t.init || !t.shutdown || !t.error_string || !t.device_count || !t.handle_by_index) {
    why_not_ = lib_.path() + " lacks the NVML entry points ibgpu needs (driver too old?)";
    return;
  }
  if (nvmlReturn_t rc = t.init(); rc != kNvmlSuccess) {
    why_not_ = std::string("nvmlInit failed: ") + t.error_string(rc);
    return;
  }
  initialised_ = true;
}

Nvml::~Nvml() {
  if (initialised_) table_->shutdown();
  delete table_;
}

GpuSystem Nvml::query() const {
  if (!initialised_) throw std::logic_error("Nvml::query without a loaded driver: " + why_not_);
  const Table& t = *table_;
  GpuSystem sys;
  char text[96] = {};
  if (t.driver_version && t.driver_version(text, sizeof text) == kNvmlSuccess) sys.driver_version = text;
  if (int v = 0; t.cuda_driver_version && t.cuda_driver_version(&v) == kNvmlSuccess)
    sys.cuda_driver_version = v;
  unsigned int count = 0;
  nvml_check(t.error_string, t.device_count(&count), "nvmlDeviceGetCount");
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    nvml_check(t.error_string, t.handle_by_index(i, &dev), "nvmlDeviceGetHandleByIndex");
    GpuInfo gpu;
    gpu.index = static_cast<int>(i);
    if (t.name && t.name(dev, text, sizeof text) == kNvmlSuccess) gpu.name = text;
    if (t.uuid && t.uuid(dev, text, sizeof text) == kNvmlSuccess) gpu.uuid = text;
    if (NvmlPciInfo pci{}; t.pci_info && t.pci_info(dev, &pci) == kNvmlSuccess) gpu.pci_bus_id = pci.busId;
    if (NvmlMemory mem{}; t.memory_info && t.memory_info(dev, &mem) == kNvmlSuccess)
      gpu.memory_total_GiB = static_cast<double>(mem.total) / (1024.0 * 1024.0 * 1024.0);
    sys.gpus.push_back(std::move(gpu));
  }
  return sys;
}

}  // namespace ibgpu
