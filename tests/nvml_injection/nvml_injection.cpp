// A test double of the NVIDIA driver's NVML library: built as libnvidia-ml.so.1
// in the test tree only, never installed. It defines every entry point ibgpu
// resolves with the prototypes of probes/gpu/nvml_api.h (NVML's own), and
// answers from the scenario file named by IBGPU_NVML_SCENARIO (TOML, read at
// nvmlInit_v2). A scenario lists GPUs and their values; a value a GPU does not
// list answers NVML_ERROR_NOT_SUPPORTED, and `errors` tables name the return
// code of a call, per GPU (`"*"` for every query of that GPU but its handle)
// or for the system calls. tests/data/nvml/README.md describes the keys.
#include <toml++/toml.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "probes/gpu/nvml_api.h"

struct nvmlDevice_st {
  unsigned int index;
};

namespace {

struct CodeName {
  nvmlReturn_t code;
  const char* name;
  const char* text;  // nvmlErrorString's text in NVIDIA's library
};

constexpr CodeName kCodes[] = {
    {NVML_SUCCESS, "NVML_SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT", "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION", "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "NVML_ERROR_ALREADY_INITIALIZED", "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "NVML_ERROR_NOT_FOUND", "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE", "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "NVML_ERROR_INSUFFICIENT_POWER", "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "NVML_ERROR_TIMEOUT", "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "NVML_ERROR_IRQ_ISSUE", "Interrupt Request Issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND", "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "NVML_ERROR_CORRUPTED_INFOROM", "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "NVML_ERROR_RESET_REQUIRED", "GPU requires reset"},
    {NVML_ERROR_OPERATING_SYSTEM, "NVML_ERROR_OPERATING_SYSTEM", "Operating System Error"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
     "RM has detected an NVML/RM version mismatch"},
    {NVML_ERROR_IN_USE, "NVML_ERROR_IN_USE", "In use"},
    {NVML_ERROR_MEMORY, "NVML_ERROR_MEMORY", "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "NVML_ERROR_NO_DATA", "No data"},
    {NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN", "Unknown Error"},
};

std::optional<nvmlReturn_t> code_named(const std::string& name) {
  for (const auto& c : kCodes)
    if (name == c.name) return c.code;
  return std::nullopt;
}

using Errors = std::map<std::string, nvmlReturn_t>;

struct Device {
  toml::table values;  // [defaults] with the GPU's own keys over them
  Errors errors;
  nvmlDevice_st handle{};
};

struct Scenario {
  toml::table system;
  Errors errors;  // calls about the whole system: nvmlInit_v2, nvmlDeviceGetCount_v2, ...
  std::vector<std::unique_ptr<Device>> devices;
};

std::unique_ptr<Scenario> g_scenario;
int g_inits = 0;

Errors read_errors(const toml::node* node, const std::string& where) {
  Errors out;
  if (!node) return out;
  const toml::table* t = node->as_table();
  if (!t) throw std::runtime_error(where + ".errors is not a table");
  for (const auto& [call, code] : *t) {
    const auto name = code.value<std::string>();
    const auto known = name ? code_named(*name) : std::nullopt;
    if (!known) throw std::runtime_error(where + ".errors." + std::string(call.str()) + ": unknown NVML return code");
    out[std::string(call.str())] = *known;
  }
  return out;
}

std::unique_ptr<Scenario> load(const char* path) {
  auto s = std::make_unique<Scenario>();
  s->system = toml::parse_file(path);
  s->errors = read_errors(s->system.get("errors"), "scenario");
  toml::table defaults;
  if (const toml::table* d = s->system["defaults"].as_table()) defaults = *d;
  const Errors default_errors = read_errors(defaults.get("errors"), "defaults");
  if (const toml::array* gpus = s->system["gpu"].as_array()) {
    for (const toml::node& node : *gpus) {
      const toml::table* own = node.as_table();
      const std::string where = "gpu[" + std::to_string(s->devices.size()) + "]";
      if (!own) throw std::runtime_error(where + " is not a table");
      auto dev = std::make_unique<Device>();
      dev->values = defaults;
      for (const auto& [key, value] : *own) dev->values.insert_or_assign(key, value);
      dev->errors = default_errors;
      for (const auto& [call, code] : read_errors(own->get("errors"), where)) dev->errors[call] = code;
      dev->handle.index = static_cast<unsigned int>(s->devices.size());
      s->devices.push_back(std::move(dev));
    }
  }
  return s;
}

bool initialised() { return g_scenario != nullptr; }

// The scenario's code for a system call; NVML_SUCCESS when it names none.
nvmlReturn_t system_call(const char* call) {
  if (!initialised()) return NVML_ERROR_UNINITIALIZED;
  const auto it = g_scenario->errors.find(call);
  return it == g_scenario->errors.end() ? NVML_SUCCESS : it->second;
}

// The device behind a handle and the scenario's code for `call` on it.
nvmlReturn_t device_call(nvmlDevice_t handle, const char* call, const Device*& out) {
  if (!initialised()) return NVML_ERROR_UNINITIALIZED;
  if (!handle || handle->index >= g_scenario->devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  const Device& dev = *g_scenario->devices[handle->index];
  if (&dev.handle != handle) return NVML_ERROR_INVALID_ARGUMENT;
  out = &dev;
  if (auto it = dev.errors.find(call); it != dev.errors.end()) return it->second;
  if (auto it = dev.errors.find("*"); it != dev.errors.end()) return it->second;
  return NVML_SUCCESS;
}

template <class T>
std::optional<T> value(const Device& dev, const char* key) {
  return dev.values[key].value<T>();
}

// An unsigned value of the scenario, or NOT_SUPPORTED where the GPU lists none.
template <class Out>
nvmlReturn_t answer(nvmlDevice_t handle, const char* call, const char* key, Out* out) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(handle, call, dev); rc != NVML_SUCCESS) return rc;
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  const auto v = value<std::int64_t>(*dev, key);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *out = static_cast<Out>(*v);
  return NVML_SUCCESS;
}

nvmlReturn_t answer_enabled(nvmlDevice_t handle, const char* call, const char* key, nvmlEnableState_t* out) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(handle, call, dev); rc != NVML_SUCCESS) return rc;
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  const auto v = value<bool>(*dev, key);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *out = *v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t copy_text(const std::string& text, char* out, unsigned int length) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  if (length <= text.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t answer_text(nvmlDevice_t handle, const char* call, const char* key, char* out, unsigned int length) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(handle, call, dev); rc != NVML_SUCCESS) return rc;
  const auto v = value<std::string>(*dev, key);
  return v ? copy_text(*v, out, length) : NVML_ERROR_NOT_SUPPORTED;
}

}  // namespace

