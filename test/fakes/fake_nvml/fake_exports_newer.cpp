// Exported NVML: the newer symbols, which the legacy build of the fake leaves
// out (fake_nvml_control.h): versioned variants of calls the core files export
// unversioned, and two optional functions.
#include <cstdio>

#include "fake_shared.h"

using namespace fake_nvml;

FAKE_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return cuda_driver_version("nvmlSystemGetCudaDriverVersion_v2", version);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return pci_info("nvmlDeviceGetPciInfo_v3", device, pci);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t* t) {
  int celsius = 0;
  const nvmlReturn_t ret = temperature("nvmlDeviceGetTemperatureV", device, t ? t->sensorType : 0, t ? &celsius : nullptr);
  if (ret != NVML_SUCCESS) return ret;
  if (t->version != nvmlTemperature_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  t->temperature = celsius;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned* count,
                                                                      nvmlProcessInfo_t* infos) {
  return compute_processes("nvmlDeviceGetComputeRunningProcesses_v3", device, count, infos);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned profile,
                                                                   nvmlGpuInstanceProfileInfo_v2_t* info) {
  nvmlGpuInstanceProfileInfo_t v1{};
  std::string name;
  const nvmlReturn_t ret = gi_profile_info("nvmlDeviceGetGpuInstanceProfileInfoV", device, profile, &v1, &name);
  if (ret != NVML_SUCCESS) return ret;
  if (info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (info->version != nvmlGpuInstanceProfileInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  info->id = v1.id;
  info->isP2pSupported = v1.isP2pSupported;
  info->sliceCount = v1.sliceCount;
  info->instanceCount = v1.instanceCount;
  info->multiprocessorCount = v1.multiprocessorCount;
  info->copyEngineCount = v1.copyEngineCount;
  info->decoderCount = v1.decoderCount;
  info->encoderCount = v1.encoderCount;
  info->jpegCount = v1.jpegCount;
  info->ofaCount = v1.ofaCount;
  info->memorySizeMB = v1.memorySizeMB;
  std::snprintf(info->name, sizeof info->name, "%s", name.c_str());
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned profile_id,
                                                                            nvmlGpuInstancePlacement_t* placements,
                                                                            unsigned* count) {
  return gi_possible_placements("nvmlDeviceGetGpuInstancePossiblePlacements_v2", device, profile_id, placements, count);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t instance, unsigned profile,
                                                                            unsigned engine_profile,
                                                                            nvmlComputeInstanceProfileInfo_v2_t* info) {
  nvmlComputeInstanceProfileInfo_t v1{};
  std::string name;
  const nvmlReturn_t ret = ci_profile_info("nvmlGpuInstanceGetComputeInstanceProfileInfoV", instance, profile,
                                           engine_profile, &v1, &name);
  if (ret != NVML_SUCCESS) return ret;
  if (info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (info->version != nvmlComputeInstanceProfileInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  info->id = v1.id;
  info->sliceCount = v1.sliceCount;
  info->instanceCount = v1.instanceCount;
  info->multiprocessorCount = v1.multiprocessorCount;
  info->sharedCopyEngineCount = v1.sharedCopyEngineCount;
  info->sharedDecoderCount = v1.sharedDecoderCount;
  info->sharedEncoderCount = v1.sharedEncoderCount;
  info->sharedJpegCount = v1.sharedJpegCount;
  info->sharedOfaCount = v1.sharedOfaCount;
  std::snprintf(info->name, sizeof info->name, "%s", name.c_str());
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t instance,
                                                            nvmlComputeInstanceInfo_t* info) {
  return compute_instance_info("nvmlComputeInstanceGetInfo_v2", instance, info, true);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) {
  return event_set_wait("nvmlEventSetWait_v2", set, data, timeout_ms);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned index,
                                                                  nvmlDevice_t* mig) {
  Call call("nvmlDeviceGetMigDeviceHandleByIndex");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || mig == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!gpu->model->mig || !gpu->mig_enabled()) return NVML_ERROR_NOT_SUPPORTED;
  if (index >= static_cast<unsigned>(gpu->model->mig->compute_slices)) return NVML_ERROR_INVALID_ARGUMENT;
  const auto devices = mig_devices(*gpu);
  if (index >= devices.size()) return NVML_ERROR_NOT_FOUND;
  *mig = mig_handle_of(*devices[index]);
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned link, int* type) {
  return nvlink_remote_device_type("nvmlDeviceGetNvLinkRemoteDeviceType", device, link, type);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return clocks_event_reasons("nvmlDeviceGetCurrentClocksEventReasons", device, reasons);
}

// A GPU's handle only (the backend reads MIG instances through v1).
FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  Call call("nvmlDeviceGetMemoryInfo_v2");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  unsigned long long used = 0;
  for (const Process& p : gpu->processes) used += p.used_bytes;
  memory->total = static_cast<unsigned long long>(gpu->model->memory_mib) << 20;
  memory->reserved = gpu->reserved_bytes;
  memory->used = used;
  memory->free = memory->total - memory->reserved - used;
  return NVML_SUCCESS;
}
