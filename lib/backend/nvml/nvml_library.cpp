// Loading libnvidia-ml.so.1: dlopen, symbol look-up newest version first,
// nvmlInit / nvmlShutdown, and NVML failures as BackendErrors.
#include "nvml_library.h"

#include <dlfcn.h>

#include <initializer_list>

namespace gpupool::backend::nvml {
namespace {

// The first of `symbols` the library has, or nullptr.
template <typename Fn>
void find(void* handle, Fn& slot, std::initializer_list<const char*> symbols) {
  for (const char* symbol : symbols) {
    if (void* address = dlsym(handle, symbol)) {
      slot = reinterpret_cast<Fn>(address);
      return;
    }
  }
  slot = nullptr;
}

Api resolve(void* h) {
  Api a;
  find(h, a.init, {"nvmlInit_v2", "nvmlInit"});
  find(h, a.shutdown, {"nvmlShutdown"});
  find(h, a.error_string, {"nvmlErrorString"});
  find(h, a.driver_version, {"nvmlSystemGetDriverVersion"});
  find(h, a.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  find(h, a.handle_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  find(h, a.name, {"nvmlDeviceGetName"});
  find(h, a.uuid, {"nvmlDeviceGetUUID"});
  find(h, a.pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  find(h, a.memory_info, {"nvmlDeviceGetMemoryInfo"});

  find(h, a.cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  find(h, a.compute_capability, {"nvmlDeviceGetCudaComputeCapability"});
  find(h, a.temperature_v, {"nvmlDeviceGetTemperatureV"});
  find(h, a.memory_info_v2, {"nvmlDeviceGetMemoryInfo_v2"});
  find(h, a.temperature, {"nvmlDeviceGetTemperature"});
  find(h, a.power_usage, {"nvmlDeviceGetPowerUsage"});
  find(h, a.utilization, {"nvmlDeviceGetUtilizationRates"});
  find(h, a.total_ecc_errors, {"nvmlDeviceGetTotalEccErrors"});
  find(h, a.total_energy, {"nvmlDeviceGetTotalEnergyConsumption"});
  find(h, a.clock_info, {"nvmlDeviceGetClockInfo"});
  find(h, a.clocks_event_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  find(h, a.compute_processes, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  find(h, a.topology_common_ancestor, {"nvmlDeviceGetTopologyCommonAncestor"});
  find(h, a.nvlink_state, {"nvmlDeviceGetNvLinkState"});
  find(h, a.nvlink_remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2"});
  find(h, a.nvlink_remote_device_type, {"nvmlDeviceGetNvLinkRemoteDeviceType"});
  find(h, a.event_set_create, {"nvmlEventSetCreate"});
  find(h, a.register_events, {"nvmlDeviceRegisterEvents"});
  find(h, a.event_set_wait, {"nvmlEventSetWait_v2", "nvmlEventSetWait"});
  find(h, a.event_set_free, {"nvmlEventSetFree"});
  find(h, a.get_mig_mode, {"nvmlDeviceGetMigMode"});
  find(h, a.set_mig_mode, {"nvmlDeviceSetMigMode"});
  find(h, a.gi_profile_info_v, {"nvmlDeviceGetGpuInstanceProfileInfoV"});
  find(h, a.gi_profile_info, {"nvmlDeviceGetGpuInstanceProfileInfo"});
  find(h, a.create_gpu_instance, {"nvmlDeviceCreateGpuInstanceWithPlacement"});
  find(h, a.gpu_instances, {"nvmlDeviceGetGpuInstances"});
  find(h, a.gpu_instance_by_id, {"nvmlDeviceGetGpuInstanceById"});
  find(h, a.gpu_instance_info, {"nvmlGpuInstanceGetInfo"});
  find(h, a.destroy_gpu_instance, {"nvmlGpuInstanceDestroy"});
  find(h, a.ci_profile_info_v, {"nvmlGpuInstanceGetComputeInstanceProfileInfoV"});
  find(h, a.ci_profile_info, {"nvmlGpuInstanceGetComputeInstanceProfileInfo"});
  find(h, a.create_compute_instance, {"nvmlGpuInstanceCreateComputeInstance"});
  find(h, a.compute_instances, {"nvmlGpuInstanceGetComputeInstances"});
  find(h, a.compute_instance_info, {"nvmlComputeInstanceGetInfo_v2", "nvmlComputeInstanceGetInfo"});
  find(h, a.destroy_compute_instance, {"nvmlComputeInstanceDestroy"});
  find(h, a.max_mig_device_count, {"nvmlDeviceGetMaxMigDeviceCount"});
  find(h, a.mig_device_handle_by_index, {"nvmlDeviceGetMigDeviceHandleByIndex"});
  find(h, a.mig_device_gpu_instance_id, {"nvmlDeviceGetGpuInstanceId"});
  find(h, a.mig_device_compute_instance_id, {"nvmlDeviceGetComputeInstanceId"});
  find(h, a.gpm_query_device_support, {"nvmlGpmQueryDeviceSupport"});
  find(h, a.gpm_sample_alloc, {"nvmlGpmSampleAlloc"});
  find(h, a.gpm_sample_free, {"nvmlGpmSampleFree"});
  find(h, a.gpm_mig_sample_get, {"nvmlGpmMigSampleGet"});
  find(h, a.gpm_metrics_get, {"nvmlGpmMetricsGet"});
  return a;
}

// The first required function `a` lacks, or nullptr.
const char* missing_required(const Api& a) {
  if (!a.init) return "nvmlInit_v2";
  if (!a.shutdown) return "nvmlShutdown";
  if (!a.error_string) return "nvmlErrorString";
  if (!a.driver_version) return "nvmlSystemGetDriverVersion";
  if (!a.device_count) return "nvmlDeviceGetCount_v2";
  if (!a.handle_by_index) return "nvmlDeviceGetHandleByIndex_v2";
  if (!a.name) return "nvmlDeviceGetName";
  if (!a.uuid) return "nvmlDeviceGetUUID";
  if (!a.pci_info) return "nvmlDeviceGetPciInfo_v3";
  if (!a.memory_info) return "nvmlDeviceGetMemoryInfo";
  return nullptr;
}

}  // namespace

Library::Library(const std::string& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw BackendError("NVML_ERROR_LIBRARY_NOT_FOUND",
                       "cannot load NVML library " + path + ": " + (why ? why : "dlopen failed"));
  }
  api_ = resolve(handle_);
  if (const char* absent = missing_required(api_)) {
    dlclose(handle_);
    throw BackendError("NVML_ERROR_FUNCTION_NOT_FOUND",
                       "NVML library " + path + " lacks " + absent + " (driver too old?)");
  }
  const nvmlReturn_t ret = api_.init();
  if (ret != NVML_SUCCESS) {
    std::string text = api_.error_string(ret);
    dlclose(handle_);
    throw BackendError(error_name(ret), "nvmlInit: " + text + " (" + error_name(ret) + ")");
  }
}

Library::~Library() {
  api_.shutdown();
  dlclose(handle_);
}

void Library::check(nvmlReturn_t ret, std::string_view function, int gpu, std::string_view detail) const {
  if (ret != NVML_SUCCESS) fail(ret, function, gpu, detail);
}

void Library::fail(nvmlReturn_t ret, std::string_view function, int gpu, std::string_view detail) const {
  std::string where(function);
  if (gpu >= 0 || !detail.empty()) {
    where += '(';
    if (gpu >= 0) where += "GPU " + std::to_string(gpu);
    if (gpu >= 0 && !detail.empty()) where += ", ";
    where += detail;
    where += ')';
  }
  const char* text = api_.error_string(ret);
  const std::string name = error_name(ret);
  throw BackendError(name, where + ": " + (text ? text : "unknown error") + " (" + name + ")");
}

void Library::missing(std::string_view function) const {
  throw BackendError("NVML_ERROR_FUNCTION_NOT_FOUND",
                     "NVML library " + path_ + " lacks " + std::string(function) + " (driver too old?)");
}

}  // namespace gpupool::backend::nvml