// C linkage on the definitions too: a definition whose parameters differ from
// nvml_api.h's declaration is then a "conflicting declaration of C function"
// error, not a C++ overload that leaves the NVML symbol undefined.
extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  if (g_inits > 0) {
    ++g_inits;
    return NVML_SUCCESS;
  }
  const char* path = std::getenv("IBGPU_NVML_SCENARIO");
  if (!path || !*path) {
    std::fprintf(stderr, "nvml injection: IBGPU_NVML_SCENARIO names no scenario file\n");
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  try {
    g_scenario = load(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvml injection: %s: %s\n", path, e.what());
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  if (auto it = g_scenario->errors.find("nvmlInit_v2"); it != g_scenario->errors.end()) {
    g_scenario.reset();
    return it->second;
  }
  ++g_inits;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (g_inits == 0) return NVML_ERROR_UNINITIALIZED;
  if (--g_inits == 0) g_scenario.reset();
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  for (const auto& c : kCodes)
    if (c.code == result) return c.text;
  return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (nvmlReturn_t rc = system_call("nvmlSystemGetDriverVersion"); rc != NVML_SUCCESS) return rc;
  const auto v = g_scenario->system["driver_version"].value<std::string>();
  return v ? copy_text(*v, version, length) : NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
  if (nvmlReturn_t rc = system_call("nvmlSystemGetCudaDriverVersion_v2"); rc != NVML_SUCCESS) return rc;
  const auto v = g_scenario->system["cuda_driver_version"].value<int>();
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  if (!cudaDriverVersion) return NVML_ERROR_INVALID_ARGUMENT;
  *cudaDriverVersion = *v;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  if (nvmlReturn_t rc = system_call("nvmlDeviceGetCount_v2"); rc != NVML_SUCCESS) return rc;
  if (!deviceCount) return NVML_ERROR_INVALID_ARGUMENT;
  *deviceCount = static_cast<unsigned int>(g_scenario->devices.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialised()) return NVML_ERROR_UNINITIALIZED;
  if (!device || index >= g_scenario->devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  Device& dev = *g_scenario->devices[index];
  // Only its own entry: a GPU lost or hidden by `"*"` still has a handle, as with the real driver.
  if (auto it = dev.errors.find("nvmlDeviceGetHandleByIndex_v2"); it != dev.errors.end()) return it->second;
  *device = &dev.handle;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return answer_text(device, "nvmlDeviceGetName", "name", name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return answer_text(device, "nvmlDeviceGetUUID", "uuid", uuid, length);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char* serial, unsigned int length) {
  return answer_text(device, "nvmlDeviceGetSerial", "serial", serial, length);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(device, "nvmlDeviceGetPciInfo_v3", dev); rc != NVML_SUCCESS) return rc;
  if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
  const auto bus_id = value<std::string>(*dev, "bus_id");
  if (!bus_id) return NVML_ERROR_NOT_SUPPORTED;
  *pci = nvmlPciInfo_t{};
  // "00000000:1B:00.0": domain, bus, device as NVML formats them.
  if (std::sscanf(bus_id->c_str(), "%x:%x:%x", &pci->domain, &pci->bus, &pci->device) != 3) return NVML_ERROR_UNKNOWN;
  std::snprintf(pci->busId, sizeof pci->busId, "%s", bus_id->c_str());
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain & 0xffffu, pci->bus & 0xffu,
                pci->device & 0xffu);
  pci->pciDeviceId = static_cast<unsigned int>(value<std::int64_t>(*dev, "pci_device_id").value_or(0));
  pci->pciSubSystemId = static_cast<unsigned int>(value<std::int64_t>(*dev, "pci_subsystem_id").value_or(0));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(device, "nvmlDeviceGetMemoryInfo", dev); rc != NVML_SUCCESS) return rc;
  if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
  const auto total = value<std::int64_t>(*dev, "memory_total_bytes");
  if (!total) return NVML_ERROR_NOT_SUPPORTED;
  const auto used = value<std::int64_t>(*dev, "memory_used_bytes").value_or(0);
  memory->total = static_cast<unsigned long long>(*total);
  memory->used = static_cast<unsigned long long>(used);
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current, nvmlEnableState_t* pending) {
  const nvmlReturn_t rc = answer_enabled(device, "nvmlDeviceGetEccMode", "ecc_enabled", current);
  if (rc == NVML_SUCCESS && pending) *pending = *current;
  return rc;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long* eccCounts) {
  const bool uncorrected = errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED;
  const bool is_volatile = counterType == NVML_VOLATILE_ECC;
  const char* key = uncorrected ? (is_volatile ? "ecc_uncorrected_volatile" : "ecc_uncorrected_aggregate")
                                : (is_volatile ? "ecc_corrected_volatile" : "ecc_corrected_aggregate");
  return answer(device, "nvmlDeviceGetTotalEccErrors", key, eccCounts);
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int* pageCount,
                                       unsigned long long* addresses) {
  const char* key =
      cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? "retired_pages_dbe" : "retired_pages_sbe";
  unsigned int pages = 0;
  if (nvmlReturn_t rc = answer(device, "nvmlDeviceGetRetiredPages", key, &pages); rc != NVML_SUCCESS) return rc;
  if (!pageCount) return NVML_ERROR_INVALID_ARGUMENT;
  // NVML's convention: the count always, the addresses when the buffer holds them all.
  const unsigned int room = *pageCount;
  *pageCount = pages;
  if (room < pages || (pages > 0 && !addresses)) return NVML_ERROR_INSUFFICIENT_SIZE;
  for (unsigned int i = 0; i < pages; ++i) addresses[i] = 0x1000ull * (i + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t* isPending) {
  return answer_enabled(device, "nvmlDeviceGetRetiredPagesPendingStatus", "retired_pages_pending", isPending);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corrRows, unsigned int* uncRows,
                                       unsigned int* isPending, unsigned int* failureOccurred) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(device, "nvmlDeviceGetRemappedRows", dev); rc != NVML_SUCCESS) return rc;
  if (!corrRows || !uncRows || !isPending || !failureOccurred) return NVML_ERROR_INVALID_ARGUMENT;
  // A GPU with a row remapper (A100 and later) lists its correctable count.
  const auto corrected = value<std::int64_t>(*dev, "remapped_rows_correctable");
  if (!corrected) return NVML_ERROR_NOT_SUPPORTED;
  *corrRows = static_cast<unsigned int>(*corrected);
  *uncRows = static_cast<unsigned int>(value<std::int64_t>(*dev, "remapped_rows_uncorrectable").value_or(0));
  *isPending = value<bool>(*dev, "remap_pending").value_or(false) ? 1u : 0u;
  *failureOccurred = value<bool>(*dev, "remap_failed").value_or(false) ? 1u : 0u;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int* temp) {
  if (sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  return answer(device, "nvmlDeviceGetTemperature", "temp_C", temp);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* clocksEventReasons) {
  return answer(device, "nvmlDeviceGetCurrentClocksEventReasons", "clocks_event_reasons", clocksEventReasons);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* clocksThrottleReasons) {
  return answer(device, "nvmlDeviceGetCurrentClocksThrottleReasons", "clocks_event_reasons", clocksThrottleReasons);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t* pState) {
  return answer(device, "nvmlDeviceGetPerformanceState", "pstate", pState);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* currLinkGen) {
  return answer(device, "nvmlDeviceGetCurrPcieLinkGeneration", "pcie_gen", currLinkGen);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* maxLinkGen) {
  return answer(device, "nvmlDeviceGetMaxPcieLinkGeneration", "pcie_gen_max", maxLinkGen);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* currLinkWidth) {
  return answer(device, "nvmlDeviceGetCurrPcieLinkWidth", "pcie_width", currLinkWidth);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* maxLinkWidth) {
  return answer(device, "nvmlDeviceGetMaxPcieLinkWidth", "pcie_width_max", maxLinkWidth);
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t* isActive) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(device, "nvmlDeviceGetNvLinkState", dev); rc != NVML_SUCCESS) return rc;
  if (!isActive) return NVML_ERROR_INVALID_ARGUMENT;
  const auto links = value<std::int64_t>(*dev, "nvlinks");
  if (!links) return NVML_ERROR_NOT_SUPPORTED;  // a PCIe GPU without NVLink
  if (link >= *links) return NVML_ERROR_INVALID_ARGUMENT;
  bool down = false;
  if (const toml::array* list = dev->values["nvlinks_down"].as_array())
    for (const toml::node& n : *list) down = down || n.value<std::int64_t>() == static_cast<std::int64_t>(link);
  *isActive = down ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode) {
  return answer_enabled(device, "nvmlDeviceGetPersistenceMode", "persistence_mode", mode);
}

