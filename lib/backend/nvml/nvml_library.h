// libnvidia-ml.so.1 loaded at run time: the handle, the functions found in it
// and the one way NVML failures become BackendErrors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "gpupool/backend/backend.h"
#include "nvml_abi.h"

namespace gpupool::backend::nvml {

// NVML's name for a return code: "NVML_SUCCESS", "NVML_ERROR_IN_USE";
// "NVML_ERROR_<n>" for a code this build does not know.
std::string error_name(nvmlReturn_t code);

// The NUL-terminated text NVML wrote into `buffer` (all of it if NVML left no NUL).
template <std::size_t N>
std::string from_buffer(const char (&buffer)[N]) {
  std::size_t length = 0;
  while (length < N && buffer[length] != '\0') ++length;
  return std::string(buffer, length);
}

// Every NVML function the backend may call; nullptr when the library lacks
// it. Where NVML has versions the newest one found is used (the comment names
// the fall-backs, which share the signature).
struct Api {
  // required: the library is refused without them
  nvmlInit_v2_fn init = nullptr;                                  // nvmlInit_v2, nvmlInit
  nvmlShutdown_fn shutdown = nullptr;
  nvmlErrorString_fn error_string = nullptr;
  nvmlSystemGetDriverVersion_fn driver_version = nullptr;
  nvmlDeviceGetCount_v2_fn device_count = nullptr;                // _v2, unversioned
  nvmlDeviceGetHandleByIndex_v2_fn handle_by_index = nullptr;     // _v2, unversioned
  nvmlDeviceGetName_fn name = nullptr;
  nvmlDeviceGetUUID_fn uuid = nullptr;
  nvmlDeviceGetPciInfo_v3_fn pci_info = nullptr;                  // _v3, _v2
  nvmlDeviceGetMemoryInfo_fn memory_info = nullptr;
  // optional
  nvmlSystemGetCudaDriverVersion_v2_fn cuda_driver_version = nullptr;  // _v2, unversioned
  nvmlDeviceGetCudaComputeCapability_fn compute_capability = nullptr;
  nvmlDeviceGetTemperatureV_fn temperature_v = nullptr;
  nvmlDeviceGetMemoryInfo_v2_fn memory_info_v2 = nullptr;
  nvmlDeviceGetTemperature_fn temperature = nullptr;
  nvmlDeviceGetPowerUsage_fn power_usage = nullptr;
  nvmlDeviceGetUtilizationRates_fn utilization = nullptr;
  nvmlDeviceGetTotalEccErrors_fn total_ecc_errors = nullptr;
  nvmlDeviceGetTotalEnergyConsumption_fn total_energy = nullptr;
  nvmlDeviceGetClockInfo_fn clock_info = nullptr;
  nvmlDeviceGetCurrentClocksEventReasons_fn clocks_event_reasons = nullptr;  // ...EventReasons, ...ThrottleReasons
  nvmlDeviceGetComputeRunningProcesses_v3_fn compute_processes = nullptr;  // _v3, _v2
  nvmlDeviceGetTopologyCommonAncestor_fn topology_common_ancestor = nullptr;
  nvmlDeviceGetNvLinkState_fn nvlink_state = nullptr;
  nvmlDeviceGetNvLinkRemotePciInfo_v2_fn nvlink_remote_pci = nullptr;
  nvmlDeviceGetNvLinkRemoteDeviceType_fn nvlink_remote_device_type = nullptr;
  nvmlEventSetCreate_fn event_set_create = nullptr;
  nvmlDeviceRegisterEvents_fn register_events = nullptr;
  nvmlEventSetWait_v2_fn event_set_wait = nullptr;                // _v2, unversioned
  nvmlEventSetFree_fn event_set_free = nullptr;
  nvmlDeviceGetMigMode_fn get_mig_mode = nullptr;
  nvmlDeviceSetMigMode_fn set_mig_mode = nullptr;
  nvmlDeviceGetGpuInstanceProfileInfoV_fn gi_profile_info_v = nullptr;
  nvmlDeviceGetGpuInstanceProfileInfo_fn gi_profile_info = nullptr;
  nvmlDeviceCreateGpuInstanceWithPlacement_fn create_gpu_instance = nullptr;
  nvmlDeviceGetGpuInstances_fn gpu_instances = nullptr;
  nvmlDeviceGetGpuInstanceById_fn gpu_instance_by_id = nullptr;
  nvmlGpuInstanceGetInfo_fn gpu_instance_info = nullptr;
  nvmlGpuInstanceDestroy_fn destroy_gpu_instance = nullptr;
  nvmlGpuInstanceGetComputeInstanceProfileInfoV_fn ci_profile_info_v = nullptr;
  nvmlGpuInstanceGetComputeInstanceProfileInfo_fn ci_profile_info = nullptr;
  nvmlGpuInstanceCreateComputeInstance_fn create_compute_instance = nullptr;
  nvmlGpuInstanceGetComputeInstances_fn compute_instances = nullptr;
  nvmlComputeInstanceGetInfo_v2_fn compute_instance_info = nullptr;  // _v2, unversioned
  nvmlComputeInstanceDestroy_fn destroy_compute_instance = nullptr;
  nvmlDeviceGetMaxMigDeviceCount_fn max_mig_device_count = nullptr;
  nvmlDeviceGetMigDeviceHandleByIndex_fn mig_device_handle_by_index = nullptr;
  nvmlDeviceGetGpuInstanceId_fn mig_device_gpu_instance_id = nullptr;
  nvmlDeviceGetComputeInstanceId_fn mig_device_compute_instance_id = nullptr;
  nvmlGpmQueryDeviceSupport_fn gpm_query_device_support = nullptr;
  nvmlGpmSampleAlloc_fn gpm_sample_alloc = nullptr;
  nvmlGpmSampleFree_fn gpm_sample_free = nullptr;
  nvmlGpmMigSampleGet_fn gpm_mig_sample_get = nullptr;
  nvmlGpmMetricsGet_fn gpm_metrics_get = nullptr;
};

class Library {
 public:
  // dlopen's `path`, finds the functions and calls nvmlInit. Throws
  // BackendError: NVML_ERROR_LIBRARY_NOT_FOUND, NVML_ERROR_FUNCTION_NOT_FOUND
  // or nvmlInit's failure.
  explicit Library(const std::string& path);
  // nvmlShutdown, then dlclose.
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const Api& api() const { return api_; }

  // Nothing when `ret` is NVML_SUCCESS, else throws BackendError(error_name(ret),
  // "<function>(GPU <gpu>[, <detail>]): <nvmlErrorString> (<name>)"); gpu < 0 leaves "GPU n" out.
  void check(nvmlReturn_t ret, std::string_view function, int gpu = -1, std::string_view detail = {}) const;
  [[noreturn]] void fail(nvmlReturn_t ret, std::string_view function, int gpu = -1,
                         std::string_view detail = {}) const;
  // Throws BackendError("NVML_ERROR_FUNCTION_NOT_FOUND") naming `function`
  // when `fn` is null (an optional function an operation cannot do without).
  template <typename Fn>
  void require(Fn fn, std::string_view function) const {
    if (fn == nullptr) missing(function);
  }

 private:
  [[noreturn]] void missing(std::string_view function) const;

  std::string path_;
  void* handle_ = nullptr;
  Api api_;
};

}  // namespace gpupool::backend::nvml
