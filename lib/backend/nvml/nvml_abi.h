// The part of NVML's C ABI (libnvidia-ml.so.1) that the NVML backend uses and
// the fake library of the tests (test/fakes/fake_nvml) exports, declared here
// so that neither needs an NVIDIA header or library to build.
//
// Source of every layout, constant and signature: NVIDIA's nvml.h as
// published in github.com/NVIDIA/go-nvml pkg/nvml/nvml.h (NVML_API_VERSION 13,
// CUDA 13 era), cross-checked against the NVML API Reference
// (https://docs.nvidia.com/deploy/nvml-api/). Layouts have not changed for the
// structs below since the versions named in the comments; the static_asserts
// pin their sizes on LP64 (x86-64 / aarch64 Linux, the only targets).
//
// Names are NVML's own so that code reads like NVML's documentation. Enums of
// the C header (nvmlReturn_t, nvmlGpuTopologyLevel_t, ...) are 4-byte ints in
// the C ABI; they are spelled `int` here. Handles are, as in nvml.h, structs
// holding one opaque pointer (passed like the pointer itself).
#pragma once

#include <cstdint>

extern "C" {

// ---- handles (nvml.h: "typedef struct { struct nvmlDevice_st* handle; } nvmlDevice_t;")
struct nvmlDevice_st;
struct nvmlGpuInstance_st;
struct nvmlComputeInstance_st;
struct nvmlEventSet_st;
struct nvmlDevice_t { nvmlDevice_st* handle; };
struct nvmlGpuInstance_t { nvmlGpuInstance_st* handle; };
struct nvmlComputeInstance_t { nvmlComputeInstance_st* handle; };
struct nvmlEventSet_t { nvmlEventSet_st* handle; };
struct nvmlGpmSample_st;
struct nvmlGpmSample_t { nvmlGpmSample_st* handle; };  // from nvmlGpmSampleAlloc

// ---- nvmlReturn_t
using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_ALREADY_INITIALIZED = 5;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_POWER = 8;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;
inline constexpr nvmlReturn_t NVML_ERROR_IRQ_ISSUE = 11;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_CORRUPTED_INFOROM = 14;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_RESET_REQUIRED = 16;
inline constexpr nvmlReturn_t NVML_ERROR_OPERATING_SYSTEM = 17;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
inline constexpr nvmlReturn_t NVML_ERROR_IN_USE = 19;
inline constexpr nvmlReturn_t NVML_ERROR_MEMORY = 20;
inline constexpr nvmlReturn_t NVML_ERROR_NO_DATA = 21;
inline constexpr nvmlReturn_t NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_RESOURCES = 23;
inline constexpr nvmlReturn_t NVML_ERROR_FREQ_NOT_SUPPORTED = 24;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;
inline constexpr nvmlReturn_t NVML_ERROR_DEPRECATED = 26;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_READY = 27;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_NOT_FOUND = 28;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_STATE = 29;
inline constexpr nvmlReturn_t NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

// ---- buffer sizes
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
inline constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned NVML_NVLINK_MAX_LINKS = 36;  // 18 before R570; links past a GPU's count answer an error

// NVML_VALUE_NOT_AVAILABLE is (-1); in unsigned long long fields it reads as all ones.
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE_ULL = ~0ULL;
// gpuInstanceId / computeInstanceId of a process or event not in a MIG instance.
inline constexpr unsigned NVML_INSTANCE_ID_NONE = 0xFFFFFFFFu;

// ---- enums
inline constexpr int NVML_FEATURE_DISABLED = 0;  // nvmlEnableState_t
inline constexpr int NVML_FEATURE_ENABLED = 1;
inline constexpr int NVML_TEMPERATURE_GPU = 0;   // nvmlTemperatureSensors_t
inline constexpr int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;    // nvmlMemoryErrorType_t
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr int NVML_VOLATILE_ECC = 0;      // nvmlEccCounterType_t
// nvmlGpuTopologyLevel_t
inline constexpr int NVML_TOPOLOGY_INTERNAL = 0;
inline constexpr int NVML_TOPOLOGY_SINGLE = 10;
inline constexpr int NVML_TOPOLOGY_MULTIPLE = 20;
inline constexpr int NVML_TOPOLOGY_HOSTBRIDGE = 30;
inline constexpr int NVML_TOPOLOGY_NODE = 40;
inline constexpr int NVML_TOPOLOGY_SYSTEM = 50;
// nvmlIntNvLinkDeviceType_t
inline constexpr int NVML_NVLINK_DEVICE_TYPE_GPU = 0x00;
inline constexpr int NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01;
inline constexpr int NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02;
inline constexpr int NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF;

// nvmlClockType_t
inline constexpr int NVML_CLOCK_GRAPHICS = 0;
inline constexpr int NVML_CLOCK_SM = 1;
inline constexpr int NVML_CLOCK_MEM = 2;
// The bits of nvmlDeviceGetCurrentClocksEventReasons (nvmlClocksEventReason*,
// named nvmlClocksThrottleReason* before R535; the values never changed).
// backend.h's kClockEventReasons names them.
inline constexpr unsigned long long nvmlClocksEventReasonGpuIdle = 0x1ULL;
inline constexpr unsigned long long nvmlClocksEventReasonApplicationsClocksSetting = 0x2ULL;
inline constexpr unsigned long long nvmlClocksEventReasonSwPowerCap = 0x4ULL;
inline constexpr unsigned long long nvmlClocksThrottleReasonHwSlowdown = 0x8ULL;
inline constexpr unsigned long long nvmlClocksEventReasonSyncBoost = 0x10ULL;
inline constexpr unsigned long long nvmlClocksEventReasonSwThermalSlowdown = 0x20ULL;
inline constexpr unsigned long long nvmlClocksThrottleReasonHwThermalSlowdown = 0x40ULL;
inline constexpr unsigned long long nvmlClocksThrottleReasonHwPowerBrakeSlowdown = 0x80ULL;
inline constexpr unsigned long long nvmlClocksEventReasonDisplayClockSetting = 0x100ULL;

// ---- GPM (GPU performance monitoring, R520+, Hopper and newer GPUs)
// nvmlGpmMetricId_t values used here.
inline constexpr unsigned NVML_GPM_METRIC_GRAPHICS_UTIL = 1;  // % of time any graphics/compute work was active
inline constexpr unsigned NVML_GPM_METRIC_SM_UTIL = 2;        // % of SMs busy
inline constexpr unsigned NVML_GPM_METRIC_DRAM_BW_UTIL = 10;  // % of DRAM bandwidth used
// The size of nvmlGpmMetricsGet_t::metrics in API 13 (98 in the first GPM
// headers). NVML reads only the first numMetrics entries, so any size at or
// above the count asked for works with every driver.
inline constexpr unsigned NVML_GPM_METRIC_MAX = 333;
inline constexpr unsigned NVML_GPM_METRICS_GET_VERSION = 1;
inline constexpr unsigned NVML_GPM_SUPPORT_VERSION = 1;

// ---- events
inline constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x0000000000000008ULL;

// ---- MIG
inline constexpr unsigned NVML_DEVICE_MIG_DISABLE = 0x0;
inline constexpr unsigned NVML_DEVICE_MIG_ENABLE = 0x1;
// GPU-instance profiles, the `profile` argument of nvmlDeviceGetGpuInstanceProfileInfo
// (not the profile *id* it returns, which is what the catalog and every other
// MIG call use). Enumerated from 0 until NVML_ERROR_INVALID_ARGUMENT.
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_1_SLICE = 0x0;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_2_SLICE = 0x1;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_3_SLICE = 0x2;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_4_SLICE = 0x3;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_7_SLICE = 0x4;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_8_SLICE = 0x5;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_6_SLICE = 0x6;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 = 0x7;  // "+me": with media engines
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1 = 0x8;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 = 0x9;  // 1 compute slice, twice the memory
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_1_SLICE_GFX = 0xA;    // "+gfx": with graphics (RTX PRO Blackwell)
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_2_SLICE_GFX = 0xB;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_4_SLICE_GFX = 0xC;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_1_SLICE_NO_ME = 0xD;  // "-me": without media engines
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_2_SLICE_NO_ME = 0xE;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME = 0xF; // "+me.all": every media engine
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME = 0x10;
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_COUNT = 0x12;        // API 13; older drivers know fewer
// Compute-instance profiles (argument of nvmlGpuInstanceGetComputeInstanceProfileInfo).
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE = 0x0;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE = 0x1;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE = 0x2;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE = 0x3;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE = 0x4;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_8_SLICE = 0x5;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE = 0x6;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_PROFILE_COUNT = 0x9;
inline constexpr unsigned NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED = 0x0;

// ---- structs

// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v2/_v3 and
// nvmlDeviceGetNvLinkRemotePciInfo_v2 (the "v2" layout with busIdLegacy first).
struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;     // device id << 16 | vendor id (0x20B210DE)
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:07:00.0"
};
static_assert(sizeof(nvmlPciInfo_t) == 68);