// A per-link value: `by_link = { 7 = N }` for that link, else `key` for every link.
std::optional<std::int64_t> link_value(const Device& dev, const char* key, const char* by_link, unsigned int link) {
  if (const toml::table* links = dev.values[by_link].as_table())
    if (const auto own = (*links)[std::to_string(link)].value<std::int64_t>()) return own;
  return value<std::int64_t>(dev, key);
}

// Per link: NVLink speed (`nvlink_speed_MBps`, `nvlink_speed_by_link = { 7 = 26562 }`) and error
// counters (`nvlink_recoveries`, `nvlink_errors`, each with its `_by_link`; 0 unset), the latter in
// Hopper's fields (DL recovery; the errors as DL replays, no CRC errors) or, with
// `nvlink_counter_fields = "nvlink5"`, in NVLink 5's (link recovery events, packets received with
// errors), the other generation's answering NOT_SUPPORTED as a real driver does. Any other field,
// and a link past `nvlinks`, answers NOT_SUPPORTED in its own value.
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t* values) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(device, "nvmlDeviceGetFieldValues", dev); rc != NVML_SUCCESS) return rc;
  if (!values || valuesCount < 0) return NVML_ERROR_INVALID_ARGUMENT;
  const auto links = value<std::int64_t>(*dev, "nvlinks").value_or(0);
  const bool nvlink5 = value<std::string>(*dev, "nvlink_counter_fields").value_or("hopper") == "nvlink5";
  for (int i = 0; i < valuesCount; ++i) {
    nvmlFieldValue_t& v = values[i];
    v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    if (static_cast<std::int64_t>(v.scopeId) >= links) continue;
    std::optional<std::int64_t> answer;
    switch (v.fieldId) {
      case NVML_FI_DEV_NVLINK_GET_SPEED:
        answer = link_value(*dev, "nvlink_speed_MBps", "nvlink_speed_by_link", v.scopeId);
        break;
      case NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY:
      case NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS:
        if (nvlink5 == (v.fieldId == NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS))
          answer = link_value(*dev, "nvlink_recoveries", "nvlink_recoveries_by_link", v.scopeId).value_or(0);
        break;
      case NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY:
      case NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS:
        if (nvlink5 == (v.fieldId == NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS))
          answer = link_value(*dev, "nvlink_errors", "nvlink_errors_by_link", v.scopeId).value_or(0);
        break;
      case NVML_FI_DEV_NVLINK_ERROR_DL_CRC:
        if (!nvlink5) answer = 0;
        break;
      default:
        break;
    }
    if (!answer) continue;
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    v.value.ullVal = static_cast<unsigned long long>(*answer);
    v.nvmlReturn = NVML_SUCCESS;
  }
  return NVML_SUCCESS;
}

