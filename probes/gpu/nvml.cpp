#include "probes/gpu/nvml.h"

#include <optional>
#include <stdexcept>

#include "core/errors.h"
#include "probes/gpu/nvml_api.h"

namespace ibgpu {

// One pointer per entry point, typed by NVML's own declarations: a table slot
// that disagrees with nvml_api.h does not compile.
struct Nvml::Table {
  decltype(&::nvmlInit_v2) init = nullptr;
  decltype(&::nvmlShutdown) shutdown = nullptr;
  decltype(&::nvmlErrorString) error_string = nullptr;
  decltype(&::nvmlDeviceGetCount_v2) device_count = nullptr;
  decltype(&::nvmlDeviceGetHandleByIndex_v2) handle_by_index = nullptr;
  decltype(&::nvmlDeviceGetName) name = nullptr;
  decltype(&::nvmlDeviceGetUUID) uuid = nullptr;
  decltype(&::nvmlDeviceGetSerial) serial = nullptr;
  decltype(&::nvmlDeviceGetPciInfo_v3) pci_info = nullptr;
  decltype(&::nvmlDeviceGetMemoryInfo) memory_info = nullptr;
  decltype(&::nvmlSystemGetDriverVersion) driver_version = nullptr;
  decltype(&::nvmlSystemGetCudaDriverVersion_v2) cuda_driver_version = nullptr;
  // Health queries (all optional: older drivers and consumer GPUs lack some).
  decltype(&::nvmlDeviceGetEccMode) ecc_mode = nullptr;
  decltype(&::nvmlDeviceGetTotalEccErrors) total_ecc_errors = nullptr;
  decltype(&::nvmlDeviceGetRetiredPages) retired_pages = nullptr;
  decltype(&::nvmlDeviceGetRetiredPagesPendingStatus) retired_pages_pending = nullptr;
  decltype(&::nvmlDeviceGetRemappedRows) remapped_rows = nullptr;
  decltype(&::nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&::nvmlDeviceGetCurrentClocksEventReasons) clocks_event_reasons = nullptr;
  const char* clocks_event_reasons_call = "nvmlDeviceGetCurrentClocksEventReasons";
  decltype(&::nvmlDeviceGetPerformanceState) performance_state = nullptr;
  decltype(&::nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max = nullptr;
  decltype(&::nvmlDeviceGetCurrPcieLinkWidth) pcie_width = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max = nullptr;
  decltype(&::nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&::nvmlDeviceGetPersistenceMode) persistence_mode = nullptr;
  decltype(&::nvmlDeviceGetFieldValues) field_values = nullptr;
  decltype(&::nvmlDeviceGetGpuFabricInfoV) fabric_info = nullptr;
};

Nvml::Nvml() : Nvml("libnvidia-ml.so.1") {}

Nvml::Nvml(const std::string& library) : lib_({library}) {
  if (!lib_.ok()) {
    why_not_ = library + " not found (no NVIDIA driver on this host): " + lib_.error();
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
      {"nvmlDeviceGetSerial", t.serial, Symbol::optional},
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
      {"nvmlDeviceGetFieldValues", t.field_values, Symbol::optional},
      {"nvmlDeviceGetGpuFabricInfoV", t.fabric_info, Symbol::optional},
  });
  // Renamed in driver 535; older libraries export only the Throttle spelling (same signature).
  if (!t.clocks_event_reasons) {
    lib_.resolve({{"nvmlDeviceGetCurrentClocksThrottleReasons", t.clocks_event_reasons, Symbol::optional}});
    t.clocks_event_reasons_call = "nvmlDeviceGetCurrentClocksThrottleReasons";
  }
  if (!missing.empty()) {
    why_not_ = lib_.path() + " lacks the NVML entry points ibgpu needs (driver too old?)";
    return;
  }
  if (nvmlReturn_t rc = t.init(); rc != NVML_SUCCESS) {
    why_not_ = std::string("nvmlInit failed: ") + t.error_string(rc);
    return;
  }
  initialised_ = true;
}

Nvml::~Nvml() {
  if (initialised_) table_->shutdown();
}

namespace {

// NVML's convention: a return code, named by nvmlErrorString. For calls about
// the whole system; throws CallError.
void nvml_check(const char* (*error_string)(nvmlReturn_t), nvmlReturn_t rc, const char* call) {
  if (rc != NVML_SUCCESS) throw CallError(call, error_string(rc));
}

// The same convention for calls about one GPU: NOT_SUPPORTED (the GPU lacks
// the feature) and an entry point this driver does not have are answers
// ("not available"), anything else ends that GPU's queries (GpuStop) and is
// kept as its failure.
struct GpuStop {
  NvmlFailure failure;
};

class GpuQueries {
 public:
  explicit GpuQueries(const char* (*error_string)(nvmlReturn_t)) : error_string_(error_string) {}

