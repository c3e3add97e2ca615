// Exported NVML: identity, PCI, memory and readings of one GPU, and its processes.
#include <string_view>

#include "fake_shared.h"

using namespace fake_nvml;

namespace {

// CUDA compute capability by architecture (major * 10 + minor).
int compute_capability(std::string_view architecture) {
  if (architecture == "Volta") return 70;
  if (architecture == "Turing") return 75;
  if (architecture == "Ampere") return 80;
  if (architecture == "Ada Lovelace") return 89;
  if (architecture == "Hopper") return 90;
  if (architecture == "Blackwell") return 100;
  return 0;
}

// Of the whole GPU (gpu_instance_id < 0) or of one GPU instance.
unsigned long long used_bytes(const Gpu& gpu, int gpu_instance_id = -1) {
  unsigned long long used = 0;
  for (const Process& p : gpu.processes) {
    if (gpu_instance_id < 0 || p.gpu_instance_id == gpu_instance_id) used += p.used_bytes;
  }
  return used;
}

}  // namespace

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned length) {
  Call call("nvmlDeviceGetName");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_out(gpu->model->display_name, name, length);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned length) {
  Call call("nvmlDeviceGetUUID");
  if (call.early) return *call.early;
  if (Gpu* gpu = call.st.gpu(device)) return copy_out(gpu->uuid, uuid, length);
  if (ComputeInstance* mig = call.st.mig_device(device)) return copy_out(mig->uuid, uuid, length);
  return NVML_ERROR_INVALID_ARGUMENT;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return pci_info("nvmlDeviceGetPciInfo_v2", device, pci);
}

// A GPU's handle: the board's memory, the driver's reserve counted as used
// (as v1 does); a MIG device's: its GPU instance's.
FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  Call call("nvmlDeviceGetMemoryInfo");
  if (call.early) return *call.early;
  if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (Gpu* gpu = call.st.gpu(device)) {
    memory->total = static_cast<unsigned long long>(gpu->model->memory_mib) << 20;
    memory->used = used_bytes(*gpu) + gpu->reserved_bytes;
  } else if (ComputeInstance* mig = call.st.mig_device(device)) {
    const GpuInstance& gi = *mig->parent;
    memory->total = static_cast<unsigned long long>(gi.profile->memory_mib) << 20;
    memory->used = used_bytes(*gi.parent, static_cast<int>(gi.id));
  } else {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  Call call("nvmlDeviceGetCudaComputeCapability");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || major == nullptr || minor == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const int cc = compute_capability(gpu->model->architecture);
  if (cc == 0) return NVML_ERROR_NOT_SUPPORTED;
  *major = cc / 10;
  *minor = cc % 10;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned* celsius) {
  int value = 0;
  const nvmlReturn_t ret = temperature("nvmlDeviceGetTemperature", device, sensor, celsius ? &value : nullptr);
  if (ret == NVML_SUCCESS) *celsius = static_cast<unsigned>(value);
  return ret;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned* milliwatts) {
  Call call("nvmlDeviceGetPowerUsage");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || milliwatts == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *milliwatts = gpu->power_mw;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  Call call("nvmlDeviceGetUtilizationRates");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || utilization == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (gpu->mig_enabled()) return NVML_ERROR_NOT_SUPPORTED;  // as the real driver in MIG mode
  utilization->gpu = gpu->utilization;
  utilization->memory = 0;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int error_type, int counter_type,
                                                          unsigned long long* count) {
  Call call("nvmlDeviceGetTotalEccErrors");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || count == nullptr || counter_type < 0 || counter_type > 1) return NVML_ERROR_INVALID_ARGUMENT;
  if (error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED) {
    *count = gpu->ecc_corrected;
  } else if (error_type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED) {
    *count = gpu->ecc_uncorrected;
  } else {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned* count,
                                                                      nvmlProcessInfo_t* infos) {
  return compute_processes("nvmlDeviceGetComputeRunningProcesses_v2", device, count, infos);
}

namespace fake_nvml {

nvmlReturn_t pci_info(const char* symbol, nvmlDevice_t device, nvmlPciInfo_t* pci) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *pci = gpu->pci();
  return NVML_SUCCESS;
}

nvmlReturn_t temperature(const char* symbol, nvmlDevice_t device, int sensor, int* celsius) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || celsius == nullptr || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *celsius = gpu->temperature_c;
  return NVML_SUCCESS;
}

nvmlReturn_t compute_processes(const char* symbol, nvmlDevice_t device, unsigned* count, nvmlProcessInfo_t* infos) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const auto needed = static_cast<unsigned>(gpu->processes.size());
  if (*count < needed) {
    *count = needed;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  if (needed > 0 && infos == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned i = 0; i < needed; ++i) {
    const Process& p = gpu->processes[i];
    nvmlProcessInfo_t info{};
    info.pid = p.pid;
    info.usedGpuMemory = p.used_bytes;
    info.gpuInstanceId = NVML_INSTANCE_ID_NONE;
    info.computeInstanceId = NVML_INSTANCE_ID_NONE;
    if (GpuInstance* gi = gpu->mig_enabled() && p.gpu_instance_id >= 0
                              ? gpu->instance(static_cast<unsigned>(p.gpu_instance_id))
                              : nullptr) {
      info.gpuInstanceId = gi->id;
      info.computeInstanceId = gi->compute.empty() ? 0 : gi->compute.front()->id;
    }
    infos[i] = info;
  }
  *count = needed;
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