struct nvmlMemory_t {
  unsigned long long total;  // bytes
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(nvmlMemory_t) == 24);

// nvmlMemory_v2_t, argument of nvmlDeviceGetMemoryInfo_v2 (R510+): `used`
// leaves out `reserved`, the memory the driver keeps for itself, which v1
// counts as used.
struct nvmlMemory_v2_t {
  unsigned int version;  // nvmlMemory_v2
  unsigned long long total;  // bytes
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(nvmlMemory_v2_t) == 40);

struct nvmlUtilization_t {
  unsigned int gpu;     // percent
  unsigned int memory;  // percent
};
static_assert(sizeof(nvmlUtilization_t) == 8);

// nvmlTemperature_v1_t, argument of nvmlDeviceGetTemperatureV.
struct nvmlTemperature_v1_t {
  unsigned int version;  // nvmlTemperature_v1
  int sensorType;        // nvmlTemperatureSensors_t
  int temperature;       // degrees C
};
static_assert(sizeof(nvmlTemperature_v1_t) == 12);

// nvmlProcessInfo_v2_t (== nvmlProcessInfo_t): the layout of
// nvmlDeviceGetComputeRunningProcesses_v2 and _v3.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, NVML_VALUE_NOT_AVAILABLE when unknown
  unsigned int gpuInstanceId;        // NVML_INSTANCE_ID_NONE outside MIG
  unsigned int computeInstanceId;
};
static_assert(sizeof(nvmlProcessInfo_t) == 24);

struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID for nvmlEventTypeXidCriticalError (999: unknown)
  unsigned int gpuInstanceId;    // NVML_INSTANCE_ID_NONE when not attributable
  unsigned int computeInstanceId;
};
static_assert(sizeof(nvmlEventData_t) == 32);

struct nvmlGpuInstancePlacement_t {
  unsigned int start;  // first memory slice
  unsigned int size;   // memory slices
};

// Filled by nvmlDeviceGetGpuInstanceProfileInfo (R450+).
struct nvmlGpuInstanceProfileInfo_t {
  unsigned int id;  // the profile id: catalog `id`, nvidia-smi mig -lgip "ID"
  unsigned int isP2pSupported;
  unsigned int sliceCount;     // compute slices
  unsigned int instanceCount;  // most instances of the profile
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
};
static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48);

// Filled by nvmlDeviceGetGpuInstanceProfileInfoV (R470+) when version is
// nvmlGpuInstanceProfileInfo_v2; adds the leading version and the name.
struct nvmlGpuInstanceProfileInfo_v2_t {
  unsigned int version;
  unsigned int id;
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];  // "MIG 3g.40gb"
};
static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152);

struct nvmlGpuInstanceInfo_t {
  nvmlDevice_t device;
  unsigned int id;         // GPU-instance id
  unsigned int profileId;  // profile id (not the NVML_GPU_INSTANCE_PROFILE_* index)
  nvmlGpuInstancePlacement_t placement;
};
static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24);

struct nvmlComputeInstancePlacement_t {
  unsigned int start;  // first compute slice within the GPU instance
  unsigned int size;
};

struct nvmlComputeInstanceProfileInfo_t {
  unsigned int id;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
};
static_assert(sizeof(nvmlComputeInstanceProfileInfo_t) == 36);

struct nvmlComputeInstanceProfileInfo_v2_t {
  unsigned int version;
  unsigned int id;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
};
static_assert(sizeof(nvmlComputeInstanceProfileInfo_v2_t) == 136);

