#include "probes/gpu/nvml.h"

#include <stdexcept>

#include "core/errors.h"

namespace ibgpu {

namespace {
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;
constexpr int kEnabled = 1;                              // NVML_FEATURE_ENABLED
constexpr int kUncorrected = 1;                          // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatile = 0, kAggregate = 1;             // nvmlEccCounterType_t
constexpr int kRetiredMultipleSbe = 0, kRetiredDbe = 1;  // nvmlPageRetirementCause_t
constexpr int kTemperatureGpu = 0;                       // NVML_TEMPERATURE_GPU
constexpr unsigned int kNvlinkMaxLinks = 18;             // NVML_NVLINK_MAX_LINKS

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
  // Health queries (all optional: older drivers and consumer GPUs lack some).
  nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;  // current, pending (nvmlEnableState_t)
  nvmlReturn_t (*total_ecc_errors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*retired_pages)(nvmlDevice_t, int, unsigned int*, unsigned long long*) = nullptr;
  nvmlReturn_t (*retired_pages_pending)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*clocks_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*performance_state)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*pcie_gen)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_gen_max)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_width)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*pcie_width_max)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned int, int*) = nullptr;
  nvmlReturn_t (*persistence_mode)(nvmlDevice_t, int*) = nullptr;
};

namespace {

// NVML's convention: a return code, named by nvmlErrorString. Throws CallError.
void nvml_check(const char* (*error_string)(nvmlReturn_t), nvmlReturn_t rc, const char* call) {
  if (rc != kNvmlSuccess) throw CallError(call, error_string(rc));
}

}  // namespace