// The NVLink fabric: `fabric_state` ("not_started", "in_progress", "completed"; none: NOT_SUPPORTED
// in the struct's state, as a GPU outside a fabric answers), `fabric_status` (an NVML code's name),
// `fabric_cluster_uuid`, `fabric_clique_id`, `fabric_health_summary` ("healthy", "unhealthy",
// "limited_capacity"), and `fabric_struct_version = 2` for a driver that knows no v3.
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t* info) {
  const Device* dev = nullptr;
  if (nvmlReturn_t rc = device_call(device, "nvmlDeviceGetGpuFabricInfoV", dev); rc != NVML_SUCCESS) return rc;
  if (!info) return NVML_ERROR_INVALID_ARGUMENT;
  const bool v2_only = value<std::int64_t>(*dev, "fabric_struct_version").value_or(3) == 2;
  if (info->version != nvmlGpuFabricInfo_v2 && (v2_only || info->version != nvmlGpuFabricInfo_v3))
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  const std::string state = value<std::string>(*dev, "fabric_state").value_or("");
  info->state = state == "not_started"   ? NVML_GPU_FABRIC_STATE_NOT_STARTED
                : state == "in_progress" ? NVML_GPU_FABRIC_STATE_IN_PROGRESS
                : state == "completed"   ? NVML_GPU_FABRIC_STATE_COMPLETED
                                         : NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
  info->status =
      code_named(value<std::string>(*dev, "fabric_status").value_or("NVML_SUCCESS")).value_or(NVML_ERROR_UNKNOWN);
  info->cliqueId = static_cast<unsigned int>(value<std::int64_t>(*dev, "fabric_clique_id").value_or(0));
  std::memset(info->clusterUuid, 0, sizeof info->clusterUuid);
  const std::string uuid = value<std::string>(*dev, "fabric_cluster_uuid").value_or("");
  std::size_t byte = 0;
  for (std::size_t i = 0; i + 1 < uuid.size() && byte < sizeof info->clusterUuid; ++i) {
    if (uuid[i] == '-') continue;
    unsigned int x = 0;
    if (std::sscanf(uuid.c_str() + i, "%2x", &x) != 1) return NVML_ERROR_UNKNOWN;
    info->clusterUuid[byte++] = static_cast<unsigned char>(x);
    ++i;
  }
  info->healthMask = 0;
  if (info->version == nvmlGpuFabricInfo_v3) {
    const std::string health = value<std::string>(*dev, "fabric_health_summary").value_or("");
    info->healthSummary = health == "healthy"            ? NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY
                          : health == "unhealthy"        ? NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY
                          : health == "limited_capacity" ? NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY
                                                         : NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED;
  }
  return NVML_SUCCESS;
}

}  // extern "C"

