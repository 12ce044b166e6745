// Compiled only where the build finds NVIDIA's nvml.h (CMake: IBGPU_NVML_INCLUDE_DIR):
// each declaration of probes/gpu/nvml_api.h, which ibgpu and the test-only
// injection library compile against, must match the real one. Not part of
// ibgpu_core; a mismatch fails the build with the entry point's name.
#include <cstddef>
#include <type_traits>

// nvml.h marks the Throttle spelling deprecated; checking its declaration is no use of it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <nvml.h>

namespace ours {
#define IBGPU_NVML_LINKAGE  // C++ declarations here, so they do not clash with nvml.h's C ones
#include "probes/gpu/nvml_api.h"
}  // namespace ours

namespace {

// Our type -> nvml.h's type, through pointers, const and function types. (nvmlDevice_t
// needs no entry: nvml.h declared struct nvmlDevice_st first, so ours names that one.)
template <class T>
struct Real {
  using type = T;
};
template <class T>
struct Real<T*> {
  using type = typename Real<T>::type*;
};
template <class T>
struct Real<const T> {
  using type = const typename Real<T>::type;
};
template <class R, class... A>
struct Real<R(A...)> {
  using type = typename Real<R>::type(typename Real<A>::type...);
};
#define IBGPU_SAME_TYPE(name) \
  template <>                 \
  struct Real<ours::name> {   \
    using type = ::name;      \
  };
IBGPU_SAME_TYPE(nvmlReturn_t)
IBGPU_SAME_TYPE(nvmlEnableState_t)
IBGPU_SAME_TYPE(nvmlMemoryErrorType_t)
IBGPU_SAME_TYPE(nvmlEccCounterType_t)
IBGPU_SAME_TYPE(nvmlPageRetirementCause_t)
IBGPU_SAME_TYPE(nvmlTemperatureSensors_t)
IBGPU_SAME_TYPE(nvmlPstates_t)
IBGPU_SAME_TYPE(nvmlPciInfo_t)
IBGPU_SAME_TYPE(nvmlMemory_t)
IBGPU_SAME_TYPE(nvmlFieldValue_t)
IBGPU_SAME_TYPE(nvmlGpuFabricInfoV_t)
#undef IBGPU_SAME_TYPE

#define IBGPU_SAME_FUNCTION(fn)                                                 \
  static_assert(std::is_same_v<Real<decltype(ours::fn)>::type, decltype(::fn)>, \
                #fn " in probes/gpu/nvml_api.h differs from nvml.h")
IBGPU_SAME_FUNCTION(nvmlInit_v2);
IBGPU_SAME_FUNCTION(nvmlShutdown);
IBGPU_SAME_FUNCTION(nvmlErrorString);
IBGPU_SAME_FUNCTION(nvmlSystemGetDriverVersion);
IBGPU_SAME_FUNCTION(nvmlSystemGetCudaDriverVersion_v2);
IBGPU_SAME_FUNCTION(nvmlDeviceGetCount_v2);
IBGPU_SAME_FUNCTION(nvmlDeviceGetHandleByIndex_v2);
IBGPU_SAME_FUNCTION(nvmlDeviceGetName);
IBGPU_SAME_FUNCTION(nvmlDeviceGetUUID);
IBGPU_SAME_FUNCTION(nvmlDeviceGetPciInfo_v3);
IBGPU_SAME_FUNCTION(nvmlDeviceGetMemoryInfo);
IBGPU_SAME_FUNCTION(nvmlDeviceGetEccMode);
IBGPU_SAME_FUNCTION(nvmlDeviceGetTotalEccErrors);
IBGPU_SAME_FUNCTION(nvmlDeviceGetRetiredPages);
IBGPU_SAME_FUNCTION(nvmlDeviceGetRetiredPagesPendingStatus);
IBGPU_SAME_FUNCTION(nvmlDeviceGetRemappedRows);
IBGPU_SAME_FUNCTION(nvmlDeviceGetTemperature);
IBGPU_SAME_FUNCTION(nvmlDeviceGetCurrentClocksEventReasons);
IBGPU_SAME_FUNCTION(nvmlDeviceGetCurrentClocksThrottleReasons);
IBGPU_SAME_FUNCTION(nvmlDeviceGetPerformanceState);
IBGPU_SAME_FUNCTION(nvmlDeviceGetCurrPcieLinkGeneration);
IBGPU_SAME_FUNCTION(nvmlDeviceGetMaxPcieLinkGeneration);
IBGPU_SAME_FUNCTION(nvmlDeviceGetCurrPcieLinkWidth);
IBGPU_SAME_FUNCTION(nvmlDeviceGetMaxPcieLinkWidth);
IBGPU_SAME_FUNCTION(nvmlDeviceGetNvLinkState);
IBGPU_SAME_FUNCTION(nvmlDeviceGetPersistenceMode);
IBGPU_SAME_FUNCTION(nvmlDeviceGetFieldValues);
IBGPU_SAME_FUNCTION(nvmlDeviceGetGpuFabricInfoV);
#undef IBGPU_SAME_FUNCTION

// Enumerators: same numbers; enums: same size.
#define IBGPU_SAME_VALUE(name) \
  static_assert(static_cast<long long>(ours::name) == static_cast<long long>(::name), #name)
IBGPU_SAME_VALUE(NVML_SUCCESS);
IBGPU_SAME_VALUE(NVML_ERROR_UNINITIALIZED);
IBGPU_SAME_VALUE(NVML_ERROR_INVALID_ARGUMENT);
IBGPU_SAME_VALUE(NVML_ERROR_NOT_SUPPORTED);
IBGPU_SAME_VALUE(NVML_ERROR_NO_PERMISSION);
IBGPU_SAME_VALUE(NVML_ERROR_ALREADY_INITIALIZED);
IBGPU_SAME_VALUE(NVML_ERROR_NOT_FOUND);
IBGPU_SAME_VALUE(NVML_ERROR_INSUFFICIENT_SIZE);
IBGPU_SAME_VALUE(NVML_ERROR_INSUFFICIENT_POWER);
IBGPU_SAME_VALUE(NVML_ERROR_DRIVER_NOT_LOADED);
IBGPU_SAME_VALUE(NVML_ERROR_TIMEOUT);
IBGPU_SAME_VALUE(NVML_ERROR_IRQ_ISSUE);
IBGPU_SAME_VALUE(NVML_ERROR_LIBRARY_NOT_FOUND);
IBGPU_SAME_VALUE(NVML_ERROR_FUNCTION_NOT_FOUND);
IBGPU_SAME_VALUE(NVML_ERROR_CORRUPTED_INFOROM);
IBGPU_SAME_VALUE(NVML_ERROR_GPU_IS_LOST);
IBGPU_SAME_VALUE(NVML_ERROR_RESET_REQUIRED);
IBGPU_SAME_VALUE(NVML_ERROR_OPERATING_SYSTEM);
IBGPU_SAME_VALUE(NVML_ERROR_LIB_RM_VERSION_MISMATCH);
IBGPU_SAME_VALUE(NVML_ERROR_IN_USE);
IBGPU_SAME_VALUE(NVML_ERROR_MEMORY);
IBGPU_SAME_VALUE(NVML_ERROR_NO_DATA);
IBGPU_SAME_VALUE(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
IBGPU_SAME_VALUE(NVML_ERROR_UNKNOWN);
IBGPU_SAME_VALUE(NVML_FEATURE_DISABLED);
IBGPU_SAME_VALUE(NVML_FEATURE_ENABLED);
IBGPU_SAME_VALUE(NVML_MEMORY_ERROR_TYPE_CORRECTED);
IBGPU_SAME_VALUE(NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
IBGPU_SAME_VALUE(NVML_VOLATILE_ECC);
IBGPU_SAME_VALUE(NVML_AGGREGATE_ECC);
IBGPU_SAME_VALUE(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
IBGPU_SAME_VALUE(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
IBGPU_SAME_VALUE(NVML_TEMPERATURE_GPU);
IBGPU_SAME_VALUE(NVML_PSTATE_0);
IBGPU_SAME_VALUE(NVML_PSTATE_15);
IBGPU_SAME_VALUE(NVML_PSTATE_UNKNOWN);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_DOUBLE);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_UNSIGNED_INT);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_UNSIGNED_LONG);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_SIGNED_LONG_LONG);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_SIGNED_INT);
IBGPU_SAME_VALUE(NVML_VALUE_TYPE_UNSIGNED_SHORT);
#undef IBGPU_SAME_VALUE
static_assert(sizeof(ours::nvmlReturn_t) == sizeof(::nvmlReturn_t));
static_assert(sizeof(ours::nvmlEnableState_t) == sizeof(::nvmlEnableState_t));
static_assert(sizeof(ours::nvmlPstates_t) == sizeof(::nvmlPstates_t));
static_assert(sizeof(ours::nvmlValueType_t) == sizeof(::nvmlValueType_t));
// The macros' values: nvml.h's were defined first, so a different definition of ours is a
// redefinition warning (an error under -Werror) and the same one is silent; these say which.
static_assert(NVML_FI_DEV_NVLINK_GET_SPEED == 164);
static_assert(NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY == 161 && NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY == 162 &&
              NVML_FI_DEV_NVLINK_ERROR_DL_CRC == 163);
static_assert(NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS == 208 && NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS == 215);
static_assert(NVML_GPU_FABRIC_STATE_COMPLETED == 3 && NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY == 3);
static_assert(nvmlGpuFabricInfo_v3 == (sizeof(::nvmlGpuFabricInfo_v3_t) | (3u << 24U)));

// Structs: same size, and each field at the same offset with the same type.
#define IBGPU_SAME_FIELD(type, field)                                                      \
  static_assert(offsetof(ours::type, field) == offsetof(::type, field), #type "." #field); \
  static_assert(std::is_same_v<decltype(ours::type::field), decltype(::type::field)>, #type "." #field)
static_assert(sizeof(ours::nvmlPciInfo_t) == sizeof(::nvmlPciInfo_t));
IBGPU_SAME_FIELD(nvmlPciInfo_t, busIdLegacy);
IBGPU_SAME_FIELD(nvmlPciInfo_t, domain);
IBGPU_SAME_FIELD(nvmlPciInfo_t, bus);
IBGPU_SAME_FIELD(nvmlPciInfo_t, device);
IBGPU_SAME_FIELD(nvmlPciInfo_t, pciDeviceId);
IBGPU_SAME_FIELD(nvmlPciInfo_t, pciSubSystemId);
IBGPU_SAME_FIELD(nvmlPciInfo_t, busId);
static_assert(sizeof(ours::nvmlMemory_t) == sizeof(::nvmlMemory_t));
IBGPU_SAME_FIELD(nvmlMemory_t, total);
IBGPU_SAME_FIELD(nvmlMemory_t, free);
IBGPU_SAME_FIELD(nvmlMemory_t, used);
static_assert(sizeof(ours::nvmlValue_t) == sizeof(::nvmlValue_t));
static_assert(sizeof(ours::nvmlFieldValue_t) == sizeof(::nvmlFieldValue_t));
IBGPU_SAME_FIELD(nvmlFieldValue_t, fieldId);
IBGPU_SAME_FIELD(nvmlFieldValue_t, scopeId);
IBGPU_SAME_FIELD(nvmlFieldValue_t, timestamp);
IBGPU_SAME_FIELD(nvmlFieldValue_t, latencyUsec);
// Enum-typed fields (ours are other enum types with the same numbers, checked above): offsets only.
static_assert(offsetof(ours::nvmlFieldValue_t, nvmlReturn) == offsetof(::nvmlFieldValue_t, nvmlReturn));
static_assert(offsetof(ours::nvmlFieldValue_t, valueType) == offsetof(::nvmlFieldValue_t, valueType));
static_assert(offsetof(ours::nvmlFieldValue_t, value) == offsetof(::nvmlFieldValue_t, value));
static_assert(offsetof(ours::nvmlValue_t, uiVal) == offsetof(::nvmlValue_t, uiVal));
static_assert(offsetof(ours::nvmlValue_t, ullVal) == offsetof(::nvmlValue_t, ullVal));
static_assert(sizeof(ours::nvmlGpuFabricInfo_v2_t) == sizeof(::nvmlGpuFabricInfo_v2_t));
static_assert(sizeof(ours::nvmlGpuFabricInfoV_t) == sizeof(::nvmlGpuFabricInfoV_t));
IBGPU_SAME_FIELD(nvmlGpuFabricInfoV_t, version);
IBGPU_SAME_FIELD(nvmlGpuFabricInfoV_t, clusterUuid);
static_assert(offsetof(ours::nvmlGpuFabricInfoV_t, status) == offsetof(::nvmlGpuFabricInfoV_t, status));
IBGPU_SAME_FIELD(nvmlGpuFabricInfoV_t, cliqueId);
IBGPU_SAME_FIELD(nvmlGpuFabricInfoV_t, state);
IBGPU_SAME_FIELD(nvmlGpuFabricInfoV_t, healthMask);
IBGPU_SAME_FIELD(nvmlGpuFabricInfoV_t, healthSummary);
IBGPU_SAME_FIELD(nvmlGpuFabricInfo_v2_t, healthMask);
#undef IBGPU_SAME_FIELD

}  // namespace