  // true: answered; false: not available on this GPU; throws GpuStop otherwise.
  bool answered(const char* call, nvmlReturn_t rc) const {
    if (rc == NVML_SUCCESS) return true;
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND) return false;
    stop(call, rc);
  }

  [[noreturn]] void stop(const char* call, nvmlReturn_t rc) const {
    throw GpuStop{{call, error_string_(rc), rc == NVML_ERROR_GPU_IS_LOST}};
  }

  template <class Fn, class... Args>
  bool ask(const char* call, Fn fn, Args... args) const {
    return fn && answered(call, fn(args...));
  }

  template <class Fn>
  std::optional<double> unsigned_value(const char* call, Fn fn, nvmlDevice_t dev) const {
    unsigned int v = 0;
    if (!ask(call, fn, dev, &v)) return std::nullopt;
    return static_cast<double>(v);
  }

  template <class Fn>
  std::optional<bool> enabled(const char* call, Fn fn, nvmlDevice_t dev) const {
    nvmlEnableState_t v = NVML_FEATURE_DISABLED;
    if (!ask(call, fn, dev, &v)) return std::nullopt;
    return v == NVML_FEATURE_ENABLED;
  }

 private:
  const char* (*error_string_)(nvmlReturn_t);
};

// Required entry point: without a handle there is no GPU to ask, whatever the code.
nvmlDevice_t handle(const Nvml::Table& t, const GpuQueries& q, unsigned int index) {
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t rc = t.handle_by_index(index, &dev); rc != NVML_SUCCESS)
    q.stop("nvmlDeviceGetHandleByIndex_v2", rc);
  return dev;
}

}  // namespace

GpuSystem Nvml::query() const {
  if (!initialised_) throw std::logic_error("Nvml::query without a loaded driver: " + why_not_);
  const Table& t = *table_;
  const GpuQueries q(t.error_string);
  GpuSystem sys;
  char text[96] = {};
  if (t.driver_version && t.driver_version(text, sizeof text) == NVML_SUCCESS) sys.driver_version = text;
  if (int v = 0; t.cuda_driver_version && t.cuda_driver_version(&v) == NVML_SUCCESS) sys.cuda_driver_version = v;
  unsigned int count = 0;
  nvml_check(t.error_string, t.device_count(&count), "nvmlDeviceGetCount_v2");
  for (unsigned int i = 0; i < count; ++i) {
    GpuInfo gpu;
    gpu.index = static_cast<int>(i);
    try {
      const nvmlDevice_t dev = handle(t, q, i);
      if (q.ask("nvmlDeviceGetName", t.name, dev, text, static_cast<unsigned int>(sizeof text))) gpu.name = text;
      if (q.ask("nvmlDeviceGetUUID", t.uuid, dev, text, static_cast<unsigned int>(sizeof text))) gpu.uuid = text;
      // Identity only: no answer (a GeForce has none, or any error) is no serial, never a finding.
      if (t.serial && t.serial(dev, text, static_cast<unsigned int>(sizeof text)) == NVML_SUCCESS) gpu.serial = text;
      if (nvmlPciInfo_t pci{}; q.ask("nvmlDeviceGetPciInfo_v3", t.pci_info, dev, &pci)) gpu.pci_bus_id = pci.busId;
      if (nvmlMemory_t mem{}; q.ask("nvmlDeviceGetMemoryInfo", t.memory_info, dev, &mem))
        gpu.memory_total_GiB = static_cast<double>(mem.total) / (1024.0 * 1024.0 * 1024.0);
    } catch (const GpuStop& stop) {
      sys.failures[gpu.index] = stop.failure;
    }
    sys.gpus.push_back(std::move(gpu));
  }
  return sys;
}