// Every entry point of nvml_api.h, referenced: with the library linked
// --no-undefined (tests/CMakeLists.txt), one declared there but never defined
// here fails the link instead of going missing at run time.
[[gnu::used]] const void* const kEveryEntryPoint[] = {
    reinterpret_cast<const void*>(&nvmlInit_v2),
    reinterpret_cast<const void*>(&nvmlShutdown),
    reinterpret_cast<const void*>(&nvmlErrorString),
    reinterpret_cast<const void*>(&nvmlSystemGetDriverVersion),
    reinterpret_cast<const void*>(&nvmlSystemGetCudaDriverVersion_v2),
    reinterpret_cast<const void*>(&nvmlDeviceGetCount_v2),
    reinterpret_cast<const void*>(&nvmlDeviceGetHandleByIndex_v2),
    reinterpret_cast<const void*>(&nvmlDeviceGetName),
    reinterpret_cast<const void*>(&nvmlDeviceGetUUID),
    reinterpret_cast<const void*>(&nvmlDeviceGetPciInfo_v3),
    reinterpret_cast<const void*>(&nvmlDeviceGetMemoryInfo),
    reinterpret_cast<const void*>(&nvmlDeviceGetEccMode),
    reinterpret_cast<const void*>(&nvmlDeviceGetTotalEccErrors),
    reinterpret_cast<const void*>(&nvmlDeviceGetRetiredPages),
    reinterpret_cast<const void*>(&nvmlDeviceGetRetiredPagesPendingStatus),
    reinterpret_cast<const void*>(&nvmlDeviceGetRemappedRows),
    reinterpret_cast<const void*>(&nvmlDeviceGetTemperature),
    reinterpret_cast<const void*>(&nvmlDeviceGetCurrentClocksEventReasons),
    reinterpret_cast<const void*>(&nvmlDeviceGetCurrentClocksThrottleReasons),
    reinterpret_cast<const void*>(&nvmlDeviceGetPerformanceState),
    reinterpret_cast<const void*>(&nvmlDeviceGetCurrPcieLinkGeneration),
    reinterpret_cast<const void*>(&nvmlDeviceGetMaxPcieLinkGeneration),
    reinterpret_cast<const void*>(&nvmlDeviceGetCurrPcieLinkWidth),
    reinterpret_cast<const void*>(&nvmlDeviceGetMaxPcieLinkWidth),
    reinterpret_cast<const void*>(&nvmlDeviceGetNvLinkState),
    reinterpret_cast<const void*>(&nvmlDeviceGetPersistenceMode),
    reinterpret_cast<const void*>(&nvmlDeviceGetFieldValues),
    reinterpret_cast<const void*>(&nvmlDeviceGetGpuFabricInfoV),
};