// The layout of nvmlComputeInstanceGetInfo_v2 (R460+); the unversioned R450
// call fills the fields before `placement` only.
struct nvmlComputeInstanceInfo_t {
  nvmlDevice_t device;
  nvmlGpuInstance_t gpuInstance;
  unsigned int id;         // compute-instance id within the GPU instance
  unsigned int profileId;
  nvmlComputeInstancePlacement_t placement;
};
static_assert(sizeof(nvmlComputeInstanceInfo_t) == 32);

// nvmlGpmMetric_t: one metric of nvmlGpmMetricsGet.
struct nvmlGpmMetricMetricInfo_t {
  char* shortName;
  char* longName;
  char* unit;
};
struct nvmlGpmMetric_t {
  unsigned int metricId;    // IN: NVML_GPM_METRIC_*
  nvmlReturn_t nvmlReturn;  // OUT: this metric's status; value is valid only on NVML_SUCCESS
  double value;             // OUT
  nvmlGpmMetricMetricInfo_t metricInfo;  // OUT: names and unit (may be null)
};
static_assert(sizeof(nvmlGpmMetric_t) == 40);

// nvmlGpmMetricsGet_t: the metrics between sample1 and sample2 (taken in that order).
struct nvmlGpmMetricsGet_t {
  unsigned int version;     // NVML_GPM_METRICS_GET_VERSION
  unsigned int numMetrics;  // entries of metrics[] to compute
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
};
static_assert(sizeof(nvmlGpmMetricsGet_t) == 24 + 40 * NVML_GPM_METRIC_MAX);

struct nvmlGpmSupport_t {
  unsigned int version;            // NVML_GPM_SUPPORT_VERSION
  unsigned int isSupportedDevice;  // OUT: non-zero when the GPU supports GPM
};
static_assert(sizeof(nvmlGpmSupport_t) == 8);

// NVML_STRUCT_VERSION(data, ver) = sizeof(struct) | ver << 24.
inline constexpr unsigned nvml_struct_version(unsigned size, unsigned ver) { return size | (ver << 24U); }
inline constexpr unsigned nvmlGpuInstanceProfileInfo_v2 = nvml_struct_version(sizeof(nvmlGpuInstanceProfileInfo_v2_t), 2);
inline constexpr unsigned nvmlComputeInstanceProfileInfo_v2 = nvml_struct_version(sizeof(nvmlComputeInstanceProfileInfo_v2_t), 2);
inline constexpr unsigned nvmlTemperature_v1 = nvml_struct_version(sizeof(nvmlTemperature_v1_t), 1);
inline constexpr unsigned nvmlMemory_v2 = nvml_struct_version(sizeof(nvmlMemory_v2_t), 2);

// ---- function signatures, one alias per exported symbol the backend may use.
// Newest symbol first within a group; older ones are the fall-backs.
using nvmlInit_v2_fn = nvmlReturn_t (*)();                       // also nvmlInit
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlErrorString_fn = const char* (*)(nvmlReturn_t);
using nvmlSystemGetDriverVersion_fn = nvmlReturn_t (*)(char*, unsigned int);
using nvmlSystemGetCudaDriverVersion_v2_fn = nvmlReturn_t (*)(int*);  // also nvmlSystemGetCudaDriverVersion
using nvmlDeviceGetCount_v2_fn = nvmlReturn_t (*)(unsigned int*);     // also nvmlDeviceGetCount
using nvmlDeviceGetHandleByIndex_v2_fn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);  // also unversioned
using nvmlDeviceGetName_fn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetUUID_fn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetPciInfo_v3_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);  // also _v2
using nvmlDeviceGetMemoryInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using nvmlDeviceGetMemoryInfo_v2_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t*);
using nvmlDeviceGetCudaComputeCapability_fn = nvmlReturn_t (*)(nvmlDevice_t, int*, int*);
using nvmlDeviceGetTemperatureV_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperature_v1_t*);
using nvmlDeviceGetTemperature_fn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);
using nvmlDeviceGetPowerUsage_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);  // milliwatts
using nvmlDeviceGetUtilizationRates_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using nvmlDeviceGetTotalEccErrors_fn = nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned long long*);
using nvmlDeviceGetTotalEnergyConsumption_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);  // millijoules
using nvmlDeviceGetClockInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);                 // MHz
using nvmlDeviceGetCurrentClocksEventReasons_fn =
    nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);  // also nvmlDeviceGetCurrentClocksThrottleReasons