Nvml::Nvml() : lib_({"libnvidia-ml.so.1"}) {
  if (!lib_.ok()) {
    why_not_ = "libnvidia-ml.so.1 not found (no NVIDIA driver on this host): " + lib_.error();
    return;
  }
  table_ = std::make_unique<Table>();
  Table& t = *table_;
  const std::string missing = lib_.resolve({
      {"nvmlInit_v2", t.init},
      {"nvmlShutdown", t.shutdown},
      {"nvmlErrorString", t.error_string},
      {"nvmlDeviceGetCount_v2", t.device_count},
      {"nvmlDeviceGetHandleByIndex_v2", t.handle_by_index},
      {"nvmlDeviceGetName", t.name, Symbol::optional},
      {"nvmlDeviceGetUUID", t.uuid, Symbol::optional},
      {"nvmlDeviceGetPciInfo_v3", t.pci_info, Symbol::optional},
      {"nvmlDeviceGetMemoryInfo", t.memory_info, Symbol::optional},
      {"nvmlSystemGetDriverVersion", t.driver_version, Symbol::optional},
      {"nvmlSystemGetCudaDriverVersion_v2", t.cuda_driver_version, Symbol::optional},
      {"nvmlDeviceGetEccMode", t.ecc_mode, Symbol::optional},
      {"nvmlDeviceGetTotalEccErrors", t.total_ecc_errors, Symbol::optional},
      {"nvmlDeviceGetRetiredPages", t.retired_pages, Symbol::optional},
      {"nvmlDeviceGetRetiredPagesPendingStatus", t.retired_pages_pending, Symbol::optional},
      {"nvmlDeviceGetRemappedRows", t.remapped_rows, Symbol::optional},
      {"nvmlDeviceGetTemperature", t.temperature, Symbol::optional},
      {"nvmlDeviceGetCurrentClocksEventReasons", t.clocks_event_reasons, Symbol::optional},
      {"nvmlDeviceGetPerformanceState", t.performance_state, Symbol::optional},
      {"nvmlDeviceGetCurrPcieLinkGeneration", t.pcie_gen, Symbol::optional},
      {"nvmlDeviceGetMaxPcieLinkGeneration", t.pcie_gen_max, Symbol::optional},
      {"nvmlDeviceGetCurrPcieLinkWidth", t.pcie_width, Symbol::optional},
      {"nvmlDeviceGetMaxPcieLinkWidth", t.pcie_width_max, Symbol::optional},
      {"nvmlDeviceGetNvLinkState", t.nvlink_state, Symbol::optional},
      {"nvmlDeviceGetPersistenceMode", t.persistence_mode, Symbol::optional},
  });
  // Renamed in driver 535; older libraries export only the Throttle spelling.
  if (!t.clocks_event_reasons)
    lib_.resolve({{"nvmlDeviceGetCurrentClocksThrottleReasons", t.clocks_event_reasons, Symbol::optional}});
  if (!missing.empty()) {
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
}

GpuSystem Nvml::query() const {
  if (!initialised_) throw std::logic_error("Nvml::query without a loaded driver: " + why_not_);
  const Table& t = *table_;
  GpuSystem sys;
  char text[96] = {};
  if (t.driver_version && t.driver_version(text, sizeof text) == kNvmlSuccess) sys.driver_version = text;
  if (int v = 0; t.cuda_driver_version && t.cuda_driver_version(&v) == kNvmlSuccess) sys.cuda_driver_version = v;
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

namespace {

// Runs an optional NVML query; nullopt when the entry point is absent or the
// call fails (NOT_SUPPORTED on GPUs without the feature is the common case).
template <class Fn, class... Args>
bool asked(Fn fn, Args... args) {
  return fn && fn(args...) == kNvmlSuccess;
}

std::optional<double> unsigned_query(nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int*), nvmlDevice_t dev) {
  unsigned int v = 0;
  if (!asked(fn, dev, &v)) return std::nullopt;
  return static_cast<double>(v);
}

std::optional<bool> enabled_query(nvmlReturn_t (*fn)(nvmlDevice_t, int*), nvmlDevice_t dev) {
  int v = 0;
  if (!asked(fn, dev, &v)) return std::nullopt;
  return v == kEnabled;
}

}  // namespace

std::vector<GpuHealth> Nvml::query_health() const {
  if (!initialised_) throw std::logic_error("Nvml::query_health without a loaded driver: " + why_not_);
  const Table& t = *table_;
  std::vector<GpuHealth> out;
  unsigned int count = 0;
  nvml_check(t.error_string, t.device_count(&count), "nvmlDeviceGetCount");
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    nvml_check(t.error_string, t.handle_by_index(i, &dev), "nvmlDeviceGetHandleByIndex");
    GpuHealth h;
    h.index = static_cast<int>(i);
    if (NvmlPciInfo pci{}; asked(t.pci_info, dev, &pci)) h.pci_bus_id = pci.busId;
    if (int current = 0, pending = 0; asked(t.ecc_mode, dev, &current, &pending)) h.ecc_enabled = current == kEnabled;
    if (unsigned long long n = 0; asked(t.total_ecc_errors, dev, kUncorrected, kVolatile, &n))
      h.ecc_uncorrected_volatile = static_cast<double>(n);
    if (unsigned long long n = 0; asked(t.total_ecc_errors, dev, kUncorrected, kAggregate, &n))
      h.ecc_uncorrected_aggregate = static_cast<double>(n);
    // With a zero-sized buffer NVML answers the page count (INSUFFICIENT_SIZE when non-zero).
    for (auto [cause, field] :
         {std::pair{kRetiredDbe, &h.retired_pages_dbe}, {kRetiredMultipleSbe, &h.retired_pages_sbe}}) {
      unsigned int pages = 0;
      if (!t.retired_pages) continue;
      const nvmlReturn_t rc = t.retired_pages(dev, cause, &pages, nullptr);
      if (rc == kNvmlSuccess || rc == kNvmlInsufficientSize) *field = static_cast<double>(pages);
    }
    h.retired_pages_pending = enabled_query(t.retired_pages_pending, dev);
    if (unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
        asked(t.remapped_rows, dev, &corr, &unc, &pending, &failed)) {
      h.remapped_rows_correctable = corr;
      h.remapped_rows_uncorrectable = unc;
      h.remap_pending = pending != 0;
      h.remap_failed = failed != 0;
    }
    if (unsigned int temp = 0; asked(t.temperature, dev, kTemperatureGpu, &temp)) h.temp_C = temp;
    if (unsigned long long reasons = 0; asked(t.clocks_event_reasons, dev, &reasons)) h.clocks_event_reasons = reasons;
    if (int pstate = 0; asked(t.performance_state, dev, &pstate)) h.pstate = pstate;
    h.pcie_gen = unsigned_query(t.pcie_gen, dev);
    h.pcie_gen_max = unsigned_query(t.pcie_gen_max, dev);
    h.pcie_width = unsigned_query(t.pcie_width, dev);
    h.pcie_width_max = unsigned_query(t.pcie_width_max, dev);
    if (t.nvlink_state) {
      // A link index the GPU lacks answers NOT_SUPPORTED or INVALID_ARGUMENT.
      int total = 0, up = 0;
      for (unsigned int link = 0; link < kNvlinkMaxLinks; ++link) {
        int active = 0;
        if (t.nvlink_state(dev, link, &active) != kNvmlSuccess) continue;
        ++total;
        up += active == kEnabled ? 1 : 0;
      }
      h.nvlink_links_total = total;
      h.nvlink_links_up = up;
    }
    h.persistence_mode = enabled_query(t.persistence_mode, dev);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace ibgpu