namespace {

// A field's value as a number; none where NVML did not answer it (NOT_SUPPORTED in its own answer,
// or before NVML knew the field) or answered in a type it does not use for counts and speeds.
std::optional<double> field_number(const nvmlFieldValue_t& v) {
  if (v.nvmlReturn != NVML_SUCCESS) return std::nullopt;
  switch (v.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return static_cast<double>(v.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return static_cast<double>(v.value.ullVal);
    case NVML_VALUE_TYPE_DOUBLE:
      return v.value.dVal;
    default:
      return std::nullopt;  // no figure rather than a wrong one
  }
}

// Asks `fields` of each link in `links` in one nvmlDeviceGetFieldValues call: per link, the fields
// in order; empty when the call is not there or failed as a whole.
std::vector<nvmlFieldValue_t> link_fields(const Nvml::Table& t, const GpuQueries& q, nvmlDevice_t dev,
                                          const std::vector<unsigned int>& links,
                                          const std::vector<unsigned int>& fields) {
  if (!t.field_values || links.empty()) return {};
  std::vector<nvmlFieldValue_t> values(links.size() * fields.size());
  for (std::size_t i = 0; i < links.size(); ++i)
    for (std::size_t f = 0; f < fields.size(); ++f) {
      values[i * fields.size() + f].fieldId = fields[f];
      values[i * fields.size() + f].scopeId = links[i];
    }
  if (!q.ask("nvmlDeviceGetFieldValues", t.field_values, dev, static_cast<int>(values.size()), values.data()))
    return {};
  return values;
}

// The speed of each link up: the slowest is kept.
void read_nvlink_speeds(const Nvml::Table& t, const GpuQueries& q, nvmlDevice_t dev,
                        const std::vector<unsigned int>& links, GpuHealth& h) {
  const auto values = link_fields(t, q, dev, links, {NVML_FI_DEV_NVLINK_GET_SPEED});
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto speed = field_number(values[i]);
    if (!speed) continue;
    if (!h.nvlink_speed_min_MBps || *speed < *h.nvlink_speed_min_MBps) {
      h.nvlink_speed_min_MBps = *speed;
      h.nvlink_slowest = static_cast<int>(links[i]);
    }
  }
}

// The error counters of each link up: Hopper's fields where the driver answers them, NVLink 5's
// where it answers those (each generation answers its own and NOT_SUPPORTED for the other's).
void read_nvlink_errors(const Nvml::Table& t, const GpuQueries& q, nvmlDevice_t dev,
                        const std::vector<unsigned int>& links, GpuHealth& h) {
  const std::vector<unsigned int> fields{NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY, NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY,
                                         NVML_FI_DEV_NVLINK_ERROR_DL_CRC, NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS,
                                         NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS};
  const auto values = link_fields(t, q, dev, links, fields);
  for (std::size_t i = 0; i < links.size() && !values.empty(); ++i) {
    const auto at = [&](std::size_t f) { return field_number(values[i * fields.size() + f]); };
    const auto dl_recovery = at(0), replay = at(1), crc = at(2), recovery_events = at(3), rcv_errors = at(4);
    const auto recoveries = dl_recovery ? dl_recovery : recovery_events;
    std::optional<double> errors;
    if (replay || crc)
      errors = replay.value_or(0) + crc.value_or(0);
    else
      errors = rcv_errors;
    if (!recoveries && !errors) continue;
    GpuHealth::LinkErrors link{static_cast<int>(links[i]), static_cast<unsigned long long>(recoveries.value_or(0)),
                               static_cast<unsigned long long>(errors.value_or(0))};
    if (recoveries) h.nvlink_recoveries = h.nvlink_recoveries.value_or(0) + link.recoveries;
    if (errors) h.nvlink_errors = h.nvlink_errors.value_or(0) + link.errors;
    if (link.recoveries > 0 || link.errors > 0) h.nvlink_link_errors.push_back(link);
  }
}

std::string uuid_text(const unsigned char (&bytes)[NVML_GPU_FABRIC_UUID_LEN]) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xf];
  }
  return out;
}

// The GPU's NVLink fabric registration: v3 of the struct, v2 where the driver knows no v3.
void read_fabric(const Nvml::Table& t, const GpuQueries& q, nvmlDevice_t dev, GpuHealth& h) {
  if (!t.fabric_info) return;
  nvmlGpuFabricInfoV_t info{};
  info.version = nvmlGpuFabricInfo_v3;
  nvmlReturn_t rc = t.fabric_info(dev, &info);
  bool summary = true;
  if (rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    info = {};
    info.version = nvmlGpuFabricInfo_v2;
    rc = t.fabric_info(dev, &info);
    summary = false;
  }
  if (!q.answered("nvmlDeviceGetGpuFabricInfoV", rc) || info.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) return;
  h.fabric_state = info.state;
  if (info.state != NVML_GPU_FABRIC_STATE_COMPLETED) return;
  if (info.status != NVML_SUCCESS) h.fabric_error = t.error_string(info.status);
  h.fabric_cluster_uuid = uuid_text(info.clusterUuid);
  h.fabric_clique = static_cast<int>(info.cliqueId);
  h.fabric_health = summary ? info.healthSummary : NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED;
}

