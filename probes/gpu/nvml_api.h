#pragma once
// The NVML types, constants and entry points ibgpu uses, declared as NVIDIA's
// nvml.h declares them (same names, same types, C linkage), because the build
// machines have no nvml.h. Three users keep them honest:
//  - probes/gpu/nvml.cpp fills its dlsym table with pointers of these types;
//  - the test-only injection library (tests/nvml_injection) defines every
//    function here, so a prototype that drifts from what ibgpu calls does not compile;
//  - where the build finds a real nvml.h, probes/gpu/nvml_api_check.cpp compares
//    each declaration here with it (CMake: IBGPU_NVML_HEADER_CHECK).
// Enums list only the values ibgpu uses; their numbers are NVML's.
// No includes: nvml_api_check.cpp includes this file inside a namespace.

#ifndef IBGPU_NVML_LINKAGE
#define IBGPU_NVML_LINKAGE extern "C"
#endif

typedef struct nvmlDevice_st* nvmlDevice_t;

typedef enum nvmlReturn_enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,  // a versioned struct this driver does not know
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef enum nvmlEnableState_enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

typedef enum nvmlMemoryErrorType_enum {
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
} nvmlMemoryErrorType_t;

typedef enum nvmlEccCounterType_enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 } nvmlEccCounterType_t;

typedef enum nvmlPageRetirementCause_enum {
  NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
  NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1
} nvmlPageRetirementCause_t;

typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;

typedef enum nvmlPStates_enum { NVML_PSTATE_0 = 0, NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 } nvmlPstates_t;

#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
// NVML_NVLINK_MAX_LINKS is 18 before NVML 13 and 36 since: ibgpu asks up to 36 under a name of its
// own (a link index a GPU lacks answers INVALID_ARGUMENT or NOT_SUPPORTED).
#define IBGPU_NVML_MAX_LINKS 36

typedef struct nvmlPciInfo_st {  // as filled by nvmlDeviceGetPciInfo_v3
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

// Field values (nvmlDeviceGetFieldValues): per NVLink, with the link in scopeId.
#define NVML_FI_DEV_NVLINK_GET_SPEED 164  // MB/s
// Error counters since the driver loaded or they were reset. Up to Hopper: the data link's replays,
// recoveries and CRC errors (nvml.h: unsupported on Blackwell and later)...
#define NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY 161
#define NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY 162
#define NVML_FI_DEV_NVLINK_ERROR_DL_CRC 163
// ... and from NVLink 5 (Blackwell): packets received with errors, and link recoveries (Up to
// recovery, whatever the result).
#define NVML_FI_DEV_NVLINK_COUNT_RCV_ERRORS 208
#define NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS 215

typedef enum nvmlValueType_enum {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6
} nvmlValueType_t;

typedef union nvmlValue_st {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
  unsigned int fieldId;  // set by the caller
  unsigned int scopeId;  // set by the caller: the link, for per-link fields
  long long timestamp;
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;  // this value's own answer: `value` holds nothing unless NVML_SUCCESS
  nvmlValue_t value;
} nvmlFieldValue_t;

// The GPU's registration with the NVLink fabric (NVL72 racks; Hopper and later), v3 of the versioned
// struct, and v2 (without healthSummary) for drivers that know no v3.
#define NVML_GPU_FABRIC_UUID_LEN 16
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define NVML_GPU_FABRIC_STATE_COMPLETED 3
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY 1
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY 2
#define NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY 3
typedef unsigned char nvmlGpuFabricState_t;

typedef struct {
  unsigned int version;  // nvmlGpuFabricInfo_v2
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;  // the registration's error, read only when state is COMPLETED
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
  unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;

typedef struct {
  unsigned int version;  // nvmlGpuFabricInfo_v3
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
  unsigned int healthMask;
  unsigned char healthSummary;  // NVML_GPU_FABRIC_HEALTH_SUMMARY_*
} nvmlGpuFabricInfo_v3_t;
typedef nvmlGpuFabricInfo_v3_t nvmlGpuFabricInfoV_t;

// NVML_STRUCT_VERSION: the struct's size, and its version in the top byte (spelt as nvml.h spells
// it, token for token, so that the header check's second definition is the same macro).
// clang-format off
#define NVML_STRUCT_VERSION(data, ver) (unsigned int)(sizeof(nvml ## data ## _v ## ver ## _t) | (ver << 24U))
// clang-format on
#define nvmlGpuFabricInfo_v2 NVML_STRUCT_VERSION(GpuFabricInfo, 2)
#define nvmlGpuFabricInfo_v3 NVML_STRUCT_VERSION(GpuFabricInfo, 3)

typedef struct nvmlMemory_st {  // v1
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

IBGPU_NVML_LINKAGE nvmlReturn_t nvmlInit_v2(void);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlShutdown(void);
IBGPU_NVML_LINKAGE const char* nvmlErrorString(nvmlReturn_t result);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char* serial, unsigned int length);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current,
                                                     nvmlEnableState_t* pending);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                                            nvmlEccCounterType_t counterType,
                                                            unsigned long long* eccCounts);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                                          unsigned int* pageCount, unsigned long long* addresses);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                                       nvmlEnableState_t* isPending);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corrRows,
                                                          unsigned int* uncRows, unsigned int* isPending,
                                                          unsigned int* failureOccurred);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                                         unsigned int* temp);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                                       unsigned long long* clocksEventReasons);
// The name before driver 535; ibgpu falls back to it on older drivers.
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                                          unsigned long long* clocksThrottleReasons);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t* pState);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* currLinkGen);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* maxLinkGen);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* currLinkWidth);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* maxLinkWidth);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                                         nvmlEnableState_t* isActive);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                                         nvmlFieldValue_t* values);
IBGPU_NVML_LINKAGE nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t* gpuFabricInfo);