using nvmlDeviceGetComputeRunningProcesses_v3_fn =
    nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*);  // also _v2 (same layout)
using nvmlDeviceGetTopologyCommonAncestor_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int*);
using nvmlDeviceGetNvLinkState_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, int*);
using nvmlDeviceGetNvLinkRemotePciInfo_v2_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*);
using nvmlDeviceGetNvLinkRemoteDeviceType_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, int*);
using nvmlEventSetCreate_fn = nvmlReturn_t (*)(nvmlEventSet_t*);
using nvmlDeviceRegisterEvents_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
using nvmlEventSetWait_v2_fn = nvmlReturn_t (*)(nvmlEventSet_t, nvmlEventData_t*, unsigned int);  // also nvmlEventSetWait
using nvmlEventSetFree_fn = nvmlReturn_t (*)(nvmlEventSet_t);
using nvmlDeviceGetMigMode_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using nvmlDeviceSetMigMode_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlReturn_t*);
using nvmlDeviceGetGpuInstanceProfileInfoV_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstanceProfileInfo_v2_t*);
using nvmlDeviceGetGpuInstanceProfileInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstanceProfileInfo_t*);
using nvmlDeviceGetGpuInstancePossiblePlacements_v2_fn =
    nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstancePlacement_t*, unsigned int*);
using nvmlDeviceCreateGpuInstanceWithPlacement_fn =
    nvmlReturn_t (*)(nvmlDevice_t, unsigned int, const nvmlGpuInstancePlacement_t*, nvmlGpuInstance_t*);
using nvmlDeviceGetGpuInstances_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstance_t*, unsigned int*);
using nvmlDeviceGetGpuInstanceById_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstance_t*);
using nvmlGpuInstanceGetInfo_fn = nvmlReturn_t (*)(nvmlGpuInstance_t, nvmlGpuInstanceInfo_t*);
using nvmlGpuInstanceDestroy_fn = nvmlReturn_t (*)(nvmlGpuInstance_t);
using nvmlGpuInstanceGetComputeInstanceProfileInfoV_fn =
    nvmlReturn_t (*)(nvmlGpuInstance_t, unsigned int, unsigned int, nvmlComputeInstanceProfileInfo_v2_t*);
using nvmlGpuInstanceGetComputeInstanceProfileInfo_fn =
    nvmlReturn_t (*)(nvmlGpuInstance_t, unsigned int, unsigned int, nvmlComputeInstanceProfileInfo_t*);
using nvmlGpuInstanceCreateComputeInstance_fn = nvmlReturn_t (*)(nvmlGpuInstance_t, unsigned int, nvmlComputeInstance_t*);
using nvmlGpuInstanceGetComputeInstances_fn =
    nvmlReturn_t (*)(nvmlGpuInstance_t, unsigned int, nvmlComputeInstance_t*, unsigned int*);
using nvmlComputeInstanceGetInfo_v2_fn = nvmlReturn_t (*)(nvmlComputeInstance_t, nvmlComputeInstanceInfo_t*);  // also unversioned
using nvmlComputeInstanceDestroy_fn = nvmlReturn_t (*)(nvmlComputeInstance_t);
using nvmlDeviceGetMaxMigDeviceCount_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetMigDeviceHandleByIndex_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlDevice_t*);
using nvmlDeviceGetGpuInstanceId_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetComputeInstanceId_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlGpmQueryDeviceSupport_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlGpmSupport_t*);
using nvmlGpmSampleAlloc_fn = nvmlReturn_t (*)(nvmlGpmSample_t*);
using nvmlGpmSampleFree_fn = nvmlReturn_t (*)(nvmlGpmSample_t);
using nvmlGpmMigSampleGet_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpmSample_t);  // by GPU-instance id
using nvmlGpmMetricsGet_fn = nvmlReturn_t (*)(nvmlGpmMetricsGet_t*);

}  // extern "C"