void read_health(const Nvml::Table& t, const GpuQueries& q, GpuHealth& h) {
  const nvmlDevice_t dev = handle(t, q, static_cast<unsigned int>(h.index));
  if (nvmlPciInfo_t pci{}; q.ask("nvmlDeviceGetPciInfo_v3", t.pci_info, dev, &pci)) h.pci_bus_id = pci.busId;
  if (nvmlEnableState_t current{}, pending{}; q.ask("nvmlDeviceGetEccMode", t.ecc_mode, dev, &current, &pending))
    h.ecc_enabled = current == NVML_FEATURE_ENABLED;
  for (auto [counter, field] : {std::pair{NVML_VOLATILE_ECC, &h.ecc_uncorrected_volatile},
                                std::pair{NVML_AGGREGATE_ECC, &h.ecc_uncorrected_aggregate}})
    if (unsigned long long n = 0;
        q.ask("nvmlDeviceGetTotalEccErrors", t.total_ecc_errors, dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter, &n))
      *field = static_cast<double>(n);
  // With a zero-sized buffer NVML answers the page count (INSUFFICIENT_SIZE when non-zero).
  for (auto [cause, field] :
       {std::pair{NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &h.retired_pages_dbe},
        std::pair{NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &h.retired_pages_sbe}}) {
    if (!t.retired_pages) continue;
    unsigned int pages = 0;
    nvmlReturn_t rc = t.retired_pages(dev, cause, &pages, nullptr);
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) rc = NVML_SUCCESS;
    if (q.answered("nvmlDeviceGetRetiredPages", rc)) *field = static_cast<double>(pages);
  }
  h.retired_pages_pending = q.enabled("nvmlDeviceGetRetiredPagesPendingStatus", t.retired_pages_pending, dev);
  if (unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
      q.ask("nvmlDeviceGetRemappedRows", t.remapped_rows, dev, &corr, &unc, &pending, &failed)) {
    h.remapped_rows_correctable = corr;
    h.remapped_rows_uncorrectable = unc;
    h.remap_pending = pending != 0;
    h.remap_failed = failed != 0;
  }
  if (unsigned int temp = 0; q.ask("nvmlDeviceGetTemperature", t.temperature, dev, NVML_TEMPERATURE_GPU, &temp))
    h.temp_C = temp;
  if (unsigned long long reasons = 0; q.ask(t.clocks_event_reasons_call, t.clocks_event_reasons, dev, &reasons))
    h.clocks_event_reasons = reasons;
  if (nvmlPstates_t pstate{}; q.ask("nvmlDeviceGetPerformanceState", t.performance_state, dev, &pstate))
    h.pstate = static_cast<int>(pstate);
  h.pcie_gen = q.unsigned_value("nvmlDeviceGetCurrPcieLinkGeneration", t.pcie_gen, dev);
  h.pcie_gen_max = q.unsigned_value("nvmlDeviceGetMaxPcieLinkGeneration", t.pcie_gen_max, dev);
  h.pcie_width = q.unsigned_value("nvmlDeviceGetCurrPcieLinkWidth", t.pcie_width, dev);
  h.pcie_width_max = q.unsigned_value("nvmlDeviceGetMaxPcieLinkWidth", t.pcie_width_max, dev);
  std::vector<unsigned int> links_up;
  if (t.nvlink_state) {
    int total = 0;
    for (unsigned int link = 0; link < IBGPU_NVML_MAX_LINKS; ++link) {
      nvmlEnableState_t active = NVML_FEATURE_DISABLED;
      const nvmlReturn_t rc = t.nvlink_state(dev, link, &active);
      // A link index the GPU lacks answers NOT_SUPPORTED or INVALID_ARGUMENT.
      if (rc == NVML_ERROR_INVALID_ARGUMENT || !q.answered("nvmlDeviceGetNvLinkState", rc)) continue;
      ++total;
      if (active == NVML_FEATURE_ENABLED)
        links_up.push_back(link);
      else
        h.nvlinks_down.push_back(static_cast<int>(link));
    }
    h.nvlink_links_total = total;
    h.nvlink_links_up = static_cast<int>(links_up.size());
  }
  read_nvlink_speeds(t, q, dev, links_up, h);
  read_nvlink_errors(t, q, dev, links_up, h);
  read_fabric(t, q, dev, h);
  h.persistence_mode = q.enabled("nvmlDeviceGetPersistenceMode", t.persistence_mode, dev);
}

}  // namespace

std::vector<GpuHealth> Nvml::query_health() const {
  if (!initialised_) throw std::logic_error("Nvml::query_health without a loaded driver: " + why_not_);
  const Table& t = *table_;
  const GpuQueries q(t.error_string);
  std::vector<GpuHealth> out;
  unsigned int count = 0;
  nvml_check(t.error_string, t.device_count(&count), "nvmlDeviceGetCount_v2");
  for (unsigned int i = 0; i < count; ++i) {
    GpuHealth h;
    h.index = static_cast<int>(i);
    try {
      read_health(t, q, h);
    } catch (const GpuStop& stop) {
      h.failure = stop.failure;
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace ibgpu
